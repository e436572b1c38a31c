"""Roles, parties and policy tiles: the game's basic vocabulary."""

from __future__ import annotations

from enum import StrEnum


class Party(StrEnum):
    """A team, and what a loyalty investigation reveals."""

    LIBERAL = "liberal"
    FASCIST = "fascist"


class Role(StrEnum):
    """A secret role; Hitler plays for the Fascist party."""

    LIBERAL = "liberal"
    FASCIST = "fascist"
    HITLER = "hitler"

    @property
    def party(self) -> Party:
        """The party this role belongs to (Hitler shows Fascist)."""
        return Party.LIBERAL if self is Role.LIBERAL else Party.FASCIST


class Policy(StrEnum):
    """A policy tile. The value is the one-letter code used in records and scenarios."""

    LIBERAL = "L"
    FASCIST = "F"

    @property
    def party(self) -> Party:
        """The party whose track this tile is enacted on."""
        return Party.LIBERAL if self is Policy.LIBERAL else Party.FASCIST


class Power(StrEnum):
    """A presidential power granted by a slot of the Fascist track."""

    INVESTIGATE = "investigate"
    SPECIAL_ELECTION = "special_election"
    POLICY_PEEK = "policy_peek"
    EXECUTION = "execution"


class Phase(StrEnum):
    """Whose decision the game waits for, by kind."""

    NOMINATE = "nominate"
    VOTE = "vote"
    PRESIDENT_DISCARD = "president_discard"
    CHANCELLOR_ENACT = "chancellor_enact"
    VETO_REPLY = "veto_reply"
    INVESTIGATE = "investigate"
    SPECIAL_ELECTION = "special_election"
    EXECUTE = "execute"
    GAME_OVER = "game_over"


class WinReason(StrEnum):
    """The four ways a game of Secret Hitler ends."""

    FIVE_LIBERAL = "five_liberal"
    SIX_FASCIST = "six_fascist"
    HITLER_ELECTED = "hitler_elected"
    HITLER_EXECUTED = "hitler_executed"

    @property
    def winner(self) -> Party:
        """The party that wins by this ending."""
        if self in (WinReason.FIVE_LIBERAL, WinReason.HITLER_EXECUTED):
            return Party.LIBERAL
        return Party.FASCIST
