"""Typed errors. Every message is written to be shown to a player as is."""

from __future__ import annotations


class EngineError(Exception):
    """Base class of everything the engine raises on purpose."""


class IllegalAction(EngineError):
    """An action the rules do not allow now. The game state is left unchanged."""


class MalformedAction(IllegalAction):
    """Not a well-formed action: not an action at all, a field of the wrong type (a vote
    that is not True/False, a seat that is not a whole number), or a seat that does not
    exist. Raised before any rule is looked at."""


class WrongPhase(IllegalAction):
    """The game is not waiting for this kind of decision."""


class NotYourTurn(IllegalAction):
    """Another seat must make this decision."""


class IllegalTarget(IllegalAction):
    """The chosen player may not be chosen (dead, term-limited, yourself, already investigated)."""


class TileNotInHand(IllegalAction):
    """The chosen policy tile is not in the acting player's hand."""


class VetoUnavailable(IllegalAction):
    """A veto may not be proposed now."""


class DuplicateVote(IllegalAction):
    """The seat already cast this very ballot."""


class IllegalClaim(IllegalAction):
    """A claim this seat may not make now, or one the public record already refutes."""


class NothingToUndo(EngineError):
    """`Game.undo` was asked to take back an action, but none has been applied."""


class SetupError(EngineError):
    """A game cannot be set up as asked (player count, variant, fixed orders)."""


class RecordError(EngineError):
    """A game record cannot be read or does not replay; `index`: the action that does not
    replay, if one (the message quotes it, so it may show a hidden move)."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index
