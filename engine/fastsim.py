"""A compact, speed-first simulator of the complete rules, for random playouts.

`engine.game.Game` is the reference: readable, checked, eventful and slow (one to two
thousand random 7-player games/s). `FastGame` plays the same rules with plain ints and lists and
no events, no checks and no action objects (unless asked to record them), so Monte Carlo
search and benchmarks can play many games. tests/engine/test_fastsim.py replays
thousands of recorded fast games through `Game` and demands identical endings.

Chance is consumed exactly as `Game` with a `SeededChance` consumes it: the role deal,
the first president and the opening shuffle in that order, then one shuffle of the
canonical pile (all Liberal tiles, then all Fascist) at every reshuffle. Tiles are ints
(0 Liberal, 1 Fascist); `random.Random.shuffle` permutes by position only, so an int
list of the same shape comes out in the same order as the `Policy` list.

Random players (`play_random`, and `play_clean_random` for the reference engine) choose
with one rule, so both engines fed the same decision RNG play the very same game:

- a choice among k distinct legal options (in `Game.legal_actions` order: seats in
  table order, Liberal before Fascist, veto last) takes `int(rng.random() * k)`, and
  takes nothing from the RNG when k == 1;
- a vote takes `rng.getrandbits(m)` for the m living seats still to vote, bit i being
  the ballot (1 = Ja) of the i-th of them in seat order;
- a veto reply is a choice among [agree, refuse]; a policy peek needs no decision.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

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
from .chance import Chance, SeededChance
from .game import Game
from .roles import Party, Phase, Policy, Power, Role, WinReason
from .variants import (
    CHAOS_AT,
    FASCIST_TO_WIN,
    HITLER_ZONE,
    LIBERAL_TO_WIN,
    STANDARD,
    VETO_AT,
    Variant,
)

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

# Power codes; a power slot maps to the phase it opens (peek opens none).
_NO_POWER, _PEEK = 0, -1
_POWER_CODE: dict[Power | None, int] = {
    None: _NO_POWER,
    Power.POLICY_PEEK: _PEEK,
    Power.INVESTIGATE: INVESTIGATE,
    Power.SPECIAL_ELECTION: SPECIAL_ELECTION,
    Power.EXECUTION: EXECUTE,
}

_LIBERAL_ROLE, _FASCIST_ROLE, _HITLER_ROLE = 0, 1, 2
_ROLE_OF_CODE = (Role.LIBERAL, Role.FASCIST, Role.HITLER)
_POLICY_OF_CODE = (Policy.LIBERAL, Policy.FASCIST)

# The chancellor's distinct options, in `Game.legal_actions` order: index with
# [Fascist tiles among the two][veto may be proposed]. 0 Liberal, 1 Fascist, 2 veto.
_VETO = 2
_ENACT_OPTIONS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((0,), (0, _VETO)),
    ((0, 1), (0, 1, _VETO)),
    ((1,), (1, _VETO)),
)

# (i + 1).bit_length() for each shuffle position i: what `Random._randbelow(i + 1)`
# asks `getrandbits` for. A table beats a method call in the shuffle loop.
_BITS: tuple[int, ...] = tuple((i + 1).bit_length() for i in range(256))


def _shuffle(x: list[int], rng: random.Random) -> None:
    """`rng.shuffle(x)`, inlined: the same `getrandbits` calls, so the same order."""
    if type(rng) is not random.Random or len(x) > len(_BITS):
        rng.shuffle(x)  # a subclass may draw differently: let it
        return
    getbits = rng.getrandbits
    bits = _BITS
    for i in range(len(x) - 1, 0, -1):
        k = bits[i]
        j = getbits(k)
        while j > i:  # rejection sampling, exactly as `_randbelow_with_getrandbits`
            j = getbits(k)
        x[i], x[j] = x[j], x[i]


def _randbelow(n: int, rng: random.Random) -> int:
    """`rng.randrange(n)` for a plain `random.Random` (what `first_president` calls)."""
    if type(rng) is not random.Random:
        return rng.randrange(n)
    k = n.bit_length()
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def _new_pile(
    liberal: int, fascist: int, rng: random.Random | None, chance: Chance | None
) -> list[int]:
    """A freshly shuffled draw pile (top first) from the canonical list of its tiles."""
    if rng is not None:
        pile = [0] * liberal + [1] * fascist
        _shuffle(pile, rng)
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
            (_LIBERAL_ROLE,) * setup.liberals + (_FASCIST_ROLE,) * setup.fascists + (_HITLER_ROLE,)
        )
        self.liberal_tiles = setup.liberal_tiles
        self.fascist_tiles = setup.fascist_tiles
        self.on_board = setup.fascist_policies_at_start
        # powers[f]: what enacting the f-th Fascist policy grants (index 0 unused).
        self.powers: tuple[int, ...] = tuple(
            _POWER_CODE[setup.power_after(f)] for f in range(FASCIST_TO_WIN + 1)
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
    slot, so the playout looks nominees up with no test and no list building.
    """

    __slots__ = ("eligible", "living", "next")

    def __init__(self, alive: tuple[bool, ...]) -> None:
        n = len(alive)
        living = tuple(s for s in range(n) if alive[s])
        self.living = living
        # next[s]: the first living seat after s (s itself need not be alive).
        self.next: tuple[int, ...] = tuple(
            next((s + step) % n for step in range(1, n + 1) if alive[(s + step) % n])
            for s in range(n)
        )
        seats_or_none = [*range(n), -1]
        limit_president = len(living) > 5  # with 5 or fewer alive only lc is limited
        self.eligible: list[list[list[tuple[int, ...]]]] = [
            [
                [
                    tuple(
                        s
                        for s in living
                        if s != p and s != lc and not (limit_president and s == lp)
                    )
                    for lp in seats_or_none
                ]
                for lc in seats_or_none
            ]
            for p in range(n)
        ]


_SEATINGS: dict[tuple[bool, ...], _Seating] = {}


def _seating(alive: Sequence[bool]) -> _Seating:
    key = tuple(alive)
    seating = _SEATINGS.get(key)
    if seating is None:
        seating = _SEATINGS[key] = _Seating(key)
    return seating


class FastGame:
    """The full hidden state of one game in plain ints and lists, and a random playout.

    Seats are ints; "none" is -1. The draw pile is `_pile[_top:]` (top first), so a
    draw only moves an index. Only the discard pile's counts are kept: reshuffles take
    the canonical list, so its order never matters. A hand is the number of Fascist
    tiles in it (3 tiles during DISCARD, 2 during ENACT and VETO_REPLY).
    """

    __slots__ = (
        "_chance",
        "_pile",
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
    _chance: Chance | None  # ... or, for any other Chance, from this

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
        _shuffle(roles, rng)
        president = _randbelow(players, rng)
        pile = [0] * table.liberal_tiles + [1] * table.fascist_tiles
        _shuffle(pile, rng)

        g = cls.__new__(cls)
        g.variant = variant
        g.players = players
        g.roles = roles
        g.hitler = roles.index(_HITLER_ROLE)
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
        g.votes = {}
        g.hand_fascists = 0
        g.discard_liberal = 0
        g.discard_fascist = 0
        g.reason = None
        g._table = table
        g._seating = _seating(g.alive)
        g._pile = pile
        g._top = 0
        g._rng = rng
        g._chance = None
        return g

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

        g = cls.__new__(cls)
        g.variant = game.variant
        g.players = game.players
        g.roles = [_ROLE_OF_CODE.index(r) for r in game.roles]
        g.hitler = game.hitler
        g.phase = _PHASE_CODE[game.phase]
        g.president = game.president
        g.chancellor = _seat(game.chancellor)
        g.last_president = _seat(game.last_president)
        g.last_chancellor = _seat(game.last_chancellor)
        g.special_election_caller = _seat(game.special_election_caller)
        g.election_tracker = game.election_tracker
        g.liberal_policies = game.liberal_policies
        g.fascist_policies = game.fascist_policies
        g.alive = list(game.alive)
        g.investigated_mask = sum(1 << s for s in game.investigated)
        g.veto_refused = game.veto_refused
        g.votes = dict(game.votes)
        g.hand_fascists = game.hand.count(Policy.FASCIST)
        g.discard_liberal = game.discard_pile.count(Policy.LIBERAL)
        g.discard_fascist = len(game.discard_pile) - g.discard_liberal
        g.reason = game.win_reason
        g._table = table
        g._seating = _seating(game.alive)
        g._pile = [0 if t is Policy.LIBERAL else 1 for t in game.draw_pile]
        g._top = 0
        g._rng = rng
        g._chance = other
        return g

    def clone(self, rng: random.Random | None = None) -> FastGame:
        """An independent copy whose reshuffles draw from `rng`.

        By default from a copy of this game's chance generator (so both would deal the
        same reshuffles); a game on another kind of `Chance` shares it with its clone.
        """
        g = FastGame.__new__(FastGame)
        for name in FastGame.__slots__:
            setattr(g, name, getattr(self, name))
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
        hitler = self.hitler
        alive = self.alive
        seating = self._seating
        living = seating.living
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
        shuffle_rng = self._rng
        chance = self._chance
        reason: WinReason | None = None

        while True:
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
                m = len(living)
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
                if 2 * ja <= m:  # a tie fails
                    tracker += 1
                    if tracker >= CHAOS_AT:
                        # Chaos: enact the top tile, ignore its power, forget limits.
                        tracker = 0
                        if pile[top]:
                            fas += 1
                            if fas >= FASCIST_TO_WIN:
                                reason = WinReason.SIX_FASCIST
                                top += 1
                                break
                        else:
                            lib += 1
                            if lib >= LIBERAL_TO_WIN:
                                reason = WinReason.FIVE_LIBERAL
                                top += 1
                                break
                        top += 1
                        lp = lc = -1
                        if len(pile) - top < 3:
                            pile = _new_pile(
                                len(pile) - top - sum(pile[top:]) + disc_l,
                                sum(pile[top:]) + disc_f,
                                shuffle_rng,
                                chance,
                            )
                            top = disc_l = disc_f = 0
                    if caller >= 0:  # after a special election: left of its caller
                        pres = nxt[caller]
                        caller = -1
                    else:
                        pres = nxt[pres]
                    chanc = -1
                    phase = NOMINATE
                    continue
                lp = pres
                lc = chanc
                if fas >= HITLER_ZONE and chanc == hitler:
                    reason = WinReason.HITLER_ELECTED
                    break
                # Three tiles are always there: reshuffles keep the pile at 3+ and
                # `Variant.setup` rejects decks too small for that.
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
                options = _ENACT_OPTIONS[hand_f][fas >= VETO_AT and not refused]
                k = len(options)
                choice = options[int(rand() * k)] if k > 1 else options[0]
                if choice == _VETO:
                    if record is not None:
                        record.append(ProposeVeto(chanc))
                    phase = VETO_REPLY
                else:
                    if record is not None:
                        record.append(Enact(chanc, _POLICY_OF_CODE[choice]))
                    # The other tile goes to the discard pile.
                    if hand_f - choice:
                        disc_f += 1
                    else:
                        disc_l += 1
                    hand_f = 0
                    tracker = 0
                    if choice:
                        fas += 1
                        if fas >= FASCIST_TO_WIN:
                            reason = WinReason.SIX_FASCIST
                            break
                    else:
                        lib += 1
                        if lib >= LIBERAL_TO_WIN:
                            reason = WinReason.FIVE_LIBERAL
                            break
                    if len(pile) - top < 3:
                        pile = _new_pile(
                            len(pile) - top - sum(pile[top:]) + disc_l,
                            sum(pile[top:]) + disc_f,
                            shuffle_rng,
                            chance,
                        )
                        top = disc_l = disc_f = 0
                    power = powers[fas] if choice else _NO_POWER
                    if power > 0:  # a power that needs the president's decision
                        phase = power
                    else:  # none, or a peek (seeing tiles changes nothing here)
                        if caller >= 0:
                            pres = nxt[caller]
                            caller = -1
                        else:
                            pres = nxt[pres]
                        chanc = -1
                        phase = NOMINATE
                        continue

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
                # Reshuffle check first, then the tracker (a chaos top-deck takes the top
                # tile of the resulting pile).
                if len(pile) - top < 3:
                    pile = _new_pile(
                        len(pile) - top - sum(pile[top:]) + disc_l,
                        sum(pile[top:]) + disc_f,
                        shuffle_rng,
                        chance,
                    )
                    top = disc_l = disc_f = 0
                tracker += 1
                if tracker >= CHAOS_AT:
                    tracker = 0
                    if pile[top]:
                        fas += 1
                        if fas >= FASCIST_TO_WIN:
                            reason = WinReason.SIX_FASCIST
                            top += 1
                            break
                    else:
                        lib += 1
                        if lib >= LIBERAL_TO_WIN:
                            reason = WinReason.FIVE_LIBERAL
                            top += 1
                            break
                    top += 1
                    lp = lc = -1
                    if len(pile) - top < 3:
                        pile = _new_pile(
                            len(pile) - top - sum(pile[top:]) + disc_l,
                            sum(pile[top:]) + disc_f,
                            shuffle_rng,
                            chance,
                        )
                        top = disc_l = disc_f = 0
                if caller >= 0:
                    pres = nxt[caller]
                    caller = -1
                else:
                    pres = nxt[pres]
                chanc = -1
                phase = NOMINATE
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
                    nxt = seating.next
                    eligible = seating.eligible
                    if target == hitler:
                        reason = WinReason.HITLER_EXECUTED
                        break
            if caller >= 0:
                pres = nxt[caller]
                caller = -1
            else:
                pres = nxt[pres]
            chanc = -1
            phase = NOMINATE

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

    # --- results and inspection -------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.reason is not None

    @property
    def winner(self) -> Party | None:
        """The winning party, once the game is over."""
        return None if self.reason is None else self.reason.winner

    @property
    def draw_pile(self) -> list[Policy]:
        """The draw pile, top first."""
        return [_POLICY_OF_CODE[t] for t in self._pile[self._top :]]

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
        return tuple(_ROLE_OF_CODE[r] for r in self.roles)

    @property
    def phase_name(self) -> Phase:
        """The phase as the clean engine names it."""
        return _PHASE_OF_CODE[self.phase]


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
