"""The bot's own errors: one root, `BotError`, apart from the engine's rule errors.

Every message is written for a person (a player, a host) and names no secret. The
engine's `IllegalAction` stays the rules' refusal; `Refusal` is the bot's own (not a
player, a prompt no longer open, a paused game); storage, delivery, lobby and
configuration errors are `BotError`s too, so that a front-end can catch "anything the
bot says no to" in one place.
"""

from __future__ import annotations

import traceback
from pathlib import Path


class BotError(Exception):
    """The root of the bot's own errors (see the module docstring)."""


class Refusal(BotError):
    """A request the bot refuses before the rules are consulted; the message is for the
    person who made it."""


class EndedElsewhere(BotError):
    """A move for a game whose record says it ended: something else ended it while it
    was played (another command, another process). `status` says how it ended; there is
    nothing to pause or resume. (The storage raises it as `GameEnded`.)"""

    def __init__(self, message: str, status: str) -> None:
        super().__init__(message)
        self.status = status


_ROOT = Path(__file__).resolve().parents[1]


def failure_cause(exc: BaseException) -> str:
    """What stopped a game, safe to store and log: the exception's type and the place it
    was raised (the innermost frame in this project's code), never its message."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if Path(f.filename).resolve().is_relative_to(_ROOT)]
    if not frames:
        return type(exc).__name__
    frame = (ours or frames)[-1]
    where = Path(frame.filename).resolve()
    place = where.relative_to(_ROOT) if where.is_relative_to(_ROOT) else where.name
    return f"{type(exc).__name__} at {place}:{frame.lineno} ({frame.name})"
