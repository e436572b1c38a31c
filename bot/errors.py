"""The bot's own errors: one root, `BotError`, apart from the engine's rule errors.

Every message is written for a person (a player, a host) and names no secret. The
engine's `IllegalAction` stays the rules' refusal; `Refusal` is the bot's own (not a
player, a prompt no longer open, a paused game); storage, delivery, lobby and
configuration errors are `BotError`s too, so that a front-end can catch "anything the
bot says no to" in one place.
"""

from __future__ import annotations


class BotError(Exception):
    """The root of the bot's own errors (see the module docstring)."""


class Refusal(BotError):
    """A request the bot refuses before the rules are consulted; the message is for the
    person who made it."""
