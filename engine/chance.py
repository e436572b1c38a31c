"""Explicit chance: the role deal, the first president and every shuffle.

All randomness of a game comes from one `Chance` object, so a game is a function of its
chance source and its actions. `SeededChance` replays exactly from an integer seed;
`FixedChance` plays out orders given in advance (rule scenarios, tests).

Shuffles receive tiles in a canonical order (all Liberal, then all Fascist), so the
result depends only on what is being shuffled, never on the order of the discard pile.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from .errors import SetupError
from .roles import Policy, Role


class Chance(Protocol):
    """The source of every random outcome in a game."""

    def deal_roles(self, roles: Sequence[Role]) -> list[Role]:
        """Assign the given multiset of roles to seats 0..n-1."""
        ...

    def first_president(self, players: int) -> int:
        """The first presidential candidate."""
        ...

    def shuffle(self, tiles: Sequence[Policy]) -> list[Policy]:
        """A new draw pile, top first, from the tiles given in canonical order."""
        ...


class SeededChance:
    """Chance drawn from `random.Random(seed)`, in a fixed call order."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def deal_roles(self, roles: Sequence[Role]) -> list[Role]:
        dealt = list(roles)
        self.rng.shuffle(dealt)
        return dealt

    def first_president(self, players: int) -> int:
        return self.rng.randrange(players)

    def shuffle(self, tiles: Sequence[Policy]) -> list[Policy]:
        pile = list(tiles)
        self.rng.shuffle(pile)
        return pile


class FixedChance:
    """Chance fixed in advance: roles, first president, the first deck and each reshuffle.

    Every order is checked against what is actually being dealt or shuffled.
    """

    def __init__(
        self,
        roles: Sequence[Role],
        first_president: int,
        deck: Sequence[Policy],
        reshuffles: Sequence[Sequence[Policy]] = (),
    ) -> None:
        self.roles = list(roles)
        self._first_president = first_president
        self.piles = [list(deck), *(list(r) for r in reshuffles)]
        self.used = 0

    def deal_roles(self, roles: Sequence[Role]) -> list[Role]:
        if Counter(self.roles) != Counter(roles):
            raise SetupError(
                f"The fixed roles do not match this setup: expected {dict(Counter(roles))}."
            )
        return list(self.roles)

    def first_president(self, players: int) -> int:
        if not 0 <= self._first_president < players:
            raise SetupError(f"First president {self._first_president} is not a seat.")
        return self._first_president

    def shuffle(self, tiles: Sequence[Policy]) -> list[Policy]:
        if self.used >= len(self.piles):
            raise SetupError("A reshuffle happened but no fixed order is left for it.")
        pile = self.piles[self.used]
        if Counter(pile) != Counter(tiles):
            which = "deck" if self.used == 0 else f"reshuffle {self.used}"
            raise SetupError(
                f"The fixed {which} is not a permutation of the {len(tiles)} tiles "
                f"being shuffled ({Counter(tiles)[Policy.LIBERAL]} L, "
                f"{Counter(tiles)[Policy.FASCIST]} F)."
            )
        self.used += 1
        return list(pile)
