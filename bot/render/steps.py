"""A finished game, round by round, for `shbot replay --step`.

Each page is one round (a presidential candidacy): what the table saw, the claims made
about that round's government (they come later in the game's order, once the
government is done), the hidden truth of the round (draws, discards, the chancellor's
hand, peeks, investigation results), the board after it, and the AI observer's belief
so far as a text heatmap: a row per seat, a column per snapshot (the start, then each
session), shaded by P(Fascist or Hitler).

Everything hidden is shown, so pages are made only for a game that is over.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine import Game, GameRecord, PlayerView, Role
from engine import events as ev

from ..suspicion import SuspicionTrack, suspicion_tracks
from .story import INDENT, Teller, story_lines
from .text import board_text

log = logging.getLogger(__name__)

CLAIMS = (ev.PresidentClaimed, ev.ChancellorClaimed, ev.PeekClaimed, ev.InvestigationClaimed)
# A claim speaks of the last government that held policies or used a power.
_GOVERNMENT = (ev.PolicyHandPassed, ev.PoliciesDrawn, ev.PolicyPeeked, ev.PlayerInvestigated)
SHADES = " ░▒▓█"  # P(Fascist or Hitler) in fifths, lightest first
_ROLE_LETTER = {Role.LIBERAL: "L", Role.FASCIST: "F", Role.HITLER: "H"}


@dataclass(slots=True)
class RoundPage:
    """One round of a finished game: number 0 is the deal, before the first candidate."""

    number: int
    public: list[ev.Event] = field(default_factory=list)
    claims: list[ev.Event] = field(default_factory=list)
    hidden: list[ev.Event] = field(default_factory=list)
    snapshots: int = 1  # the AI observer's snapshots up to the end of this round
    board: PlayerView | None = None  # the spectator's view at the end of the round


def round_pages(record: GameRecord) -> list[RoundPage]:
    """The pages of a finished game's record; ValueError for a game that is not over."""
    game = Game(record.players, variant=record.variant, seed=record.seed)
    pages = [RoundPage(0)]
    government = 0  # the page whose government the next claims speak of
    snapshots = 1  # "Start" is taken at the first candidate, as `suspicion_tracks` does
    for action in [None, *record.actions]:
        first = len(pages) - 1  # every page this action adds to shows the board after it
        events = game.events if action is None else game.apply(action)
        for event in events:
            if isinstance(event, ev.PresidentialCandidate):
                pages.append(RoundPage(len(pages), snapshots=snapshots))
            page = pages[-1]
            if isinstance(event, _GOVERNMENT):
                government = page.number
            if isinstance(event, CLAIMS):
                pages[government].claims.append(event)
            elif event.audience is None:
                page.public.append(event)
            elif not isinstance(event, ev.RoleDealt):  # roles: on every page's heatmap
                page.hidden.append(event)
            if isinstance(event, ev.PolicyEnacted) or (
                isinstance(event, ev.VetoReplied) and event.agreed
            ):
                snapshots += 1
                page.snapshots = snapshots
        view = game.spectator_view()
        for page in pages[first:]:
            page.board = view
    if not game.is_over:
        raise ValueError("A game is shown round by round only once it is over.")
    return pages


def heatmap_lines(
    track: SuspicionTrack, names: Sequence[str], roles: Sequence[Role], upto: int
) -> list[str]:
    """The first `upto` snapshots of `track` as rows of shades, one row per seat, with
    the seat's true role and its latest P(Fascist or Hitler)."""
    shown = track.snapshots[:upto]
    width = max(len(name) for name in names)
    out = []
    for seat, name in enumerate(names):
        if seat == track.seat:
            continue
        cells = "".join(
            SHADES[min(len(SHADES) - 1, int((s.marginals[seat][1] + s.marginals[seat][2]) * 5))]
            for s in shown
        )
        last = f"{(shown[-1].marginals[seat][1] + shown[-1].marginals[seat][2]):4.0%}"
        out.append(f"{INDENT}{_ROLE_LETTER[roles[seat]]} {name:<{width}} |{cells}| {last}")
    return out


def page_text(
    page: RoundPage,
    total: int,
    names: Sequence[str],
    roles: Sequence[Role],
    track: SuspicionTrack | None,
) -> str:
    """One round as the step-through shows it."""
    teller = Teller(names)
    story = [
        line
        for line in story_lines(page.public, teller, rounds_before=max(page.number - 1, 0))
        if line
    ]
    if page.number == 0:
        out = ["=== The deal ==="]
        teams = ", ".join(f"{names[s]} {role.value.capitalize()}" for s, role in enumerate(roles))
        story.append(f"{INDENT}Roles (hidden from the table): {teams}.")
    else:  # the story's own round header, numbered against the whole game
        out = [f"=== {story.pop(0)} (of {total - 1}) ==="]
    out += story
    if page.claims:
        out.append("Claims about this government:")
        out += [INDENT + line for e in page.claims if (line := teller.line(e))]
    if page.hidden:
        out.append("The hidden truth:")
        out += [INDENT + line for e in page.hidden if (line := teller.line(e))]
    if page.board is not None:
        out.append("The board after it:")
        out += [INDENT + line for line in board_text(page.board, names).splitlines()]
    if track is not None and track.snapshots:
        upto = min(page.snapshots, len(track.snapshots))
        out.append(
            f"{track.observer}'s belief, P(Fascist or Hitler), start then each session "
            f"({SHADES[1]} low to {SHADES[-1]} high), with true roles:"
        )
        out += heatmap_lines(track, names, roles, upto)
    return "\n".join(out)


def step_pages(record: GameRecord, names: Sequence[str]) -> list[str]:
    """Every page of a finished game (ValueError if it is not over), each with the AI
    observer's belief (the exact belief of the table, public information only) when it
    can be computed: the story goes on without it otherwise. Slow (about a second for
    10 players): call it off the event loop."""
    rounds = round_pages(record)
    game = record.replay()
    try:
        [table] = suspicion_tracks(game, names, [])
    except Exception:
        log.warning("no suspicion track for the step-through", exc_info=True)
        table = None
    return [page_text(r, len(rounds), names, game.roles, table) for r in rounds]
