"""Secret Hitler rules engine: pure, deterministic, no I/O."""

from .actions import (
    Action,
    CallSpecialElection,
    Discard,
    Enact,
    Execute,
    Investigate,
    Nominate,
    ProposeVeto,
    VetoReply,
    Vote,
)
from .chance import Chance, FixedChance, SeededChance
from .errors import EngineError, IllegalAction, RecordError, SetupError
from .game import Game
from .record import GameRecord
from .roles import Party, Phase, Policy, Power, Role, WinReason
from .variants import REBALANCED, STANDARD, Setup, Variant
from .views import PlayerView

__all__ = [
    "Action",
    "CallSpecialElection",
    "Chance",
    "Discard",
    "Enact",
    "EngineError",
    "Execute",
    "FixedChance",
    "Game",
    "GameRecord",
    "IllegalAction",
    "Investigate",
    "Nominate",
    "Party",
    "Phase",
    "PlayerView",
    "Policy",
    "Power",
    "ProposeVeto",
    "REBALANCED",
    "RecordError",
    "Role",
    "STANDARD",
    "SeededChance",
    "Setup",
    "SetupError",
    "Variant",
    "VetoReply",
    "Vote",
    "WinReason",
]
