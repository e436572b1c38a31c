"""Belief-ISMCTS: legal, deterministic, blind to hidden state, sound determinizations,
truthful Liberal claims, and sensible in decisive positions.

Searches use small iteration counts; strength is measured in the arena (bench/results).
"""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

from agents.base import Budget
from agents.belief import Belief
from agents.belief_agent import STRICTNESS, liberal_ballot
from agents.belief_ismcts import DEFAULT_ITERATIONS, BeliefISMCTSAgent, BeliefSampler
from agents.claiming import claim_for
from agents.determinize import deck_knowledge, possible_deals
from agents.registry import make_agent
from agents.selfish import SelfishAgent
from engine import (
    ChancellorClaim,
    Claim,
    Enact,
    Execute,
    FixedChance,
    Game,
    InvestigationClaim,
    PeekClaim,
    Phase,
    PlayerView,
    Policy,
    PresidentClaim,
    Role,
    Vote,
)
from engine import events as ev
from tests.agents.test_ismcts import brink
from tests.engine.helpers import deck, fixed_game, play, tiles


def agent(seat: int, seed: int = 1, iterations: int = 60) -> BeliefISMCTSAgent:
    """A Belief-ISMCTS agent with a small iteration budget."""
    return BeliefISMCTSAgent(seat, seed, Budget(iterations=iterations))


def _liberals(tiles_: tuple[Policy, ...]) -> int:
    return sum(t is Policy.LIBERAL for t in tiles_)


def assert_truthful(view: PlayerView, claim: Claim) -> None:
    """A claim matches the seat's own private events (its last draw, hand, peek, result)."""
    events = view.events
    seat = view.seat
    match claim:
        case PresidentClaim(drew=drew, passed=passed):
            draw = [e for e in events if isinstance(e, ev.PoliciesDrawn) and e.seat == seat][-1]
            mine = [e for e in events if isinstance(e, ev.PolicyDiscarded) and e.seat == seat]
            assert _liberals(drew) == _liberals(draw.tiles)
            assert _liberals(passed) == _liberals(draw.tiles) - (mine[-1].policy is Policy.LIBERAL)
        case ChancellorClaim(received=received):
            got = [e for e in events if isinstance(e, ev.PoliciesReceived) and e.seat == seat]
            assert _liberals(received) == _liberals(got[-1].tiles)
        case PeekClaim(tiles=peeked):
            peek = [e for e in events if isinstance(e, ev.PolicyPeeked) and e.seat == seat]
            assert _liberals(peeked) == _liberals(peek[-1].tiles)
        case InvestigationClaim(target=target, party=party):
            result = [
                e
                for e in events
                if isinstance(e, ev.InvestigationResult) and e.seat == seat and e.target == target
            ]
            assert result[-1].party is party
        case _:
            raise AssertionError(f"unexpected claim {claim!r}")


# --- legality, claims, determinism ------------------------------------------------------


def test_legal_actions_and_claims_in_whole_games() -> None:
    """Belief-ISMCTS seats next to Selfish ones at every size; Liberal claims are the truth."""
    decisions = claims = liberal_claims = 0
    for players in range(5, 11):
        game = Game(players, seed=77 + players)
        seats = [
            agent(s, players, iterations=12) if s % 2 == 0 else SelfishAgent(s, s)
            for s in range(players)
        ]
        talk = random.Random(players)
        while not game.is_over:
            seat = game.awaiting()[0]
            view = game.view(seat)
            action = seats[seat].act(view)
            assert action in view.legal_actions
            game.apply(action)
            decisions += 1
            for s in range(players):
                view = game.view(s)
                if not view.legal_claims:
                    continue
                if isinstance(seats[s], BeliefISMCTSAgent):
                    claim = seats[s].claim(view)
                    if claim is None:
                        continue
                    assert claim in view.legal_claims
                    if view.role is Role.LIBERAL:
                        assert_truthful(view, claim)
                        liberal_claims += 1
                elif talk.random() < 0.5:  # others talk, sometimes nonsense
                    claim = talk.choice(view.legal_claims)
                else:
                    continue
                game.apply(claim)
                claims += 1
    assert decisions > 300 and claims > 40 and liberal_claims > 5, (
        decisions,
        claims,
        liberal_claims,
    )


def positions(count: int, seed: int = 7) -> list[PlayerView]:
    """Views of seats facing a real choice, from Selfish games with heuristic claims."""
    rng = random.Random(seed)
    out: list[PlayerView] = []
    game_seed = 0
    while len(out) < count:
        players = 5 + game_seed % 6
        game = Game(players, seed=game_seed)
        game_seed += 1
        seats = [SelfishAgent(s, game_seed) for s in range(players)]
        for _ in range(rng.randrange(100)):
            if game.is_over:
                break
            seat = rng.choice(game.awaiting())
            game.apply(seats[seat].act(game.view(seat)))
            for s in range(players):
                if game.legal_claims(s):
                    claim = claim_for(game.view(s), rng)
                    if claim is not None:
                        game.apply(claim)
        if game.is_over:
            continue
        seat = rng.choice(game.awaiting())
        view = game.view(seat)
        if len(view.legal_actions) > 1:
            out.append(view)
    return out


def _search(view: PlayerView, seed: int, iterations: int) -> tuple[list[int], list[int], object]:
    assert view.seat is not None
    a = agent(view.seat, seed, iterations)
    a.observe(view)
    result = a.search(view, a.rng(view))
    return result.root.visits, result.root.wins, result.best_action()


def test_deterministic_under_a_seed() -> None:
    differs = 0
    for view in positions(10):
        assert view.seat is not None
        first = _search(view, 3, 120)
        assert _search(view, 3, 120) == first
        chosen = agent(view.seat, 3, 120).act(view)
        assert agent(view.seat, 3, 120).act(view) == chosen
        if view.phase is not Phase.VOTE:  # a ballot tie is cast as the table expects
            assert chosen == first[2]
        differs += _search(view, 4, 120)[:2] != first[:2]
    assert differs > 0  # the seed matters


def test_decisions_depend_on_the_view_alone() -> None:
    """Same public history and private knowledge; different hidden roles and deck."""
    games = [
        Game(7, chance=FixedChance([ROLE[c] for c in roles], 1, tiles(deck(top))))
        for roles, top in (("LFFHLLL", "LFF LFF LF"), ("LLLLHFF", "FLF FLF FL"))
    ]
    for game in games:
        play(game, "nominate 2", "ja", "discard F", "enact L")
        play(game, "nominate 0", "votes NJJJJJJ")
        play(game, "discard F")  # seat 0, a Liberal chancellor, holds L, F in both games
    views = [g.view(0) for g in games]
    assert views[0] == views[1]
    assert games[0].roles != games[1].roles and games[0].draw_pile != games[1].draw_pile
    assert _search(views[0], 5, 300) == _search(views[1], 5, 300)


ROLE = {"L": Role.LIBERAL, "F": Role.FASCIST, "H": Role.HITLER}


# --- determinizations -----------------------------------------------------------------


TARGETS = (Phase.PRESIDENT_DISCARD, Phase.CHANCELLOR_ENACT, Phase.NOMINATE, Phase.VOTE)


def _truthful_games() -> list[Game]:
    """Mid-game positions of Selfish games where claims come from `claim_for` (Liberals
    never lie, as the bots' own Liberals do), stopped at every kind of phase."""
    out: list[Game] = []
    rng = random.Random(11)
    for game_seed in range(28):
        players = 5 + game_seed % 6
        game = Game(players, seed=500 + game_seed)
        seats = [SelfishAgent(s, game_seed) for s in range(players)]
        # Play on past a random point until the target phase (hands in play included).
        target = TARGETS[game_seed % len(TARGETS)]
        moves = rng.randrange(10, 140)
        while not game.is_over and (moves > 0 or game.phase is not target):
            moves -= 1
            seat = rng.choice(game.awaiting())
            game.apply(seats[seat].act(game.view(seat)))
            for s in range(players):
                if game.legal_claims(s) and rng.random() < 0.8:
                    claim = claim_for(game.view(s), rng)
                    if claim is not None:
                        game.apply(claim)
        if not game.is_over:
            out.append(game)
    return out


def test_determinizations_respect_hard_knowledge_and_the_truth_stays_possible() -> None:
    checked = 0
    phases: set[Phase] = set()
    for game in _truthful_games():
        phases.add(game.phase)
        for seat in range(game.players):
            view = game.view(seat)
            belief = Belief.for_view(view)
            truth = tuple(game.roles)
            draw_l = sum(t is Policy.LIBERAL for t in game.draw_pile)
            # The true hidden state keeps positive posterior mass.
            assert belief.joint_probability(truth, draw_l) > 0.0, (seat, game.phase)
            sampler = BeliefSampler(view, belief)
            deals = {tuple(r) for r in possible_deals(view)}
            knowledge = deck_knowledge(view)
            outcomes = set(knowledge.outcomes)
            known_l = knowledge.pile_known.count(0)
            rng = random.Random(seat)
            for _ in range(25):
                drawn = sampler.draw(rng)
                assert drawn is not None  # the posterior never contradicts hard knowledge
                roles, pile, discard_l, discard_f, hand_f = drawn
                assert tuple(roles) in deals
                assert len(pile) == view.draw_pile
                assert discard_l + discard_f == view.discard_pile
                assert (discard_l, hand_f, pile.count(0) - known_l) in outcomes
                for position, tile in enumerate(knowledge.pile_known):
                    if tile >= 0:  # the seat's own peek, in order
                        assert pile[position] == tile
                if view.hand:
                    assert hand_f == view.hand.count(Policy.FASCIST)
                fast = sampler.game(rng)
                assert fast.roles.count(2) == 1 and fast.phase_name is view.phase
            assert sampler.fallbacks == 0
            checked += 1
    assert checked > 120 and len(phases) >= 4, (checked, phases)


def test_lying_liberals_never_break_the_sampler() -> None:
    """With nonsense claims the belief may mislead; draws still fit the seat's hard facts."""
    for view in _random_claim_views(12):
        assert view.seat is not None
        sampler = BeliefSampler(view, Belief.for_view(view))
        deals = {tuple(r) for r in possible_deals(view)}
        rng = random.Random(1)
        for _ in range(40):
            fast = sampler.game(rng)
            assert tuple(fast.roles) in deals
            assert fast.discard_liberal + fast.discard_fascist == view.discard_pile
            assert len(fast.draw_pile) == view.draw_pile


def _random_claim_views(count: int) -> list[PlayerView]:
    rng = random.Random(2)
    out: list[PlayerView] = []
    game_seed = 0
    while len(out) < count:
        game = Game(5 + game_seed % 6, seed=900 + game_seed)
        game_seed += 1
        for _ in range(rng.randrange(30, 120)):
            if game.is_over:
                break
            seat = rng.choice(game.awaiting())
            game.apply(rng.choice(game.legal_actions(seat)))
            for s in range(game.players):
                if game.legal_claims(s) and rng.random() < 0.7:
                    game.apply(rng.choice(game.legal_claims(s)))
        if not game.is_over:
            out.append(game.view(rng.choice(game.awaiting())))
    return out


# --- sensible choices ---------------------------------------------------------------------


@pytest.mark.parametrize(("chancellor", "winning"), [(1, Policy.FASCIST), (0, Policy.LIBERAL)])
def test_a_chancellor_enacts_the_winning_policy(chancellor: int, winning: Policy) -> None:
    view = brink(chancellor).view(chancellor)
    for seed in range(2):
        assert agent(chancellor, seed, 200).act(view) == Enact(chancellor, winning)


def test_a_fascist_president_never_executes_hitler() -> None:
    game = fixed_game("LFHLL", deck("FFF FFF"))
    for _ in range(9):  # three Fascist chaos top-decks
        nominee = next(s for s in game.eligible_chancellors() if s != 2)
        play(game, f"nominate {nominee}", "nein")
    while game.president != 1:
        play(game, f"nominate {next(s for s in game.eligible_chancellors() if s != 2)}", "nein")
    play(game, "nominate 3", "ja", "discard F", "enact F")  # the fourth: an execution
    assert game.phase is Phase.EXECUTE
    for seed in range(2):
        assert agent(1, seed, 200).act(game.view(1)) != Execute(1, 2)


# --- budget and registry ------------------------------------------------------------------


def test_budgets_and_registry() -> None:
    view = positions(1, seed=3)[0]
    assert view.seat is not None
    assert BeliefISMCTSAgent(0, 1).iteration_limit() == (DEFAULT_ITERATIONS, None)
    built = make_agent("belief-ismcts:iterations=37", view.seat, 1)
    assert isinstance(built, BeliefISMCTSAgent)
    built.observe(view)
    # Whole paired rounds (one game per root move) within the budget.
    searched = built.search(view, random.Random(0))
    assert 37 - len(searched.moves) < searched.iterations <= 37
    timed = BeliefISMCTSAgent(view.seat, 1, Budget(seconds=0.05))
    timed.observe(view)
    result = timed.search(view, random.Random(0))
    assert result.iterations > 0 and result.seconds < 2.0


def test_a_ballot_searches_at_most_its_cap_and_a_fascist_one_only_on_a_clock() -> None:
    import agents.belief_ismcts as module

    view = _liberal_votes(1)[0]
    assert view.seat is not None
    for budget in (Budget(iterations=5_000), Budget(seconds=30.0)):
        agent = BeliefISMCTSAgent(view.seat, 1, budget)
        agent.observe(view)
        assert agent.search(view, random.Random(0)).iterations <= module.BALLOT_ITERATIONS
    # A Fascist's or Hitler's ballot searches longer: on a clock (the machine is shared)
    # up to its own cap, with an iteration budget the whole budget, unless told a cap.
    fascist = next(
        v for v in positions(120, seed=5) if v.phase is Phase.VOTE and v.role is not Role.LIBERAL
    )
    assert fascist.seat is not None
    cap = module.FASCIST_BALLOT_ITERATIONS
    agent = BeliefISMCTSAgent(fascist.seat, 1, Budget(iterations=5_000))
    assert agent.iteration_limit(fascist) == (5_000, None)
    assert agent.iteration_limit(view) == (module.BALLOT_ITERATIONS, None)
    timed = BeliefISMCTSAgent(fascist.seat, 1, Budget(seconds=30.0))
    assert timed.iteration_limit(fascist) == (cap, 30.0)
    due = BeliefISMCTSAgent(fascist.seat, 1, Budget(iterations=5_000, deadline=1e12))
    assert due.iteration_limit(fascist) == (cap, None)
    # Alone on the machine (no other table to leave time to), the clock alone stops it;
    # a Liberal's cap and a cap it was told stay.
    alone = BeliefISMCTSAgent(fascist.seat, 1, Budget(seconds=30.0, deadline=1e12, alone=True))
    assert alone.iteration_limit(fascist) == (None, 30.0)
    assert alone.iteration_limit(view) == (module.BALLOT_ITERATIONS, 30.0)
    told_alone = BeliefISMCTSAgent(
        fascist.seat, 1, Budget(seconds=30.0, alone=True), fascist_ballots=300
    )
    assert told_alone.iteration_limit(fascist) == (300, 30.0)
    told = make_agent("belief-ismcts:iterations=7000,fascist_ballots=300", fascist.seat, 1)
    assert isinstance(told, BeliefISMCTSAgent)
    assert told.iteration_limit(fascist) == (300, None)
    assert told.iteration_limit(view) == (module.BALLOT_ITERATIONS, None)
    with pytest.raises(ValueError):
        make_agent("belief-ismcts:fascist_ballots=0", fascist.seat, 1)
    # Other decisions keep the whole budget.
    nomination = next(v for v in positions(40, seed=3) if v.phase is Phase.NOMINATE)
    assert BeliefISMCTSAgent(0, 1, Budget(iterations=5_000)).iteration_limit(nomination) == (
        5_000,
        None,
    )


# --- ballots ------------------------------------------------------------------------------


def _liberal_votes(count: int) -> list[PlayerView]:
    """Vote views of Liberal non-candidates, from Selfish games."""
    out = []
    for view in positions(120, seed=5):
        if (
            view.phase is Phase.VOTE
            and view.role is Role.LIBERAL
            and view.seat not in (view.president, view.chancellor)
        ):
            out.append(view)
    assert len(out) >= count
    return out[:count]


def test_a_liberal_casts_its_sincere_ballot_without_a_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_search(*args: object) -> None:
        raise AssertionError("a Liberal's ballot searched")

    for view in _liberal_votes(6):
        assert view.seat is not None
        agent = BeliefISMCTSAgent(view.seat, 2, Budget(iterations=5_000))
        agent.iterations = 123  # a previous decision's count: not this ballot's
        monkeypatch.setattr(agent, "search", no_search)
        ballot = agent.act(view)
        belief = agent.belief
        assert belief is not None
        sincere = liberal_ballot(view, view.seat, belief.pair_liberal(), belief.hitler())
        assert ballot == Vote(view.seat, sincere) and agent.iterations is None
    # A Fascist's ballot is still its search's.
    fascist = next(
        v for v in positions(120, seed=5) if v.phase is Phase.VOTE and v.role is not Role.LIBERAL
    )
    assert fascist.seat is not None
    searcher = BeliefISMCTSAgent(fascist.seat, 2, Budget(iterations=200))
    searcher.act(fascist)
    assert searcher.iterations is not None and searcher.iterations > 0


def test_the_sincere_ballot() -> None:
    """Own government: Ja. Zone: Nein for a likely Hitler. Else: Ja when clearly more
    trusted than the median government of the other living seats (STRICTNESS times
    it), with slack when a failed vote would bring chaos near."""
    view = _liberal_votes(1)[0]
    assert view.seat is not None and view.chancellor is not None
    n, p, c = view.players, view.president, view.chancellor
    trust = np.full((n, n), 0.5)
    hitler = np.full(n, 1.0 / n)
    assert liberal_ballot(replace(view, president=view.seat), view.seat, trust, hitler)
    trust[p, c] = trust[c, p] = 0.9
    assert liberal_ballot(view, view.seat, trust, hitler)
    zone = replace(view, fascist_policies=3)
    hitler[c] = 0.3
    assert not liberal_ballot(zone, view.seat, trust, hitler)
    trust[p, c] = trust[c, p] = 0.1
    hitler[c] = 0.0
    assert not liberal_ballot(view, view.seat, trust, hitler)
    # A little more trusted than the typical government (0.5) is not enough...
    trust[p, c] = trust[c, p] = 0.55
    assert STRICTNESS * 0.5 > 0.55
    assert not liberal_ballot(view, view.seat, trust, hitler)
    # ...unless two elections have failed: a third brings chaos.
    assert liberal_ballot(replace(view, election_tracker=2), view.seat, trust, hitler)
