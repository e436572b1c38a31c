"""Information sets: what one seat (or a spectator) may know of a game.

A `PlayerView` is an immutable snapshot built only from public state, the seat's own
secrets and the events visible to it, so whoever holds a view cannot learn more.
Once the game is over everything is revealed to everyone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .actions import Action, Claim
from .events import Event
from .roles import Party, Phase, Policy, Role, WinReason
from .variants import PowerTrack

if TYPE_CHECKING:
    from .game import Game


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


def make_view(game: Game, seat: int | None) -> PlayerView:
    """Build the view of `seat` (None: a spectator) from the full game."""
    over = game.is_over
    known: list[Role | None] = [None] * game.players
    if over:
        known = list(game.roles)
    elif seat is not None:
        known[seat] = game.roles[seat]
        for other, role in game.known_roles(seat):
            known[other] = role
    holder = None
    if game.phase is Phase.PRESIDENT_DISCARD:
        holder = game.president
    elif game.phase in (Phase.CHANCELLOR_ENACT, Phase.VETO_REPLY):
        holder = game.chancellor
    return PlayerView(
        seat=seat,
        players=game.players,
        variant=game.setup.variant,
        powers=game.setup.powers,
        liberal_tiles=game.setup.liberal_tiles,
        fascist_tiles=game.setup.fascist_tiles + game.setup.fascist_policies_at_start,
        role=game.roles[seat] if seat is not None else None,
        known_roles=tuple(known),
        phase=game.phase,
        president=game.president,
        chancellor=game.chancellor,
        last_president=game.last_president,
        last_chancellor=game.last_chancellor,
        special_election_caller=game.special_election_caller,
        election_tracker=game.election_tracker,
        liberal_policies=game.liberal_policies,
        fascist_policies=game.fascist_policies,
        draw_pile=len(game.draw_pile),
        discard_pile=len(game.discard_pile),
        alive=tuple(game.alive),
        investigated=tuple(sorted(game.investigated)),
        not_hitler=tuple(sorted(game.not_hitler)),
        term_limited=tuple(game.term_limited()),
        eligible_chancellors=(
            tuple(game.eligible_chancellors()) if game.phase is Phase.NOMINATE else ()
        ),
        veto_unlocked=game.veto_unlocked,
        veto_refused=game.veto_refused,
        voted=tuple(sorted(game.votes)),
        my_vote=game.votes.get(seat) if seat is not None else None,
        hand=tuple(game.hand) if seat is not None and seat == holder else (),
        awaiting=tuple(game.awaiting()),
        legal_actions=tuple(game.legal_actions(seat)) if seat is not None else (),
        legal_claims=tuple(game.legal_claims(seat)) if seat is not None else (),
        winner=game.winner,
        win_reason=game.win_reason,
        events=tuple(e for e in game.events if over or e.visible_to(seat)),
    )
