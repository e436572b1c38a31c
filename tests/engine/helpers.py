"""Shared helpers for the engine tests: fixed games, compact step scripts, snapshots."""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from engine import (
    STANDARD,
    Action,
    CallSpecialElection,
    Execute,
    FixedChance,
    Game,
    Investigate,
    Phase,
    Policy,
    Role,
    Variant,
)
from engine import events as ev
from engine.scenario import step_actions
from engine.variants import FASCISTS_BESIDES_HITLER

ROLE_CODES = {"L": Role.LIBERAL, "F": Role.FASCIST, "H": Role.HITLER}

# players -> (liberals, fascists besides Hitler), straight from the table in RULES.md
ROLE_TABLE = {5: (3, 1), 6: (4, 1), 7: (4, 2), 8: (5, 2), 9: (5, 3), 10: (6, 3)}


def tiles(code: str) -> list[Policy]:
    """'LF F' -> [LIBERAL, FASCIST, FASCIST] (spaces are ignored)."""
    return [Policy(c) for c in code if not c.isspace()]


def deck(top: str, liberal: int = 6, fascist: int = 11) -> str:
    """A whole deck: `top` first, then the remaining Liberal tiles, then the Fascist ones."""
    top = top.replace(" ", "")
    rest_l, rest_f = liberal - top.count("L"), fascist - top.count("F")
    assert rest_l >= 0 and rest_f >= 0, f"too many tiles in {top!r}"
    return top + "L" * rest_l + "F" * rest_f


def fixed_game(
    roles: str,
    draw: str | None = None,
    *,
    first: int = 0,
    reshuffles: tuple[str, ...] | list[str] = (),
    variant: Variant = STANDARD,
) -> Game:
    """A game with every chance outcome given: roles like 'LFHLL', deck top first."""
    chance = FixedChance(
        [ROLE_CODES[c] for c in roles],
        first,
        tiles(draw if draw is not None else deck("")),
        [tiles(r) for r in reshuffles],
    )
    return Game(len(roles), chance=chance, variant=variant)


def living_votes(game: Game, ballot: str) -> str:
    """One ballot character for every living seat, '-' for the dead."""
    return "".join(ballot if alive else "-" for alive in game.alive)


def parse_step(text: str, game: Game) -> dict[str, Any]:
    """A compact step -> a scenario step (see SCENARIOS.md).

    'nominate 3', 'votes JJN-N', 'ja' / 'nein' (every living seat), 'discard F',
    'enact L', 'veto', 'agree', 'refuse', 'investigate 2', 'special_election 2',
    'execute 2'.
    """
    word, _, arg = text.strip().partition(" ")
    if word == "ja":
        return {"votes": living_votes(game, "J")}
    if word == "nein":
        return {"votes": living_votes(game, "N")}
    if word == "veto":
        return {"veto": True}
    if word in ("agree", "refuse"):
        return {"veto_reply": word == "agree"}
    if word in ("votes", "discard", "enact"):
        return {word: arg}
    if word in ("nominate", "investigate", "special_election", "execute"):
        return {word: int(arg)}
    raise ValueError(f"unknown step {text!r}")


def play(game: Game, *steps: str) -> list[ev.Event]:
    """Play compact steps through the scenario runner's step mapping; return the events."""
    events: list[ev.Event] = []
    for text in steps:
        for action in step_actions(game, parse_step(text, game)):
            events += game.apply(action)
    return events


def govern(game: Game, chancellor: int, enact: str, discard: str | None = None) -> list[ev.Event]:
    """Nominate `chancellor`, everyone living votes Ja, and the government enacts `enact`.

    The president discards `discard`, or by default a tile that keeps `enact` in the hand.
    """
    events = play(game, f"nominate {chancellor}", "ja")
    assert game.phase is Phase.PRESIDENT_DISCARD, game.phase
    if discard is None:
        hand = [p.value for p in game.hand]
        hand.remove(enact)  # the president keeps one `enact` tile
        discard = "F" if "F" in hand else "L"
    return events + play(game, f"discard {discard}", f"enact {enact}")


def of_type(events: list[ev.Event] | tuple[ev.Event, ...], kind: type) -> list[Any]:
    """The events of one class, in order."""
    return [e for e in events if isinstance(e, kind)]


def state_of(game: Game, *, deep: bool = False) -> dict[str, Any]:
    """Every state attribute of `game`, comparable with `==` to another game's.

    The chance source is reduced to comparable state (an RNG state or fixed orders).
    With `deep`, everything is copied, so later changes to `game` do not show.
    """
    state = {}
    for name, value in vars(game).items():
        if name == "chance":
            chance = {k: v for k, v in vars(value).items() if k != "rng"}
            if hasattr(value, "rng"):
                chance["rng"] = value.rng.getstate()
            value = (type(value).__name__, chance)
        state[name] = copy.deepcopy(value) if deep else value
    return state


def snapshot(game: Game) -> dict[str, Any]:
    """A deep copy of every state attribute of `game` (see `state_of`)."""
    return state_of(game, deep=True)


def role_counts_ok(game: Game) -> bool:
    """The dealt roles match the table in RULES.md for this player count."""
    liberals, fascists = ROLE_TABLE[game.players]
    assert FASCISTS_BESIDES_HITLER[game.players] == fascists
    return Counter(game.roles) == Counter(
        {Role.LIBERAL: liberals, Role.FASCIST: fascists, Role.HITLER: 1}
    )


def random_choices(game: Game, rng: random.Random, change_vote: float = 0.1) -> Iterator[Action]:
    """Random play: a uniform legal action of a random awaiting seat, sometimes a changed vote.

    The caller applies each yielded action before asking for the next.
    """
    while not game.is_over:
        seat = rng.choice(game.awaiting())
        if game.phase is Phase.VOTE and game.votes and rng.random() < change_vote:
            seat = rng.choice(sorted(game.votes))  # a seat that already voted changes it
        yield rng.choice(game.legal_actions(seat))


def max_elections() -> int:
    """An upper bound on the elections in any game.

    Every election ends in a failure (tracker +1), an agreed veto (tracker +1), an
    enactment, or Hitler elected (game over). Three tracker advances in a row force a
    chaos enactment, so each enactment is preceded by at most three elections. At most
    4 + 5 + 1 = 10 policies are enacted before one side reaches 5 Liberal / 6 Fascist.
    """
    return 3 * (4 + 5 + 1) + 1


def max_actions(players: int) -> int:
    """An upper bound on actions other than changed votes: per election a nomination,
    a ballot per seat, discard, veto proposal, veto reply, enactment, a power."""
    return max_elections() * (1 + players + 5)


def pick_chancellor(game: Game) -> int:
    """The first eligible seat that is not Hitler (electing Hitler may end the game)."""
    return next(s for s in game.eligible_chancellors() if game.roles[s] is not Role.HITLER)


def pick_target(game: Game) -> int:
    """The first legal target of the pending power that is not Hitler."""
    return next(t for t in game.power_targets() if game.roles[t] is not Role.HITLER)


POWER_ACTIONS: dict[Phase, type[Action]] = {
    Phase.INVESTIGATE: Investigate,
    Phase.SPECIAL_ELECTION: CallSpecialElection,
    Phase.EXECUTE: Execute,
}


def use_power(game: Game, target: int | None = None) -> list[ev.Event]:
    """Use the pending power on `target` (default: `pick_target`)."""
    action = POWER_ACTIONS[game.phase]
    return game.apply(action(game.president, pick_target(game) if target is None else target))


def auto_govern(game: Game, enact: str) -> list[ev.Event]:
    """`govern` with a non-Hitler chancellor, then any power used on a non-Hitler target."""
    events = govern(game, pick_chancellor(game), enact)
    if game.phase in POWER_ACTIONS:
        events += use_power(game)
    return events


# Enough Fascist tiles on top for five Fascist sessions (the president discards the L).
FIVE_FASCIST_DECK = "FFL" * 5 + "FL"
# The 12 tiles left after those five sessions (6 L, 6 F), as a reshuffle order.
AFTER_FIVE_FASCIST = "LLF" * 2 + "FFL" * 2


def five_fascist_game(
    roles: str, *, first: int = 0, reshuffles: tuple[str, ...] = (AFTER_FIVE_FASCIST,)
) -> Game:
    """A game brought to five Fascist policies by five governments (powers used).

    The draw pile is then reshuffled into `reshuffles[0]` (12 tiles: 6 L, 6 F).
    """
    game = fixed_game(roles, FIVE_FASCIST_DECK, first=first, reshuffles=reshuffles)
    for _ in range(5):
        auto_govern(game, "F")
    assert game.fascist_policies == 5 and game.phase is Phase.NOMINATE
    assert game.chance.used == 2  # type: ignore[attr-defined]
    return game


def clone(game: Game) -> Game:
    """A cheap independent copy of `game` (deepcopy is ~50x slower).

    Every container attribute is copied one level deep (their items are immutable), and
    a seeded chance source gets its own generator in the same state.
    """
    new = copy.copy(game)
    for name, value in vars(game).items():
        if isinstance(value, list | dict | set):
            setattr(new, name, copy.copy(value))
    chance = copy.copy(game.chance)
    rng = getattr(game.chance, "rng", None)
    if rng is not None:
        chance.rng = random.Random.__new__(random.Random)  # type: ignore[attr-defined]
        chance.rng.setstate(rng.getstate())  # type: ignore[attr-defined]
    new.chance = chance
    return new


def fingerprint(game: Game) -> tuple[Any, ...]:
    """A cheap summary of the mutable state (to detect a clone sharing state)."""
    return (
        game.phase,
        len(game.events),
        len(game.actions),
        tuple(game.draw_pile),
        tuple(game.discard_pile),
        tuple(game.hand),
        tuple(sorted(game.votes.items())),
        tuple(game.alive),
        tuple(sorted(game.investigated)),
        game.president,
        game.chancellor,
        game.election_tracker,
        game.liberal_policies,
        game.fascist_policies,
        game.veto_refused,
    )
