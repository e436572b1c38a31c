"""The rules both engines read: each defined once, as a function or a table.

`engine.game.Game` (checked, eventful, the reference) and `engine.fastsim.FastGame`
(plain ints, for playouts) both take seating, term limits, the vote, the endings and the
powers from here, and the game constants from `engine.variants`, so a rule changes in
one place. The functions are the definitions; the tables are the same rules indexed by a
policy count, for the playout loop, where a call per decision costs too much.

Seats are ints; "no one" is None.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from .roles import Phase, Power, WinReason
from .variants import (
    CHAOS_AT,
    DRAW,
    FASCIST_TO_WIN,
    FEW_ALIVE,
    HITLER_ZONE,
    LIBERAL_TO_WIN,
    VETO_AT,
)

# The phase in which the president uses a power; a peek needs no decision, so no phase.
POWER_PHASE: dict[Power, Phase] = {
    Power.INVESTIGATE: Phase.INVESTIGATE,
    Power.SPECIAL_ELECTION: Phase.SPECIAL_ELECTION,
    Power.EXECUTION: Phase.EXECUTE,
}


def living(alive: Sequence[bool]) -> list[int]:
    """Living seats in table order."""
    return [s for s, up in enumerate(alive) if up]


def left_of(alive: Sequence[bool], seat: int) -> int:
    """The first living seat after `seat` (which need not be alive)."""
    n = len(alive)
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if alive[candidate]:
            return candidate
    raise AssertionError("no living player")  # pragma: no cover - a game keeps 3+


def term_limited(
    alive: Sequence[bool], last_president: int | None, last_chancellor: int | None
) -> list[int]:
    """Living seats barred from the chancellorship by the last elected government.

    Its chancellor always; its president too unless only FEW_ALIVE or fewer are alive.
    """
    limited = []
    if last_chancellor is not None:
        limited.append(last_chancellor)
    if last_president is not None and sum(alive) > FEW_ALIVE:
        limited.append(last_president)
    return sorted(s for s in limited if alive[s])


def others(alive: Sequence[bool], seat: int, barred: Container[int] = ()) -> list[int]:
    """The living seats other than `seat` and not `barred`: whom a president may nominate
    (barred: the term-limited) or target with a power (barred: the investigated, as
    nobody is investigated twice)."""
    return [s for s, up in enumerate(alive) if up and s != seat and s not in barred]


def eligible_chancellors(
    alive: Sequence[bool], president: int, last_president: int | None, last_chancellor: int | None
) -> list[int]:
    """Seats `president` may nominate: living, not themselves, not term-limited."""
    return others(alive, president, term_limited(alive, last_president, last_chancellor))


def majority(voters: int) -> int:
    """The fewest Ja ballots that elect a government: more than half (a tie fails)."""
    return voters // 2 + 1


def ending(liberal_policies: int, fascist_policies: int) -> WinReason | None:
    """How the board ends the game, if it does."""
    if liberal_policies >= LIBERAL_TO_WIN:
        return WinReason.FIVE_LIBERAL
    if fascist_policies >= FASCIST_TO_WIN:
        return WinReason.SIX_FASCIST
    return None


def hitler_zone(fascist_policies: int) -> bool:
    """Whether electing Hitler chancellor now wins the game for the Fascists."""
    return fascist_policies >= HITLER_ZONE


def veto_unlocked(fascist_policies: int) -> bool:
    """Whether a chancellor may propose a veto."""
    return fascist_policies >= VETO_AT


def chaos(election_tracker: int) -> bool:
    """Whether the election tracker has reached a chaos top-deck."""
    return election_tracker >= CHAOS_AT


def must_reshuffle(draw_pile: int) -> bool:
    """Whether a draw pile of this many tiles is too short and must be reshuffled."""
    return draw_pile < DRAW


# The same rules indexed by a policy count, for the playout loop: the ending a count
# brings on (None: play on), whether a Fascist count opens the Hitler zone or the veto,
# and whether the election tracker has reached chaos.
ENDING_BY_LIBERAL: tuple[WinReason | None, ...] = tuple(
    ending(n, 0) for n in range(LIBERAL_TO_WIN + 1)
)
ENDING_BY_FASCIST: tuple[WinReason | None, ...] = tuple(
    ending(0, n) for n in range(FASCIST_TO_WIN + 1)
)
HITLER_ZONE_BY_FASCIST: tuple[bool, ...] = tuple(hitler_zone(n) for n in range(FASCIST_TO_WIN + 1))
VETO_BY_FASCIST: tuple[bool, ...] = tuple(veto_unlocked(n) for n in range(FASCIST_TO_WIN + 1))
CHAOS_BY_TRACKER: tuple[bool, ...] = tuple(chaos(n) for n in range(CHAOS_AT + 1))
