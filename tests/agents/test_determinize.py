"""Determinizations are consistent with the seat's view, exact in weight, and vary.

Views come from seeded random games stopped at random points; every seat's view is
determinized many times and each sample checked against what that seat knows. The
tile weights are checked against brute force: every order of the shuffled pile (and
every unseen discard) that fits the seat's observations, counted one by one.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from agents.determinize import (
    Determinization,
    UniformSampler,
    allowed_roles,
    deck_knowledge,
    possible_deals,
)
from engine import (
    REBALANCED,
    STANDARD,
    Game,
    Nominate,
    Party,
    Phase,
    PlayerView,
    Policy,
    Role,
    Variant,
)
from engine import events as ev
from engine.fastsim import (
    FASCIST_ROLE,
    HITLER_ROLE,
    LIBERAL_ROLE,
    POLICY_CODE,
    ROLE_CODE,
    FastGame,
    move_of,
)
from engine.variants import FASCISTS_BESIDES_HITLER


def random_position(players: int, seed: int, rng: random.Random, variant: Variant) -> Game:
    """A seeded game after a random number of random actions (ballots one at a time)."""
    game = Game(players, variant=variant, seed=seed)
    for _ in range(rng.randrange(120)):
        if game.is_over:
            break
        if game.phase is Phase.VOTE:
            game.apply(rng.choice(game.legal_actions(rng.choice(game.awaiting()))))
        else:
            game.apply(rng.choice(game.legal_actions(game.awaiting()[0])))
    return game


def positions(count: int, seed: str) -> list[Game]:
    """`count` live positions at every table size and both variants, every phase alike.

    Each seeded random game is played to the end; then for every kind of decision it
    went through, one random point of that kind is replayed to.
    """
    rng = random.Random(seed)
    out: list[Game] = []
    i = 0
    while len(out) < count:
        players = 5 + i % 6
        variant = REBALANCED if i % 3 == 0 else STANDARD
        full = Game(players, variant=variant, seed=i)
        stops: dict[Phase, list[int]] = {}
        while not full.is_over:
            stops.setdefault(full.phase, []).append(len(full.actions))
            seat = full.awaiting()[0]
            if full.phase is Phase.VOTE:
                seat = rng.choice(full.awaiting())
            full.apply(rng.choice(full.legal_actions(seat)))
        for phase in sorted(stops):
            game = Game(players, variant=variant, seed=i)
            for action in full.actions[: rng.choice(stops[phase])]:
                game.apply(action)
            out.append(game)
        i += 1
    return out[:count]


def peeked_on_top(view: PlayerView) -> tuple[int, ...]:
    """The tiles the seat's last peek shows still on top of the draw pile, in order."""
    top: tuple[int, ...] = ()
    for event in view.events:
        if isinstance(event, ev.PolicyPeeked) and event.seat == view.seat:
            top = tuple(POLICY_CODE[t] for t in event.tiles)
        elif isinstance(event, ev.ElectionResult) and event.elected:
            top = top[3:]
        elif isinstance(event, ev.PolicyEnacted) and event.chaos:
            top = top[1:]
        elif isinstance(event, ev.DeckReshuffled):
            top = ()
    return top


def check_consistent(view: PlayerView, det: Determinization, variant: Variant) -> None:
    """Everything the seat knows holds in the determinization."""
    assert view.seat is not None
    seat = view.seat
    setup = variant.setup(view.players)
    roles = det.roles
    # Roles: the deal's counts, own role, team knowledge, investigations, not Hitler.
    assert Counter(roles) == Counter(
        {
            LIBERAL_ROLE: setup.liberals,
            FASCIST_ROLE: FASCISTS_BESIDES_HITLER[view.players],
            HITLER_ROLE: 1,
        }
    )
    for s, role in enumerate(view.known_roles):
        if role is not None:
            assert roles[s] == ROLE_CODE[role]
    assert view.role is not None and roles[seat] == ROLE_CODE[view.role]
    for event in view.events:
        if isinstance(event, ev.InvestigationResult) and event.seat == seat:
            assert (roles[event.target] == LIBERAL_ROLE) == (event.party is Party.LIBERAL)
    for s in view.not_hitler:
        assert roles[s] != HITLER_ROLE
    for s, alive in enumerate(view.alive):
        assert alive or roles[s] != HITLER_ROLE  # the game goes on: the dead were not Hitler
    # Tiles: pile size, discard size, hand size, conservation, own hand, peek on top.
    assert len(det.pile) == view.draw_pile
    assert det.discard_liberal + det.discard_fascist == view.discard_pile
    assert det.discard_liberal >= 0 and det.discard_fascist >= 0
    hand_size = {Phase.PRESIDENT_DISCARD: 3, Phase.CHANCELLOR_ENACT: 2, Phase.VETO_REPLY: 2}
    size = hand_size.get(view.phase, 0)
    assert 0 <= det.hand_fascists <= size
    liberal = det.pile.count(0) + det.discard_liberal + (size - det.hand_fascists)
    fascist = det.pile.count(1) + det.discard_fascist + det.hand_fascists
    assert liberal + view.liberal_policies == setup.liberal_tiles
    assert fascist + view.fascist_policies == setup.fascist_tiles + setup.fascist_policies_at_start
    if view.hand:
        assert det.hand_fascists == view.hand.count(Policy.FASCIST)
    top = peeked_on_top(view)
    assert det.pile[: len(top)] == top
    # Ballots: the seat's own is kept; every other cast ballot is there.
    votes = dict(det.votes)
    if view.phase is Phase.VOTE:
        assert set(votes) == set(view.voted) | ({seat} if view.my_vote is not None else set())
        if view.my_vote is not None:
            assert votes[seat] is view.my_vote
    else:
        assert votes == {}


def test_determinizations_fit_the_view_at_every_seat() -> None:
    games = positions(180, "fit")
    phases: Counter[Phase] = Counter()
    for game in games:
        truth = FastGame.from_game(game)
        for seat in range(game.players):
            view = game.view(seat)
            sampler = UniformSampler(view, game.variant)
            rng = random.Random(seat)
            for _ in range(12):
                check_consistent(view, sampler.sample(rng), game.variant)
            # The truth itself is among the possibilities, with a positive weight.
            assert list(truth.roles) in sampler.assignments
            deck = sampler.deck
            known_l = deck.pile_known.count(0)
            pile_l = sum(1 for t in truth.draw_pile if t is Policy.LIBERAL) - known_l
            key = (truth.discard_liberal, truth.hand_fascists, pile_l)
            assert key in deck.outcomes
            # The determinized game offers the seat exactly its legal actions.
            fast = sampler.game(rng)
            if view.legal_actions and view.phase is not Phase.VOTE:
                moves = fast.legal_moves()
                assert [fast.to_action(m) for m in moves] == list(view.legal_actions)
            phases[view.phase] += 1
    # Every kind of position occurred, including hands held by others.
    assert set(phases) == set(Phase) - {Phase.GAME_OVER}, phases


def test_determinizations_vary_across_samples() -> None:
    for game in positions(30, "vary"):
        seat = next(s for s in range(game.players) if game.roles[s] is Role.LIBERAL)
        sampler = UniformSampler(game.view(seat), game.variant)
        rng = random.Random(1)
        samples = [sampler.sample(rng) for _ in range(40)]
        # A Liberal knows no one else's role: the deals vary (over 40 samples, a
        # repeat-only run would have probability below 1e-20 with 4+ possible deals).
        assert len({d.roles for d in samples}) > 1
        assert len({d.reshuffle_seed for d in samples}) == 40
        if game.view(seat).draw_pile >= 3 and len(sampler.deck.outcomes) > 1:
            assert len({d.pile for d in samples}) > 1


def test_roles_are_uniform_over_consistent_deals() -> None:
    """A 7-player Liberal who investigated a Fascist: exact deal count and frequencies."""
    game = Game(7, seed=3)
    seat = game.roles.index(Role.LIBERAL)
    view = game.view(seat)
    deals = possible_deals(view)
    # 6 other seats hold 3 Liberals, 2 Fascists and Hitler: 6 * C(5, 2) = 60 deals.
    assert len(deals) == 60 and all(d[seat] == LIBERAL_ROLE for d in deals)
    sampler = UniformSampler(view)
    rng = random.Random(0)
    hitler_seats = Counter(sampler.sample(rng).roles.index(HITLER_ROLE) for _ in range(6000))
    assert set(hitler_seats) == set(range(7)) - {seat}
    assert all(850 < n < 1150 for n in hitler_seats.values()), hitler_seats  # 1,000 each


def test_hard_role_facts() -> None:
    """Investigation results, confirmed chancellors and the dead narrow the deals."""
    for game in positions(120, "facts"):
        for seat in range(game.players):
            view = game.view(seat)
            allowed = allowed_roles(view)
            for s in range(game.players):
                assert ROLE_CODE[game.roles[s]] in allowed[s]  # never excludes the truth
            for s in view.not_hitler:
                assert HITLER_ROLE not in allowed[s]
            if view.role is Role.FASCIST or (view.role is Role.HITLER and game.players <= 6):
                assert len(possible_deals(view)) == 1  # they know every role


# --- brute force ---------------------------------------------------------------------


def brute_force_weights(view: PlayerView, variant: Variant) -> Counter[tuple[int, int, int]]:
    """Count, history by history, the (discard L, hand F, unknown-pile L) the view allows.

    A history is an order of the opening pile plus the position (among the three drawn)
    of every discard the seat did not see. Only for views before the first reshuffle:
    the opening pile's orders are enumerated whole, and each session's unseen choices
    are enumerated for each order.
    """
    setup = variant.setup(view.players)
    size = setup.liberal_tiles + setup.fascist_tiles
    me = view.seat

    class Session:
        def __init__(self, start: int) -> None:
            self.start = start
            self.drawn: tuple[int, ...] | None = None  # the seat drew them
            self.received: list[int] | None = None  # the seat was chancellor
            self.my_discard: int | None = None
            self.enacted: int | None = None
            self.closed = False

    sessions: list[Session] = []
    exact: list[tuple[int, tuple[int, ...]]] = []  # (position, tiles): peeks, chaos
    position = 0
    for event in view.events:
        if isinstance(event, ev.ElectionResult) and event.elected:
            sessions.append(Session(position))
            position += 3
        elif isinstance(event, ev.PoliciesDrawn) and event.seat == me:
            sessions[-1].drawn = tuple(POLICY_CODE[t] for t in event.tiles)
        elif isinstance(event, ev.PoliciesReceived) and event.seat == me:
            sessions[-1].received = sorted(POLICY_CODE[t] for t in event.tiles)
        elif isinstance(event, ev.PolicyDiscarded) and event.seat == me:
            if sessions[-1].drawn is not None and sessions[-1].my_discard is None:
                sessions[-1].my_discard = POLICY_CODE[event.policy]
        elif isinstance(event, ev.PolicyEnacted) and event.chaos:
            exact.append((position, (POLICY_CODE[event.policy],)))
            position += 1
        elif isinstance(event, ev.PolicyEnacted):
            sessions[-1].enacted = POLICY_CODE[event.policy]
            sessions[-1].closed = True
        elif isinstance(event, ev.VetoReplied) and event.agreed:
            sessions[-1].closed = True
        elif isinstance(event, ev.PolicyPeeked) and event.seat == me:
            exact.append((position, tuple(POLICY_CODE[t] for t in event.tiles)))
    known = {p + i for p, tiles in exact for i in range(len(tiles))}
    unknown_pile = [p for p in range(position, size) if p not in known]
    others = ((1, 2), (0, 2), (0, 1))  # the two tiles left when position i is discarded

    counts: Counter[tuple[int, int, int]] = Counter()
    for liberal_positions in combinations(range(size), setup.liberal_tiles):
        order = [1] * size
        for p in liberal_positions:
            order[p] = 0
        if any(tuple(order[p : p + len(t)]) != t for p, t in exact):
            continue
        weight = 1
        discard_l = 0
        branches = [(0, 0)]  # (discard L, hand F) of the hand in play, per unseen discard
        for session in sessions:
            three = order[session.start : session.start + 3]
            if session.drawn is not None and tuple(three) != session.drawn:
                weight = 0
                break
            # Each unseen president's discard: a position whose removal fits the view.
            if session.drawn is not None:
                gone = [three.index(session.my_discard)] if session.my_discard is not None else []
            else:
                gone = [0, 1, 2]
            if session.received is not None:
                gone = [g for g in gone if sorted(three[i] for i in others[g]) == session.received]
            if not session.closed:
                if view.phase is Phase.PRESIDENT_DISCARD:
                    branches = [(0, sum(three))]
                else:
                    branches = [(three[g] == 0, sum(three) - three[g]) for g in gone]
                continue
            # A closed session: the chancellor's unseen discard leaves the enacted tile.
            combos = 0
            for g in gone:
                # Vetoed (both passed tiles discarded), or the seat itself enacted.
                if session.enacted is None or session.received is not None:
                    combos += 1
                else:
                    combos += sum(1 for i in others[g] if three[i] == session.enacted)
            weight *= combos
            discard_l += three.count(0) - (session.enacted == 0)
        if not weight:
            continue
        pile_l = sum(1 for p in unknown_pile if order[p] == 0)
        for extra_l, hand_f in branches:
            counts[(discard_l + extra_l, hand_f, pile_l)] += weight
    return counts


def early_views(count: int) -> list[tuple[PlayerView, Variant]]:
    """Views before any reshuffle, spread over phases and what the seat saw or holds."""
    rng = random.Random("early")
    kinds: Counter[tuple[object, ...]] = Counter()
    out: list[tuple[PlayerView, Variant]] = []
    seed = 0
    while len(out) < count and seed < 3000:
        seed += 1
        game = random_position(5 + seed % 2, seed, rng, STANDARD)
        if game.is_over or any(isinstance(e, ev.DeckReshuffled) for e in game.events):
            continue
        for seat in range(game.players):
            view = game.view(seat)
            mine = [e for e in view.events if isinstance(e, ev.PrivateEvent) and e.seat == seat]
            kind = (
                view.phase,
                bool(view.hand),
                any(isinstance(e, ev.PolicyPeeked) for e in mine),
                any(isinstance(e, ev.PoliciesReceived) for e in mine),
                any(isinstance(e, ev.PoliciesDrawn) for e in mine),
                any(isinstance(e, ev.PolicyEnacted) and e.chaos for e in view.events),
            )
            if kinds[kind] < 1 and len(out) < count:
                kinds[kind] += 1
                out.append((view, STANDARD))
    return out


def test_tile_weights_match_brute_force() -> None:
    views = early_views(40)
    assert len(views) == 40
    # Hands held by the seat and by others, its own draws, receipts and peeks all occur.
    assert {v.phase for v, _ in views} >= {Phase.PRESIDENT_DISCARD, Phase.CHANCELLOR_ENACT}
    assert any(v.hand and v.phase is Phase.CHANCELLOR_ENACT for v, _ in views)
    assert any(not v.hand and v.phase is Phase.CHANCELLOR_ENACT for v, _ in views)
    assert any(v.hand and v.phase is Phase.PRESIDENT_DISCARD for v, _ in views)
    for view, variant in views:
        deck = deck_knowledge(view, variant)
        exact = brute_force_weights(view, variant)
        # Equal up to a common factor (the order of two unseen discards is a constant).
        total, exact_total = sum(deck.weights), sum(exact.values())
        weights = dict(zip(deck.outcomes, deck.weights, strict=True))
        assert set(weights) == {k for k, n in exact.items() if n}, view.phase
        for outcome, n in exact.items():
            assert weights[outcome] * exact_total == n * total, (view.phase, outcome)


def test_sampled_tile_counts_follow_the_weights() -> None:
    """Sampling picks outcomes in proportion to their weights (fixed seed, wide bounds)."""
    game = Game(6, seed=11)
    view = game.view(0)
    sampler = UniformSampler(view)
    rng = random.Random(4)
    seen = Counter(sampler.sample(rng).pile.count(0) for _ in range(8000))
    # Nothing drawn yet: the pile is the whole deck, 6 Liberal tiles in every order.
    assert seen == Counter({6: 8000})
    # Deeper, at every seat: compare frequencies with weights.
    game = next(g for g in positions(40, "follow") if g.phase is Phase.CHANCELLOR_ENACT)
    for seat in range(game.players):
        view = game.view(seat)
        sampler = UniformSampler(view, game.variant)
        deck = sampler.deck
        total = sum(deck.weights)
        counts: Counter[tuple[int, int, int]] = Counter()
        for _ in range(4000):
            det = sampler.sample(rng)
            pile_l = det.pile.count(0) - deck.pile_known.count(0)
            counts[(det.discard_liberal, det.hand_fascists, pile_l)] += 1
        for outcome, weight in zip(deck.outcomes, deck.weights, strict=True):
            expected = 4000 * weight / total
            assert abs(counts[outcome] - expected) < 5 * expected**0.5 + 5, (outcome, counts)


def test_a_custom_deck_needs_its_variant() -> None:
    variant = Variant(name="custom", liberal_tiles=8, fascist_tiles=12)
    game = Game(7, variant=variant, seed=2)
    with pytest.raises(ValueError):
        deck_knowledge(game.view(0))
    sampler = UniformSampler(game.view(0), variant)
    check_consistent(game.view(0), sampler.sample(random.Random(0)), variant)


def test_spectators_cannot_be_determinized() -> None:
    with pytest.raises(ValueError):
        UniformSampler(Game(5, seed=1).spectator_view())


def test_moves_map_back_to_view_actions() -> None:
    game = Game(8, seed=6)
    view = game.view(game.president)
    nominees = [a.chancellor for a in view.legal_actions if isinstance(a, Nominate)]
    assert [move_of(a) for a in view.legal_actions] == nominees and len(nominees) == 7
