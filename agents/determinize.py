"""Determinizations: concrete hidden states consistent with what one seat knows.

A search agent sees a `PlayerView`; to simulate it needs a whole game. A determinization
fills in what the seat cannot see: every role, the order of the draw pile, the
discard pile, the hand a president or chancellor holds now, the ballots already cast
in a running vote, and a seed for the reshuffles still to come (so one determinization
always plays the same moves to the same state: the SO-ISMCTS paper's "deck-shuffle
problem").

`UniformSampler` is the SO-ISMCTS baseline's sampler: uniform among the hidden states
consistent with the seat's *hard* knowledge.

- Roles: uniform among the deals that fit the seat's own role, its team knowledge, its
  own investigation results, the chancellors confirmed not Hitler, and the executed
  players (none was Hitler, since the game goes on).
- Tiles: every shuffle (the opening one and each reshuffle) deals a uniformly random
  order of all the tiles not on the board, so only what happened since the last one
  matters. Uniform among the hidden histories since then that fit what the seat saw,
  a history being the order of that pile plus which tile each discard the seat did not
  see took (by position among the three drawn): each session's three tiles held the
  enacted policy, and what the seat received; its own draws and peeks are exact; chaos
  top-decks are public; tiles are conserved and pile sizes are public. The counts that
  matter next (Liberal tiles in the discard pile, Fascist tiles in the hand in play,
  Liberal tiles among the unknown pile positions) are sampled exactly from a small
  table of weights (products of binomial coefficients and discard counts) built once
  per decision; then the unknown draw-pile positions are shuffled.
- Ballots other voters already cast in the running vote: fair coins.

Subclasses replace `sample_roles`, `sample_deck` and `sample_votes` (e.g. roles from a
Bayesian posterior); `game` assembles a `FastGame` from them for the search's hot loop.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass
from itertools import combinations, product
from math import comb
from typing import Protocol

from engine import Party, Phase, PlayerView, Variant
from engine import events as ev
from engine.chance import shuffle
from engine.fastsim import (
    FASCIST_ROLE,
    HITLER_ROLE,
    LIBERAL_ROLE,
    POLICY_CODE,
    RESHUFFLE_SEED_BITS,
    ROLE_CODE,
    FastGame,
    view_variant,
)

_HAND_PHASES = (Phase.PRESIDENT_DISCARD, Phase.CHANCELLOR_ENACT, Phase.VETO_REPLY)


@dataclass(frozen=True, slots=True)
class Determinization:
    """One complete hidden state: what `UniformSampler.game` builds a `FastGame` from."""

    roles: tuple[int, ...]  # per seat: 0 Liberal, 1 Fascist, 2 Hitler
    pile: tuple[int, ...]  # the draw pile, top first: 0 Liberal, 1 Fascist
    discard_liberal: int
    discard_fascist: int
    hand_fascists: int  # Fascist tiles in the hand in play (0 when there is none)
    votes: tuple[tuple[int, bool], ...]  # (seat, Ja?) already cast in the running vote
    reshuffle_seed: int


# --- roles ---------------------------------------------------------------------------


def allowed_roles(view: PlayerView) -> list[frozenset[int]]:
    """Per seat, the role codes the seat's hard knowledge leaves possible."""
    if view.seat is None:
        raise ValueError("A spectator has no information set to determinize.")
    anyone = frozenset((LIBERAL_ROLE, FASCIST_ROLE, HITLER_ROLE))
    allowed = [anyone] * view.players
    for seat, role in enumerate(view.known_roles):
        if role is not None:
            allowed[seat] = frozenset((ROLE_CODE[role],))
    for event in view.events:
        if isinstance(event, ev.InvestigationResult) and event.seat == view.seat:
            party = frozenset(
                (LIBERAL_ROLE,) if event.party is Party.LIBERAL else (FASCIST_ROLE, HITLER_ROLE)
            )
            allowed[event.target] &= party
    not_hitler = set(view.not_hitler)
    not_hitler.update(s for s in range(view.players) if not view.alive[s])
    for seat in not_hitler:
        allowed[seat] -= {HITLER_ROLE}
    return allowed


def possible_deals(view: PlayerView) -> list[list[int]]:
    """Every deal of the roles consistent with the seat's hard knowledge.

    At most 840 (ten players: Hitler's seat times the three Fascists' seats).
    """
    allowed = allowed_roles(view)
    players = view.players
    fascists = view_variant(view).setup(players).fascists
    out: list[list[int]] = []
    for hitler in range(players):
        if HITLER_ROLE not in allowed[hitler]:
            continue
        others = [s for s in range(players) if s != hitler]
        for team in combinations(others, fascists):
            roles = [LIBERAL_ROLE] * players
            roles[hitler] = HITLER_ROLE
            for s in team:
                roles[s] = FASCIST_ROLE
            if all(roles[s] in allowed[s] for s in range(players)):
                out.append(roles)
    if not out:
        raise ValueError("No deal of the roles fits this view.")
    return out


# --- tiles ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Drawn:
    """Three tiles a session drew since the last shuffle, and what the seat knows of them."""

    known: list[int]  # tiles the seat knows by position (its draw, or its peek)
    exact: bool = False  # the seat drew them: `known` is all three
    received: tuple[int, int] | None = None  # (Liberal, Fascist) the seat got as chancellor
    my_discard: int | None = None  # the seat's discard as president
    enacted: int | None = None  # the policy enacted from them (None: vetoed or in play)
    closed: bool = False


@dataclass(frozen=True, slots=True)
class DeckKnowledge:
    """The tile counts a seat can still be uncertain about, with their exact weights.

    `outcomes[i]` is (Liberal tiles in the discard pile, Fascist tiles in the hand in
    play, Liberal tiles among the unknown draw-pile positions); `weights[i]` counts the
    tile orders (and unseen discards) that produce it. `pile_known[p]` is the tile at
    draw-pile position p (top first) if the seat knows it (a peek), else -1.
    """

    outcomes: tuple[tuple[int, int, int], ...]
    weights: tuple[int, ...]
    pile_known: tuple[int, ...]
    discard_size: int
    hand_size: int  # 3 in a president's discard, 2 in a chancellor's, else 0


def deck_knowledge(view: PlayerView, variant: Variant | None = None) -> DeckKnowledge:
    """What `view.seat` knows of the tiles, reduced to counts with exact weights.

    Raises ValueError if no hidden deck fits the view (a custom deck needs `variant`).
    """
    me = view.seat
    if me is None:
        raise ValueError("A spectator has no information set to determinize.")
    setup = (variant or view_variant(view)).setup(view.players)
    shuffled = setup.liberal_tiles + setup.fascist_tiles  # tiles dealt by the last shuffle
    shuffled_liberal = setup.liberal_tiles
    position = 0  # tiles drawn or top-decked from that pile so far
    peeked: dict[int, int] = {}  # pile position -> tile, from the seat's peeks
    chaos_tiles: list[int] = []  # top-decked since the last shuffle (public)
    sessions: list[_Drawn] = []
    current: _Drawn | None = None
    liberal_enacted = 0
    for event in view.events:
        if isinstance(event, ev.DeckReshuffled):
            # Every tile off the board is in the new pile: nothing known survives.
            shuffled = event.draw_pile
            shuffled_liberal = setup.liberal_tiles - liberal_enacted
            position, peeked, chaos_tiles, sessions, current = 0, {}, [], [], None
        elif isinstance(event, ev.ElectionResult) and event.elected:
            current = _Drawn([peeked[p] for p in range(position, position + 3) if p in peeked])
            sessions.append(current)
            position += 3
        elif isinstance(event, ev.PoliciesDrawn) and event.seat == me and current:
            current.known = [POLICY_CODE[t] for t in event.tiles]
            current.exact = True
        elif isinstance(event, ev.PoliciesReceived) and event.seat == me and current:
            fascist = sum(POLICY_CODE[t] for t in event.tiles)
            current.received = (len(event.tiles) - fascist, fascist)
        elif isinstance(event, ev.PolicyDiscarded) and event.seat == me and current:
            if current.exact and current.my_discard is None:
                current.my_discard = POLICY_CODE[event.policy]
        elif isinstance(event, ev.PolicyEnacted):
            liberal_enacted = event.liberal_policies
            if event.chaos:
                chaos_tiles.append(POLICY_CODE[event.policy])
                position += 1
            elif current is not None:
                current.enacted = POLICY_CODE[event.policy]
                current.closed = True
                current = None
        elif isinstance(event, ev.VetoReplied) and event.agreed and current is not None:
            current.closed = True
            current = None
        elif isinstance(event, ev.PolicyPeeked) and event.seat == me:
            for i, tile in enumerate(event.tiles):
                peeked[position + i] = POLICY_CODE[tile]

    if shuffled - position != view.draw_pile:
        raise ValueError(
            f"The view's draw pile holds {view.draw_pile} tiles, its history says "
            f"{shuffled - position}."
        )
    open_session = current if view.phase in _HAND_PHASES else None
    if (open_session is None) != (view.phase not in _HAND_PHASES):
        raise ValueError("The view's history does not show the hand in play.")

    pile_known = tuple(peeked.get(p, -1) for p in range(position, shuffled))
    known_liberal = chaos_tiles.count(0) + pile_known.count(0)
    # Each group of unknown tiles offers options (unknown Liberal tiles it takes,
    # Liberal tiles it adds to the discard pile, Fascist tiles in the hand, Liberal
    # tiles among the unknown pile positions) with the number of orders giving each.
    groups: list[list[tuple[tuple[int, int, int, int], int]]] = []
    discard_size = 0
    hand_size = 0
    for session in sessions:
        known_l = session.known.count(0)
        known_liberal += known_l
        unknown = 3 - len(session.known)
        options: list[tuple[tuple[int, int, int, int], int]] = []
        for extra_l in range(unknown + 1):
            drawn_l = known_l + extra_l
            drawn_f = 3 - drawn_l
            if session.received and (
                drawn_l < session.received[0] or drawn_f < session.received[1]
            ):
                continue
            ways = comb(unknown, extra_l)
            if session.received:
                # The president's unseen discard: any of the three tiles that leaves
                # what the seat received.
                ways *= drawn_l if drawn_l > session.received[0] else drawn_f
            if session.closed:
                if (session.enacted == 0 and not drawn_l) or (session.enacted == 1 and not drawn_f):
                    continue  # the enacted tile was among the three
                if session.enacted is not None and not session.exact and not session.received:
                    # Unseen discards: the enacted tile was any of the three of its kind
                    # (and the other two went in either order, the same for every draw).
                    ways *= drawn_l if session.enacted == 0 else drawn_f
                options.append(((extra_l, drawn_l - (session.enacted == 0), 0, 0), ways))
            elif view.phase is Phase.PRESIDENT_DISCARD:
                options.append(((extra_l, 0, drawn_f, 0), ways))
            elif session.exact and session.my_discard is not None:  # the seat is president
                hand_f = drawn_f - session.my_discard
                options.append(((extra_l, session.my_discard ^ 1, hand_f, 0), ways))
            elif session.received:  # the seat is chancellor and holds the hand
                hand_l, hand_f = session.received
                options.append(((extra_l, drawn_l - hand_l, hand_f, 0), ways))
            else:  # someone else holds two of the three: either discard was possible
                for hand_l in range(3):
                    split = comb(drawn_l, hand_l) * comb(drawn_f, 2 - hand_l)
                    if split:
                        options.append(((extra_l, drawn_l - hand_l, 2 - hand_l, 0), ways * split))
        if not options:
            raise ValueError("No order of the tiles fits the view's history.")
        groups.append(options)
        if session.closed:
            discard_size += 3 - (session.enacted is not None)
        elif view.phase is Phase.PRESIDENT_DISCARD:
            hand_size = 3
        else:
            hand_size = 2
            discard_size += 1
    if discard_size != view.discard_pile:
        raise ValueError(
            f"The view's discard pile holds {view.discard_pile} tiles, its history says "
            f"{discard_size}."
        )
    unknown_pile = pile_known.count(-1)
    groups.append([((k, 0, 0, k), comb(unknown_pile, k)) for k in range(unknown_pile + 1)])

    # Convolve the groups, keeping only totals that use exactly the unknown Liberal tiles.
    unknown_liberal = shuffled_liberal - known_liberal
    table: dict[tuple[int, int, int, int], int] = {(0, 0, 0, 0): 1}
    for options in groups:
        merged: dict[tuple[int, int, int, int], int] = {}
        for (state, weight), (option, ways) in product(table.items(), options):
            key = (
                state[0] + option[0],
                state[1] + option[1],
                state[2] + option[2],
                state[3] + option[3],
            )
            if key[0] <= unknown_liberal:
                merged[key] = merged.get(key, 0) + weight * ways
        table = merged
    finals = sorted((key[1:], w) for key, w in table.items() if key[0] == unknown_liberal and w)
    if not finals:
        raise ValueError("No deck fits this view (a custom deck needs its variant).")
    return DeckKnowledge(
        outcomes=tuple(k for k, _ in finals),
        weights=tuple(w for _, w in finals),
        pile_known=pile_known,
        discard_size=discard_size,
        hand_size=hand_size,
    )


# --- the sampler ---------------------------------------------------------------------


class Sampler(Protocol):
    """What a search needs from a determinization sampler built for one decision."""

    def game(self, rng: random.Random) -> FastGame:
        """A fresh, complete game consistent with the view, drawn from `rng`."""
        ...


class UniformSampler:
    """Uniform determinizations of one view (the SO-ISMCTS baseline), built per decision.

    `game(rng)` is the search's hot path: a fresh `FastGame` per call, from the
    overridable `sample_roles`, `sample_deck` and `sample_votes` and a reshuffle seed.
    `sample(rng)` draws the very same determinization as a `Determinization` value.
    """

    def __init__(self, view: PlayerView, variant: Variant | None = None) -> None:
        if view.seat is None:
            raise ValueError("A spectator has no information set to determinize.")
        self.view = view
        self.seat = view.seat
        self.template = FastGame.from_view(view, variant)
        self.assignments = possible_deals(view)
        self.deck = deck_knowledge(view, variant)
        total = 0.0
        cumulative: list[float] = []
        for weight in self.deck.weights:
            total += weight
            cumulative.append(total)
        self._cumulative = cumulative
        self._total = total
        pile_known = self.deck.pile_known
        self._unknown_positions = [p for p, tile in enumerate(pile_known) if tile < 0]
        unknown = len(self._unknown_positions)
        # The unknown pile positions' tiles before shuffling, per Liberal count.
        self._pile_tiles = [[0] * k + [1] * (unknown - k) for k in range(unknown + 1)]
        self._peeked = unknown < len(pile_known)
        # Ballots already cast by others in the running vote (their values are hidden).
        self.voted = tuple(s for s in view.voted if s != view.seat)
        self.my_vote = view.my_vote

    def sample_roles(self, rng: random.Random) -> list[int]:
        """A deal of the roles (shared lists: `FastGame` never changes its roles)."""
        assignments = self.assignments
        return assignments[int(rng.random() * len(assignments))]

    def sample_deck(self, roles: list[int], rng: random.Random) -> tuple[list[int], int, int, int]:
        """(draw pile top first, discard Liberal, discard Fascist, hand Fascist tiles)."""
        deck = self.deck
        index = bisect_right(self._cumulative, rng.random() * self._total)
        discard_l, hand_f, pile_l = deck.outcomes[min(index, len(deck.outcomes) - 1)]
        tiles = self._pile_tiles[pile_l][:]
        shuffle(tiles, rng)
        if self._peeked:
            pile = list(deck.pile_known)
            for position, tile in zip(self._unknown_positions, tiles, strict=True):
                pile[position] = tile
            tiles = pile
        return tiles, discard_l, deck.discard_size - discard_l, hand_f

    def sample_votes(self, roles: list[int], rng: random.Random) -> dict[int, bool]:
        """Ballots already cast in the running vote: the seat's own, others' at random."""
        votes: dict[int, bool] = {}
        if self.my_vote is not None:
            votes[self.seat] = self.my_vote
        voted = self.voted
        if voted:
            bits = rng.getrandbits(len(voted))
            for i, seat in enumerate(voted):
                votes[seat] = bool(bits >> i & 1)
        return votes

    def game(self, rng: random.Random) -> FastGame:
        """A fresh determinized game to search on."""
        roles = self.sample_roles(rng)
        pile, discard_l, discard_f, hand_f = self.sample_deck(roles, rng)
        votes = self.sample_votes(roles, rng)
        return self.template.determinized(
            roles, pile, discard_l, discard_f, hand_f, votes, rng.getrandbits(RESHUFFLE_SEED_BITS)
        )

    def sample(self, rng: random.Random) -> Determinization:
        """The determinization `game(rng)` would build, as a value (for tests and tools)."""
        roles = self.sample_roles(rng)
        pile, discard_l, discard_f, hand_f = self.sample_deck(roles, rng)
        votes = self.sample_votes(roles, rng)
        return Determinization(
            tuple(roles),
            tuple(pile),
            discard_l,
            discard_f,
            hand_f,
            tuple(sorted(votes.items())),
            rng.getrandbits(RESHUFFLE_SEED_BITS),
        )
