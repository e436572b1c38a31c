"""A compact, speed-first simulator of the complete rules, for random playouts.

`engine.game.Game` is the reference: readable, checked, eventful and slow (one to two
thousand random 7-player games/s). `FastGame` plays the same rules with plain ints and lists and
no events, no checks and no action objects (unless asked to record them), so Monte Carlo
search and benchmarks can play many games. tests/engine/test_fastsim.py replays
thousands of recorded fast games through `Game` and demands identical endings.

The rules are not restated here: seating, term limits, the majority, the endings, the
Hitler zone, the veto, chaos and the power track come from `engine.rules` and the
variant's `Setup`, which `Game` reads too, precomputed into tables (`_Table` per
variant and player count, `_Seating` per set of living seats). What is written twice
is the order of the transitions: the step API below takes them one call at a time, and
`play_random` keeps them inline, one section per phase, because a method call per
decision is what the playout loop is built to avoid; tests/engine/test_fastsim.py and
test_fastsim_step.py hold both to `Game`.

Chance is consumed exactly as `Game` with a `SeededChance` consumes it: the role deal,
the first president and the opening shuffle in that order, then one shuffle of the
canonical pile (all Liberal tiles, then all Fascist) at every reshuffle, with the same
`engine.chance.shuffle`. Tiles are ints (0 Liberal, 1 Fascist); a shuffle permutes by
position only, so an int list of the same shape comes out in the same order as the
`Policy` list.

Random players (`play_random`, and `play_clean_random` for the reference engine) choose
with one rule, so both engines fed the same decision RNG play the very same game:

- a choice among k distinct legal options (in `Game.legal_actions` order: seats in
  table order, Liberal before Fascist, veto last) takes `int(rng.random() * k)`, and
  takes nothing from the RNG when k == 1;
- a vote takes `rng.getrandbits(m)` for the m living seats still to vote, bit i being
  the ballot (1 = Ja) of the i-th of them in seat order;
- a veto reply is a choice among [agree, refuse]; a policy peek needs no decision.

Search goes one move at a time: `legal_moves`, `step` and `cast` (ballots in any order)
play the same rules on small-int moves; tests/engine/test_fastsim_step.py plays them
against `Game` move by move. `from_view` takes the public state a seat sees and
`determinized` completes it with a guess at the hidden state (roles, piles, hand,
ballots already cast, and a seed for the future reshuffles), as a search needs.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from . import rules
from .actions import (
    Action,
    CallSpecialElection,
    Discard,
    Enact,
    Execute,
    Investigate,
    Nominate,
    ProposeVeto,
    VetoReply,
    Vote,
)
from .chance import Chance, SeededChance, randbelow, shuffle
from .game import Game
from .roles import Party, Phase, Policy, Power, Role, WinReason
from .variants import DRAW, FASCIST_TO_WIN, REBALANCED, STANDARD, Variant
from .views import PlayerView

# Phases as small ints: the main loop compares them with `==` on locals.
NOMINATE, VOTE, DISCARD, ENACT, VETO_REPLY, INVESTIGATE, SPECIAL_ELECTION, EXECUTE, OVER = range(9)
_PHASE_CODE: dict[Phase, int] = {
    Phase.NOMINATE: NOMINATE,
    Phase.VOTE: VOTE,
    Phase.PRESIDENT_DISCARD: DISCARD,
    Phase.CHANCELLOR_ENACT: ENACT,
    Phase.VETO_REPLY: VETO_REPLY,
    Phase.INVESTIGATE: INVESTIGATE,
    Phase.SPECIAL_ELECTION: SPECIAL_ELECTION,
    Phase.EXECUTE: EXECUTE,
    Phase.GAME_OVER: OVER,
}
_PHASE_OF_CODE: tuple[Phase, ...] = tuple(_PHASE_CODE)

# Playout-only steps between decisions (never stored in `FastGame.phase`): the election
# tracker moves (a failed election or an agreed veto), a tile goes on the board (by the
# government or by chaos), the candidacy passes on.
_ADVANCE, _PUT, _PASS = 9, 10, 11

# A power slot's code: the phase its decision opens (`rules.POWER_PHASE`), else 0 (no
# power, or a peek, which needs no decision and changes nothing in a playout).
_NO_POWER = 0


def _power_code(power: Power | None) -> int:
    phase = rules.POWER_PHASE.get(power) if power is not None else None
    return _NO_POWER if phase is None else _PHASE_CODE[phase]


# Role codes of `FastGame.roles` and of the agents' role axes: 0 Liberal, 1 Fascist, 2 Hitler.
LIBERAL_ROLE, FASCIST_ROLE, HITLER_ROLE = 0, 1, 2
ROLE_OF_CODE: tuple[Role, ...] = (Role.LIBERAL, Role.FASCIST, Role.HITLER)
ROLE_CODE: dict[Role, int] = {role: code for code, role in enumerate(ROLE_OF_CODE)}
# Tile codes: 0 Liberal, 1 Fascist (piles, hands and moves of the step API).
POLICY_OF_CODE: tuple[Policy, ...] = (Policy.LIBERAL, Policy.FASCIST)
POLICY_CODE: dict[Policy, int] = {policy: code for code, policy in enumerate(POLICY_OF_CODE)}

# The chancellor's distinct options, in `Game.legal_actions` order: index with
# [Fascist tiles among the two][veto may be proposed]. 0 Liberal, 1 Fascist, 2 veto.
VETO = 2  # the chancellor's veto proposal, as a move of the step API
_ENACT_OPTIONS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((0,), (0, VETO)),
    ((0, 1), (0, 1, VETO)),
    ((1,), (1, VETO)),
)

# What `FastGame.step` and `FastGame.cast` report the table learns beyond the move.
NOTHING, ELECTED, FAILED, CHAOS_LIBERAL, CHAOS_FASCIST = range(5)

BALLOTS: tuple[int, ...] = (1, 0)  # Ja, Nein: the order of `Game.legal_actions`
VETO_REPLIES: tuple[int, ...] = (1, 0)  # agree, refuse
# The president's distinct discards, indexed by the Fascist tiles among the three.
_DISCARD_OPTIONS: tuple[tuple[int, ...], ...] = ((0,), (0, 1), (0, 1), (1,))

# A determinized game's reshuffles read their Fisher-Yates indices straight from a wide
# random seed: cheaper than seeding a Mersenne Twister (5 us) for every determinization.
# A shuffle of k <= 17 tiles uses log2(k!) < 49 bits. While the seed still holds more
# than SEED_RESERVE bits, a shuffle is uniform up to a total-variation bias below 2**-38;
# after that, what is left seeds a `random.Random`. Either way: a function of the seed.
RESHUFFLE_SEED_BITS = 256
SEED_RESERVE = 96


def seeded_shuffle(x: list[int], seed: int) -> int:
    """Shuffle `x` in place with indices decoded from `seed`; return the unused seed."""
    for i in range(len(x) - 1, 0, -1):
        seed, j = divmod(seed, i + 1)
        x[i], x[j] = x[j], x[i]
    return seed


def _new_pile(
    liberal: int, fascist: int, rng: random.Random | None, chance: Chance | None
) -> list[int]:
    """A freshly shuffled draw pile (top first) from the canonical list of its tiles."""
    if rng is not None:
        pile = [0] * liberal + [1] * fascist
        shuffle(pile, rng)
        return pile
    assert chance is not None
    tiles = chance.shuffle([Policy.LIBERAL] * liberal + [Policy.FASCIST] * fascist)
    return [0 if t is Policy.LIBERAL else 1 for t in tiles]


class _Table:
    """What is fixed for one (variant, player count): precomputed once, shared by games."""

    __slots__ = ("fascist_tiles", "liberal_tiles", "on_board", "players", "powers", "role_pool")

    def __init__(self, variant: Variant, players: int) -> None:
        setup = variant.setup(players)
        self.players = players
        self.role_pool: tuple[int, ...] = (
            (LIBERAL_ROLE,) * setup.liberals + (FASCIST_ROLE,) * setup.fascists + (HITLER_ROLE,)
        )
        self.liberal_tiles = setup.liberal_tiles
        self.fascist_tiles = setup.fascist_tiles
        self.on_board = setup.fascist_policies_at_start
        # powers[f]: the phase enacting the f-th Fascist policy opens (index 0 unused).
        self.powers: tuple[int, ...] = tuple(
            _power_code(setup.power_after(f)) for f in range(FASCIST_TO_WIN + 1)
        )


_TABLES: dict[tuple[Variant, int], _Table] = {}


def _table(variant: Variant, players: int) -> _Table:
    key = (variant, players)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = _Table(variant, players)
    return table


class _Seating:
    """Table facts for one set of living seats, computed once and shared by all games.

    `eligible[p][lc][lp]` is the tuple of seats candidate p may nominate when lc and lp
    are the last elected chancellor and president; -1 ("none") indexes the extra last
    slot, so the playout looks nominees up with no test and no list building. Every
    table is `engine.rules` evaluated once.
    """

    __slots__ = ("eligible", "living", "majority", "next", "others")

    def __init__(self, alive: tuple[bool, ...]) -> None:
        n = len(alive)
        self.living: tuple[int, ...] = tuple(rules.living(alive))
        self.majority = rules.majority(len(self.living))  # Ja ballots that elect
        # next[s]: the first living seat after s (s itself need not be alive).
        self.next: tuple[int, ...] = tuple(rules.left_of(alive, s) for s in range(n))
        # others[p]: the living seats other than p (targets of a special election or an
        # execution ordered by `p`).
        self.others: tuple[tuple[int, ...], ...] = tuple(
            tuple(rules.others(alive, p)) for p in range(n)
        )
        seats_or_none: list[int | None] = [*range(n), None]  # None: index -1
        # rules.eligible_chancellors, with each pair's term limits worked out once.
        limited = [
            [rules.term_limited(alive, lp, lc) for lp in seats_or_none] for lc in seats_or_none
        ]
        self.eligible: list[list[list[tuple[int, ...]]]] = [
            [[tuple(rules.others(alive, p, barred)) for barred in row] for row in limited]
            for p in range(n)
        ]


_SEATINGS: dict[tuple[bool, ...], _Seating] = {}


def _seating(alive: Sequence[bool]) -> _Seating:
    key = tuple(alive)
    seating = _SEATINGS.get(key)
    if seating is None:
        seating = _SEATINGS[key] = _Seating(key)
    return seating


# FastGame's fields, named once: its `__slots__`, and what `clone` must copy (a test
# holds `clone` to the list). A module constant, not only `__slots__`: compiled with
# mypyc (see setup.py) the class keeps no `__slots__` attribute at run time.
FIELDS = (
    "_chance",
    "_pile",
    "_reshuffle_seed",
    "_rng",
    "_seating",
    "_table",
    "_top",
    "alive",
    "chancellor",
    "discard_fascist",
    "discard_liberal",
    "election_tracker",
    "fascist_policies",
    "hand_fascists",
    "hitler",
    "investigated_mask",
    "last_chancellor",
    "last_president",
    "liberal_policies",
    "phase",
    "players",
    "president",
    "reason",
    "roles",
    "special_election_caller",
    "variant",
    "veto_refused",
    "votes",
)


class FastGame:
    """The full hidden state of one game in plain ints and lists, and a random playout.

    Seats are ints; "none" is -1. The draw pile is `_pile[_top:]` (top first), so a
    draw only moves an index. Only the discard pile's counts are kept: reshuffles take
    the canonical list, so its order never matters. A hand is the number of Fascist
    tiles in it (3 tiles during DISCARD, 2 during ENACT and VETO_REPLY).
    """

    __slots__ = FIELDS

    variant: Variant
    players: int
    roles: list[int]  # 0 Liberal, 1 Fascist, 2 Hitler
    hitler: int
    phase: int
    president: int
    chancellor: int
    last_president: int  # of the last *elected* government
    last_chancellor: int
    special_election_caller: int
    election_tracker: int
    liberal_policies: int
    fascist_policies: int
    alive: list[bool]
    investigated_mask: int  # bit s set: seat s has been investigated
    veto_refused: bool
    votes: dict[int, bool]  # ballots already cast in the running vote (from `from_game`)
    hand_fascists: int
    discard_liberal: int
    discard_fascist: int
    reason: WinReason | None
    _table: _Table
    _seating: _Seating  # living seats, left-of and nominee tables for `alive`
    _pile: list[int]
    _top: int
    _rng: random.Random | None  # reshuffles draw from this (fast path) ...
    _chance: Chance | None  # ... or, for any other Chance, from this ...
    _reshuffle_seed: int  # ... or, with neither, from `random.Random(_reshuffle_seed)`

    # --- construction -------------------------------------------------------------

    @classmethod
    def new(
        cls,
        players: int,
        seed: int,
        variant: Variant = STANDARD,
        *,
        rng: random.Random | None = None,
    ) -> FastGame:
        """The game `Game(players, variant=variant, seed=seed)` deals.

        Pass `rng` (any `random.Random`) to have it reseeded and reused instead of
        building a new generator: that is what the benchmark does.
        """
        table = _table(variant, players)
        if rng is None:
            rng = random.Random(seed)
        else:
            rng.seed(seed)
        # The same three draws as `Game.__init__`, in the same order.
        roles = list(table.role_pool)
        shuffle(roles, rng)
        president = randbelow(players, rng)
        pile = [0] * table.liberal_tiles + [1] * table.fascist_tiles
        shuffle(pile, rng)

        g = cls._blank(variant, players, table, roles, roles.index(HITLER_ROLE))
        g.phase = NOMINATE
        g.president = president
        g.chancellor = -1
        g.last_president = -1
        g.last_chancellor = -1
        g.special_election_caller = -1
        g.election_tracker = 0
        g.liberal_policies = 0
        g.fascist_policies = table.on_board
        g.alive = [True] * players
        g.investigated_mask = 0
        g.veto_refused = False
        g._seating = _seating(g.alive)
        g._pile = pile
        g._rng = rng
        return g

    @classmethod
    def _blank(
        cls, variant: Variant, players: int, table: _Table, roles: list[int], hitler: int
    ) -> FastGame:
        """A game with no public state yet and nothing hidden in play: no ballots, no
        hand, an empty discard pile, no pile and no chance source."""
        g = cls()
        g.variant = variant
        g.players = players
        g.roles = roles
        g.hitler = hitler
        g.votes = {}
        g.hand_fascists = 0
        g.discard_liberal = 0
        g.discard_fascist = 0
        g.reason = None
        g._table = table
        g._pile = []
        g._top = 0
        g._rng = None
        g._chance = None
        g._reshuffle_seed = 0
        return g

    def _copy_public(self, source: Game | PlayerView) -> None:
        """Take the public state both a `Game` and a `PlayerView` expose, by the same names."""
        self.phase = _PHASE_CODE[source.phase]
        self.president = source.president
        self.chancellor = _seat(source.chancellor)
        self.last_president = _seat(source.last_president)
        self.last_chancellor = _seat(source.last_chancellor)
        self.special_election_caller = _seat(source.special_election_caller)
        self.election_tracker = source.election_tracker
        self.liberal_policies = source.liberal_policies
        self.fascist_policies = source.fascist_policies
        self.alive = list(source.alive)
        self.investigated_mask = sum(1 << s for s in source.investigated)
        self.veto_refused = source.veto_refused

    @classmethod
    def from_game(cls, game: Game, chance: Chance | random.Random | None = None) -> FastGame:
        """A copy of a clean `Game` in any state, to be played on by the fast path.

        Future reshuffles draw from `chance`: a `random.Random` (used directly), or any
        `Chance`. By default they continue the game's own chance: for a `SeededChance`
        from a copy of its generator's state, so `game` itself is left untouched and
        replaying the fast continuation on it deals the same reshuffles.
        """
        table = _table(game.variant, game.players)
        if chance is None:
            chance = game.chance
        rng: random.Random | None = None
        other: Chance | None = None
        if isinstance(chance, random.Random):
            rng = chance
        elif isinstance(chance, SeededChance) and chance is game.chance:
            rng = random.Random()
            rng.setstate(chance.rng.getstate())
        elif isinstance(chance, SeededChance):
            rng = chance.rng
        else:
            other = chance

        roles = [ROLE_OF_CODE.index(r) for r in game.roles]
        g = cls._blank(game.variant, game.players, table, roles, game.hitler)
        g._copy_public(game)
        g.votes = dict(game.votes)
        g.hand_fascists = game.hand.count(Policy.FASCIST)
        g.discard_liberal = game.discard_pile.count(Policy.LIBERAL)
        g.discard_fascist = len(game.discard_pile) - g.discard_liberal
        g.reason = game.win_reason
        g._seating = _seating(game.alive)
        g._pile = [0 if t is Policy.LIBERAL else 1 for t in game.draw_pile]
        g._rng = rng
        g._chance = other
        return g

    def clone(self, rng: random.Random | None = None) -> FastGame:
        """An independent copy whose reshuffles draw from `rng`.

        By default from a copy of this game's chance generator (so both would deal the
        same reshuffles); a game on another kind of `Chance` shares it with its clone.
        """
        g = FastGame()
        g._chance = self._chance
        g._pile = self._pile
        g._reshuffle_seed = self._reshuffle_seed
        g._rng = self._rng
        g._seating = self._seating
        g._table = self._table
        g._top = self._top
        g.alive = self.alive
        g.chancellor = self.chancellor
        g.discard_fascist = self.discard_fascist
        g.discard_liberal = self.discard_liberal
        g.election_tracker = self.election_tracker
        g.fascist_policies = self.fascist_policies
        g.hand_fascists = self.hand_fascists
        g.hitler = self.hitler
        g.investigated_mask = self.investigated_mask
        g.last_chancellor = self.last_chancellor
        g.last_president = self.last_president
        g.liberal_policies = self.liberal_policies
        g.phase = self.phase
        g.players = self.players
        g.president = self.president
        g.reason = self.reason
        g.roles = self.roles
        g.special_election_caller = self.special_election_caller
        g.variant = self.variant
        g.veto_refused = self.veto_refused
        g.votes = self.votes
        if rng is None and self._rng is not None:
            rng = random.Random()
            rng.setstate(self._rng.getstate())
        if rng is not None:
            g._rng = rng
            g._chance = None
        g.roles = list(self.roles)
        g.alive = list(self.alive)
        g.votes = dict(self.votes)
        g._pile = self._pile[self._top :]
        g._top = 0
        return g

    @classmethod
    def from_view(cls, view: PlayerView, variant: Variant | None = None) -> FastGame:
        """The public state of a live game as one seat sees it, with no hidden state yet.

        A template for `determinized`, which supplies what the seat cannot see: roles,
        the draw pile, the discard pile, the hand in play and ballots already cast.
        `variant` defaults to the one the view names (a custom deck must be given).
        """
        if view.is_over:
            raise ValueError("The game is over: there is nothing to determinize.")
        if variant is None:
            variant = view_variant(view)
        table = _table(variant, view.players)
        g = cls._blank(variant, view.players, table, [LIBERAL_ROLE] * view.players, -1)
        g._copy_public(view)
        g._seating = _seating(view.alive)
        return g

    def determinized(
        self,
        roles: list[int],
        pile: list[int],
        discard_liberal: int,
        discard_fascist: int,
        hand_fascists: int,
        votes: dict[int, bool],
        reshuffle_seed: int,
    ) -> FastGame:
        """A complete game: this one's public state with the given hidden state.

        `roles` (0 Liberal, 1 Fascist, 2 Hitler per seat) and `pile` (top first, 0
        Liberal, 1 Fascist) are used as given, not copied: pass fresh lists. Future
        reshuffles are a function of `reshuffle_seed` alone (see `seeded_shuffle`), so
        the same determinization plays the same moves to the same state. Draw it with
        `rng.getrandbits(RESHUFFLE_SEED_BITS)`.
        """
        g = FastGame()
        g.variant = self.variant
        g.players = self.players
        g.roles = roles
        g.hitler = roles.index(HITLER_ROLE)
        g.phase = self.phase
        g.president = self.president
        g.chancellor = self.chancellor
        g.last_president = self.last_president
        g.last_chancellor = self.last_chancellor
        g.special_election_caller = self.special_election_caller
        g.election_tracker = self.election_tracker
        g.liberal_policies = self.liberal_policies
        g.fascist_policies = self.fascist_policies
        g.alive = self.alive[:]
        g.investigated_mask = self.investigated_mask
        g.veto_refused = self.veto_refused
        g.votes = votes
        g.hand_fascists = hand_fascists
        g.discard_liberal = discard_liberal
        g.discard_fascist = discard_fascist
        g.reason = None
        g._table = self._table
        g._seating = self._seating
        g._pile = pile
        g._top = 0
        g._rng = None
        g._chance = None
        g._reshuffle_seed = reshuffle_seed
        return g

    def _reshuffled(self, liberal: int, fascist: int) -> list[int]:
        """A new draw pile from this game's source of reshuffles (see `determinized`)."""
        rng = self._rng
        if rng is None and self._chance is None:
            pile = [0] * liberal + [1] * fascist
            seed = self._reshuffle_seed
            if seed >> SEED_RESERVE:
                self._reshuffle_seed = seeded_shuffle(pile, seed)
                return pile
            rng = self._rng = random.Random(seed)  # the wide seed is used up
        return _new_pile(liberal, fascist, rng, self._chance)

    def _refill(
        self, pile: list[int], top: int, discard_liberal: int, discard_fascist: int
    ) -> list[int]:
        """The new draw pile when `pile[top:]` is too short: it and the discards, reshuffled."""
        fascist = sum(pile[top:])
        return self._reshuffled(
            len(pile) - top - fascist + discard_liberal, fascist + discard_fascist
        )

    # --- the playout ----------------------------------------------------------------

    def play_random(self, rng: random.Random, record: list[Action] | None = None) -> WinReason:
        """Play to the end with uniformly random players; return how the game ended.

        Decisions come from `rng` by the rule in the module docstring. With `record`,
        every decision is appended as the `Action` the clean engine would accept, in
        its order (one `Vote` per seat still to vote, in seat order).
        """
        if self.reason is not None:
            return self.reason
        # Everything the loop touches lives in locals: attribute access costs more.
        rand = rng.random
        getbits = rng.getrandbits
        powers = self._table.powers
        liberal_ending = rules.ENDING_BY_LIBERAL
        fascist_ending = rules.ENDING_BY_FASCIST
        hitler_zone = rules.HITLER_ZONE_BY_FASCIST
        veto_unlocked = rules.VETO_BY_FASCIST
        chaos = rules.CHAOS_BY_TRACKER
        hitler = self.hitler
        alive = self.alive
        seating = self._seating
        living = seating.living
        majority = seating.majority
        nxt = seating.next
        eligible = seating.eligible
        pile = self._pile
        top = self._top
        disc_l = self.discard_liberal
        disc_f = self.discard_fascist
        phase = self.phase
        pres = self.president
        chanc = self.chancellor
        lp = self.last_president
        lc = self.last_chancellor
        caller = self.special_election_caller
        tracker = self.election_tracker
        lib = self.liberal_policies
        fas = self.fascist_policies
        hand_f = self.hand_fascists
        refused = self.veto_refused
        investigated = self.investigated_mask
        votes = self.votes
        reason: WinReason | None = None
        policy = 0  # the tile going on the board at _PUT ...
        by_chaos = False  # ... and whether chaos top-decked it

        # One section per phase, in the order a round goes, each falling through to the
        # next; a section that leads elsewhere sets `phase` and continues.
        while True:
            if phase == _ADVANCE:  # a failed election or an agreed veto
                tracker += 1
                if chaos[tracker]:  # the top tile goes on the board
                    policy = pile[top]
                    top += 1
                    by_chaos = True
                    phase = _PUT
                else:
                    phase = _PASS

            if phase == _PASS:  # the candidacy passes on
                if caller >= 0:  # after a special election: left of its caller
                    pres = nxt[caller]
                    caller = -1
                else:
                    pres = nxt[pres]
                chanc = -1
                phase = NOMINATE

            if phase == NOMINATE:
                elig = eligible[pres][lc][lp]  # term limits, precomputed (see _Seating)
                k = len(elig)
                if k > 1:
                    chanc = elig[int(rand() * k)]
                elif k:
                    chanc = elig[0]
                else:  # only reachable with custom tracks that kill nearly everyone
                    raise RuntimeError("No living player may be nominated chancellor.")
                if record is not None:
                    record.append(Nominate(pres, chanc))
                phase = VOTE

            if phase == VOTE:
                if votes:  # resumed mid-vote: only the seats still to vote
                    voters = tuple(s for s in living if s not in votes)
                    ja = sum(votes.values())
                    votes = {}
                else:
                    voters = living
                    ja = 0
                ballots = getbits(len(voters))  # one random bit per ballot
                if record is not None:
                    for i, s in enumerate(voters):
                        record.append(Vote(s, bool(ballots >> i & 1)))
                ja += ballots.bit_count()
                if ja < majority:
                    phase = _ADVANCE
                    continue
                lp = pres
                lc = chanc
                if hitler_zone[fas] and chanc == hitler:
                    reason = WinReason.HITLER_ELECTED
                    break
                # Three tiles (DRAW) are always there: reshuffles keep the pile at 3+
                # and `Variant.setup` rejects decks too small for that.
                hand_f = pile[top] + pile[top + 1] + pile[top + 2]
                top += 3
                phase = DISCARD

            if phase == DISCARD:
                # Distinct options [Liberal, Fascist]; index 0 (Liberal) iff rand() < .5.
                if hand_f == 0 or (hand_f < 3 and rand() < 0.5):
                    disc_l += 1
                    if record is not None:
                        record.append(Discard(pres, Policy.LIBERAL))
                else:
                    disc_f += 1
                    hand_f -= 1
                    if record is not None:
                        record.append(Discard(pres, Policy.FASCIST))
                refused = False
                phase = ENACT

            if phase == ENACT:
                options = _ENACT_OPTIONS[hand_f][veto_unlocked[fas] and not refused]
                k = len(options)
                policy = options[int(rand() * k)] if k > 1 else options[0]
                if policy == VETO:
                    if record is not None:
                        record.append(ProposeVeto(chanc))
                    phase = VETO_REPLY
                else:
                    if record is not None:
                        record.append(Enact(chanc, POLICY_OF_CODE[policy]))
                    # The other tile goes to the discard pile.
                    if hand_f - policy:
                        disc_f += 1
                    else:
                        disc_l += 1
                    hand_f = 0
                    by_chaos = False
                    phase = _PUT

            if phase == VETO_REPLY:
                agree = rand() < 0.5  # options [agree, refuse]: index 0 iff rand() < .5
                if record is not None:
                    record.append(VetoReply(pres, agree))
                if not agree:
                    refused = True  # the chancellor must now enact
                    phase = ENACT
                    continue
                disc_f += hand_f
                disc_l += 2 - hand_f
                hand_f = 0
                # The reshuffle check comes before the tracker moves (a chaos top-deck
                # takes the top tile of the resulting pile).
                if len(pile) - top < DRAW:
                    pile = self._refill(pile, top, disc_l, disc_f)
                    top = disc_l = disc_f = 0
                phase = _ADVANCE
                continue

            if phase == _PUT:  # `policy` goes on the board, enacted or by chaos
                tracker = 0
                if policy:
                    fas += 1
                    reason = fascist_ending[fas]
                else:
                    lib += 1
                    reason = liberal_ending[lib]
                if reason is not None:
                    break
                if len(pile) - top < DRAW:
                    pile = self._refill(pile, top, disc_l, disc_f)
                    top = disc_l = disc_f = 0
                if by_chaos:  # its power is ignored and term limits are forgotten
                    lp = lc = -1
                    phase = _PASS
                    continue
                phase = powers[fas] if policy else _NO_POWER
                if phase == _NO_POWER:  # none, or a peek (seeing changes nothing here)
                    phase = _PASS
                    continue

            # The rest are the powers: rare, so plainness over speed.
            if phase == INVESTIGATE:
                targets = [s for s in living if s != pres and not investigated >> s & 1]
            else:
                targets = [s for s in living if s != pres]
            k = len(targets)
            if k:  # with no one to target (custom tracks only) the power is skipped
                target = targets[int(rand() * k)] if k > 1 else targets[0]
                if phase == INVESTIGATE:
                    if record is not None:
                        record.append(Investigate(pres, target))
                    investigated |= 1 << target
                elif phase == SPECIAL_ELECTION:
                    if record is not None:
                        record.append(CallSpecialElection(pres, target))
                    caller = pres
                    pres = target
                    chanc = -1
                    phase = NOMINATE
                    continue
                else:
                    if record is not None:
                        record.append(Execute(pres, target))
                    alive[target] = False
                    seating = _seating(alive)
                    living = seating.living
                    majority = seating.majority
                    nxt = seating.next
                    eligible = seating.eligible
                    if target == hitler:
                        reason = WinReason.HITLER_EXECUTED
                        break
            phase = _PASS

        # Store the final state back, for inspection and comparison.
        self.phase = OVER
        self.reason = reason
        self.president = pres
        self.chancellor = chanc
        self.last_president = lp
        self.last_chancellor = lc
        self.special_election_caller = caller
        self.election_tracker = tracker
        self.liberal_policies = lib
        self.fascist_policies = fas
        self.investigated_mask = investigated
        self.veto_refused = refused
        self.votes = votes
        self.hand_fascists = 0  # every ending leaves the hands empty, as in `Game`
        self.discard_liberal = disc_l
        self.discard_fascist = disc_f
        self._seating = seating
        self._pile = pile
        self._top = top
        return reason

    # --- step by step -----------------------------------------------------------------
    #
    # A move is a small int whose meaning depends on the phase: the nominee, the target
    # of a power, a ballot (1 Ja, 0 Nein), a tile (0 Liberal, 1 Fascist) discarded or
    # enacted, 2 for a veto proposal, a veto reply (1 agree, 0 refuse). `legal_moves`
    # lists them in `Game.legal_actions` order. `step` and `cast` return what the table
    # learns beyond the move itself: an election's result, or a chaos top-deck.

    def to_move(self) -> int:
        """The seat whose decision is awaited (in a vote, the lowest still to vote)."""
        phase = self.phase
        if phase == VOTE:
            return self.next_voter()
        if phase == ENACT:
            return self.chancellor
        if phase == OVER:
            return -1
        return self.president

    def next_voter(self) -> int:
        """The lowest living seat that has not voted yet in the running vote."""
        votes = self.votes
        for s in self._seating.living:
            if s not in votes:
                return s
        raise AssertionError("every ballot is in")  # pragma: no cover - the count ran

    def legal_moves(self) -> tuple[int, ...]:
        """The distinct moves of the seat to move, in `Game.legal_actions` order."""
        phase = self.phase
        if phase == NOMINATE:
            return self._seating.eligible[self.president][self.last_chancellor][self.last_president]
        if phase == VOTE:
            return BALLOTS
        if phase == DISCARD:
            return _DISCARD_OPTIONS[self.hand_fascists]
        if phase == ENACT:
            return _ENACT_OPTIONS[self.hand_fascists][
                rules.VETO_BY_FASCIST[self.fascist_policies] and not self.veto_refused
            ]
        if phase == VETO_REPLY:
            return VETO_REPLIES
        if phase == INVESTIGATE:
            mask = self.investigated_mask
            return tuple(s for s in self._seating.others[self.president] if not mask >> s & 1)
        if phase == OVER:
            return ()
        return self._seating.others[self.president]

    def step(self, move: int) -> int:
        """Play `move` for the seat to move (in a vote: `next_voter`); see `cast`.

        No legality check: `move` must be one of `legal_moves()`.
        """
        phase = self.phase
        if phase == NOMINATE:
            self.chancellor = move
            self.phase = VOTE
            return NOTHING
        if phase == VOTE:
            return self.cast(self.next_voter(), move)
        if phase == DISCARD:
            if move:
                self.discard_fascist += 1
                self.hand_fascists -= 1
            else:
                self.discard_liberal += 1
            self.veto_refused = False
            self.phase = ENACT
            return NOTHING
        if phase == ENACT:
            if move == VETO:
                self.phase = VETO_REPLY
            else:
                self._enact_from_hand(move)
            return NOTHING
        if phase == VETO_REPLY:
            if not move:
                self.veto_refused = True  # the chancellor must now enact
                self.phase = ENACT
                return NOTHING
            self.discard_fascist += self.hand_fascists
            self.discard_liberal += 2 - self.hand_fascists
            self.hand_fascists = 0
            self._reshuffle_if_short()  # the check comes before the tracker moves
            outcome = self._advance_tracker()
            if self.reason is None:
                self._next_president()
            return outcome
        if phase == INVESTIGATE:
            self.investigated_mask |= 1 << move
        elif phase == SPECIAL_ELECTION:
            self.special_election_caller = self.president
            self.president = move
            self.chancellor = -1
            self.phase = NOMINATE
            return NOTHING
        else:  # EXECUTE
            self.alive[move] = False
            self._seating = _seating(self.alive)
            if move == self.hitler:
                self._end(WinReason.HITLER_EXECUTED)
                return NOTHING
        self._next_president()
        return NOTHING

    def cast(self, seat: int, ja: int) -> int:
        """`seat`'s ballot (1 Ja, 0 Nein), in any order; the last one counts the vote.

        Returns NOTHING until the last ballot, then ELECTED, FAILED, or CHAOS_LIBERAL /
        CHAOS_FASCIST when the failure made chaos top-deck that tile.
        """
        votes = self.votes
        votes[seat] = bool(ja)
        if len(votes) < len(self._seating.living):
            return NOTHING
        return self.count_votes()

    def voters(self) -> tuple[int, ...]:
        """The seats that vote (the living), in seat order."""
        return self._seating.living

    def count_votes(self) -> int:
        """Count a vote whose ballots are all in `votes` (which a search may fill itself).

        Returns ELECTED, FAILED, or CHAOS_LIBERAL / CHAOS_FASCIST (see `cast`).
        """
        return self.tally(sum(self.votes.values()))

    def tally(self, ja_count: int) -> int:
        """End the running vote with `ja_count` Ja ballots of all the living (a playout
        that draws every ballot counts them itself, without the ballot box); as
        `count_votes`."""
        self.votes = {}
        if ja_count < self._seating.majority:
            outcome = self._advance_tracker()
            if self.reason is None:
                self._next_president()
            return FAILED if outcome == NOTHING else outcome
        self.last_president = self.president
        self.last_chancellor = chancellor = self.chancellor
        if rules.HITLER_ZONE_BY_FASCIST[self.fascist_policies] and chancellor == self.hitler:
            self._end(WinReason.HITLER_ELECTED)
            return ELECTED
        pile = self._pile
        top = self._top
        self.hand_fascists = pile[top] + pile[top + 1] + pile[top + 2]
        self._top = top + 3
        self.phase = DISCARD
        return ELECTED

    def _enact_from_hand(self, policy: int) -> None:
        """The chancellor enacts `policy` (the other tile is discarded) and the power."""
        if self.hand_fascists - policy:
            self.discard_fascist += 1
        else:
            self.discard_liberal += 1
        self.hand_fascists = 0
        if self._enact(policy):
            return
        self._reshuffle_if_short()
        power = self._table.powers[self.fascist_policies] if policy else _NO_POWER
        if power != _NO_POWER:  # a power that needs the president's decision
            self.phase = power
            if self.legal_moves():
                return
            # Nobody to target (custom tracks only): the power lapses.
        self._next_president()

    def _enact(self, policy: int) -> bool:
        """Put `policy` on the board; True if that ended the game."""
        self.election_tracker = 0
        if policy:
            self.fascist_policies += 1
        else:
            self.liberal_policies += 1
        reason = rules.ending(self.liberal_policies, self.fascist_policies)
        if reason is None:
            return False
        self._end(reason)
        return True

    def _advance_tracker(self) -> int:
        """A failed election or an agreed veto; returns the chaos outcome, if any."""
        self.election_tracker += 1
        if not rules.chaos(self.election_tracker):
            return NOTHING
        # Chaos: enact the top tile, ignore its power, forget term limits.
        policy = self._pile[self._top]
        self._top += 1
        outcome = CHAOS_FASCIST if policy else CHAOS_LIBERAL
        if self._enact(policy):
            return outcome
        self.last_president = self.last_chancellor = -1
        self._reshuffle_if_short()
        return outcome

    def _reshuffle_if_short(self) -> None:
        if rules.must_reshuffle(len(self._pile) - self._top):
            self._pile = self._refill(
                self._pile, self._top, self.discard_liberal, self.discard_fascist
            )
            self._top = self.discard_liberal = self.discard_fascist = 0

    def _next_president(self) -> None:
        caller = self.special_election_caller
        if caller >= 0:  # after a special election: left of its caller
            self.president = self._seating.next[caller]
            self.special_election_caller = -1
        else:
            self.president = self._seating.next[self.president]
        self.chancellor = -1
        self.phase = NOMINATE

    def _end(self, reason: WinReason) -> None:
        self.reason = reason
        self.phase = OVER
        self.hand_fascists = 0

    def to_action(self, move: int, seat: int | None = None) -> Action:
        """`move` as the `Action` the clean engine takes (`seat` only for a ballot)."""
        phase = self.phase
        if phase == VOTE:
            return Vote(self.next_voter() if seat is None else seat, bool(move))
        if phase == NOMINATE:
            return Nominate(self.president, move)
        if phase == DISCARD:
            return Discard(self.president, POLICY_OF_CODE[move])
        if phase == ENACT:
            if move == VETO:
                return ProposeVeto(self.chancellor)
            return Enact(self.chancellor, POLICY_OF_CODE[move])
        if phase == VETO_REPLY:
            return VetoReply(self.president, bool(move))
        if phase == INVESTIGATE:
            return Investigate(self.president, move)
        if phase == SPECIAL_ELECTION:
            return CallSpecialElection(self.president, move)
        if phase == EXECUTE:
            return Execute(self.president, move)
        raise ValueError("The game is over: there is no move to make.")

    # --- results and inspection -------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.reason is not None

    @property
    def majority(self) -> int:
        """The Ja ballots that elect a government at this table now."""
        return self._seating.majority

    @property
    def winner(self) -> Party | None:
        """The winning party, once the game is over."""
        return None if self.reason is None else self.reason.winner

    @property
    def draw_pile(self) -> list[Policy]:
        """The draw pile, top first."""
        return [POLICY_OF_CODE[t] for t in self._pile[self._top :]]

    @property
    def discard_counts(self) -> tuple[int, int]:
        """(Liberal, Fascist) tiles in the discard pile; its order is never needed."""
        return self.discard_liberal, self.discard_fascist

    @property
    def investigated(self) -> set[int]:
        """Seats investigated so far."""
        return {s for s in range(self.players) if self.investigated_mask >> s & 1}

    @property
    def role_list(self) -> tuple[Role, ...]:
        """Every seat's role, as `Game.roles`."""
        return tuple(ROLE_OF_CODE[r] for r in self.roles)

    @property
    def phase_name(self) -> Phase:
        """The phase as the clean engine names it."""
        return _PHASE_OF_CODE[self.phase]


def move_of(action: Action) -> int:
    """The step API's move code of a clean `Action` (see `FastGame.step`)."""
    match action:
        case Nominate(chancellor=seat) | Investigate(target=seat):
            return seat
        case CallSpecialElection(target=seat) | Execute(target=seat):
            return seat
        case Vote(ja=ja):
            return int(ja)
        case Discard(policy=policy) | Enact(policy=policy):
            return 0 if policy is Policy.LIBERAL else 1
        case ProposeVeto():
            return VETO
        case VetoReply(agree=agree):
            return int(agree)
    raise ValueError(f"{action!r} is not a move of the step API.")


def view_variant(view: PlayerView) -> Variant:
    """The variant a view names; a custom one with its power track and the default deck."""
    if view.variant == STANDARD.name:
        return STANDARD
    if view.variant == REBALANCED.name:
        return REBALANCED
    return Variant(name=view.variant, powers=view.powers)


def _seat(seat: int | None) -> int:
    return -1 if seat is None else seat


def play_clean_random(
    game: Game, rng: random.Random, record: list[Action] | None = None
) -> WinReason:
    """The reference random players on the clean engine: the same rule as `play_random`.

    Each decision is uniform among `game.legal_actions` (already distinct); each vote
    round casts one `Vote` per living seat still to vote, in seat order. Fed the same
    decision RNG, this and `FastGame.play_random` play the same game.
    """
    rand = rng.random
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.VOTE:
            voters = [s for s in game.living() if s not in game.votes]
            ballots = rng.getrandbits(len(voters))
            for i, seat in enumerate(voters):
                vote = Vote(seat, bool(ballots >> i & 1))
                game.apply(vote)
                if record is not None:
                    record.append(vote)
            continue
        options = game.legal_actions(game.awaiting()[0])
        k = len(options)
        action = options[int(rand() * k)] if k > 1 else options[0]
        game.apply(action)
        if record is not None:
            record.append(action)
    assert game.win_reason is not None
    return game.win_reason
