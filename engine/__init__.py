"""Secret Hitler rules engine: pure, deterministic, no I/O."""

from .actions import (
    Action,
    CallSpecialElection,
    ChancellorClaim,
    Claim,
    Discard,
    Enact,
    Execute,
    Investigate,
    InvestigationClaim,
    Nominate,
    PeekClaim,
    PresidentClaim,
    ProposeVeto,
    VetoReply,
    Vote,
)
from .chance import Chance, FixedChance, Rewindable, SeededChance
from .errors import (
    EngineError,
    IllegalAction,
    IllegalClaim,
    MalformedAction,
    NothingToUndo,
    RecordError,
    SetupError,
)
from .game import Game
from .record import GameRecord
from .roles import Party, Phase, Policy, Power, Role, WinReason
from .variants import REBALANCED, STANDARD, Setup, Variant
from .views import PlayerView

__all__ = [
    "Action",
    "CallSpecialElection",
    "Chance",
    "ChancellorClaim",
    "Claim",
    "Discard",
    "Enact",
    "EngineError",
    "Execute",
    "FixedChance",
    "Game",
    "GameRecord",
    "IllegalAction",
    "IllegalClaim",
    "Investigate",
    "InvestigationClaim",
    "MalformedAction",
    "Nominate",
    "NothingToUndo",
    "Party",
    "PeekClaim",
    "Phase",
    "PlayerView",
    "Policy",
    "Power",
    "PresidentClaim",
    "ProposeVeto",
    "REBALANCED",
    "RecordError",
    "Rewindable",
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
