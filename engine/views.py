"""Information sets: what one seat (or a spectator) may know of a game.

A `PlayerView` is an immutable snapshot built only from public state, the seat's own
secrets and the events visible to it, so whoever holds a view cannot learn more.
Once the game is over everything is revealed to everyone.
"""

from __future__ import annotations

from dataclasses import dataclass

from .actions import Action, Claim
from .events import Event
from .roles import Party, Phase, Policy, Role, WinReason
from .variants import PowerTrack


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One seat's information set (`seat` is None for a spectator)."""

    seat: int | None
    players: int
    variant: str
    powers: PowerTrack
    liberal_tiles: int  # the game's tiles of each party (public: the deck's make-up),
    fascist_tiles: int  # counting any that started on the board
    role: Role | None
    known_roles: tuple[Role | None, ...]  # per seat: own role, team knowledge, else None
    phase: Phase
    president: int
    chancellor: int | None
    last_president: int | None
    last_chancellor: int | None
    special_election_caller: int | None
    election_tracker: int
    liberal_policies: int
    fascist_policies: int
    draw_pile: int
    discard_pile: int
    alive: tuple[bool, ...]
    investigated: tuple[int, ...]
    not_hitler: tuple[int, ...]
    term_limited: tuple[int, ...]
    eligible_chancellors: tuple[int, ...]
    veto_unlocked: bool
    veto_refused: bool
    voted: tuple[int, ...]  # who has voted in the running election, never how
    my_vote: bool | None
    hand: tuple[Policy, ...]  # tiles this seat holds right now
    awaiting: tuple[int, ...]
    legal_actions: tuple[Action, ...]
    legal_claims: tuple[Claim, ...]  # optional talk this seat may add now
    winner: Party | None
    win_reason: WinReason | None
    events: tuple[Event, ...]

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is Phase.GAME_OVER
