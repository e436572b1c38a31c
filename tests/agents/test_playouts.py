"""Opponent-model playouts: complete legal games on the clean engine, and the model's rules."""

from __future__ import annotations

import random

import pytest

from agents.playouts import ModelPlayers, TableModel, play_model
from engine import Action, Discard, Enact, Game, Nominate, Phase, Policy, Role, Vote
from engine.fastsim import VOTE, FastGame
from engine.variants import HITLER_ZONE

FASCISTS = {5: 1, 6: 1, 7: 2, 8: 2, 9: 3, 10: 3}


def _advance(game: Game, rng: random.Random, steps: int) -> None:
    """Random moves on the clean engine, to start playouts from mid-game positions."""
    for _ in range(steps):
        if game.is_over:
            return
        seat = rng.choice(game.awaiting())
        game.apply(rng.choice(game.legal_actions(seat)))


def _model(players: int, rng: random.Random) -> TableModel:
    """A table model with uneven (random) public suspicion."""
    suspicion = [rng.random() for _ in range(players)]
    hitler = [rng.random() for _ in range(players)]
    total = sum(hitler)
    return TableModel.build(suspicion, [h / total for h in hitler])


def _check_selfish(game: Game, action: Action) -> None:
    """Discards and enactments keep the actor's own party's tiles (Selfish)."""
    if isinstance(action, Discard):
        liberal = game.roles[action.seat] is Role.LIBERAL
        drop = Policy.FASCIST if liberal else Policy.LIBERAL
        if drop in game.hand:
            assert action.policy is drop
    if isinstance(action, Enact):
        own = Policy.LIBERAL if game.roles[action.seat] is Role.LIBERAL else Policy.FASCIST
        if own in game.hand:
            assert action.policy is own


@pytest.mark.parametrize("players", range(5, 11))
def test_playouts_are_complete_legal_games_of_the_clean_engine(players: int) -> None:
    """Record model playouts from mid-game positions and replay them on `Game`."""
    rng = random.Random(players)
    replayed = 0
    for seed in range(30):
        game = Game(players, seed=1000 * players + seed)
        _advance(game, rng, rng.randrange(60))
        if game.is_over:
            continue
        fast = FastGame.from_game(game)  # reshuffles continue the game's own chance
        record: list[Action] = []
        reason = play_model(fast, random.Random(seed), _model(players, rng), record)
        for action in record:
            seat = action.seat
            assert action in game.legal_actions(seat), (seed, action)
            _check_selfish(game, action)
            game.apply(action)
        assert game.is_over and game.win_reason is reason
        assert (game.liberal_policies, game.fascist_policies) == (
            fast.liberal_policies,
            fast.fascist_policies,
        )
        replayed += 1
    assert replayed >= 22


def test_the_model_follows_each_role() -> None:
    """Fascists nominate Hitler in the zone and back him; Liberals shun a likely Hitler."""
    players = 7
    rng = random.Random(3)
    hitler_nominated = zone_nominations = 0
    hitler_ja = {True: [0, 0], False: [0, 0]}  # knows team -> [Ja, ballots]
    for seed in range(150):
        game = Game(players, seed=seed)
        _advance(game, rng, rng.randrange(120))
        if game.is_over:
            continue
        # The table is sure of Hitler's seat: Liberals never want him as chancellor.
        hitler_chance = [0.0] * players
        hitler_chance[game.hitler] = 1.0
        model = TableModel.build([0.4] * players, hitler_chance)
        fast = FastGame.from_game(game)
        record: list[Action] = []
        play_model(fast, random.Random(seed), model, record)
        for action in record:
            if game.is_over:
                break
            zone = game.fascist_policies >= HITLER_ZONE
            fascist = game.roles[action.seat] is Role.FASCIST
            if (
                isinstance(action, Nominate)
                and zone
                and fascist
                and game.hitler in game.eligible_chancellors()
            ):
                zone_nominations += 1
                hitler_nominated += action.chancellor == game.hitler
            if (
                isinstance(action, Vote)
                and zone
                and game.chancellor == game.hitler
                and action.seat not in (game.president, game.chancellor)
            ):
                hitler_ja[fascist][0] += action.ja
                hitler_ja[fascist][1] += 1
            game.apply(action)
    assert zone_nominations > 10 and hitler_nominated == zone_nominations
    assert hitler_ja[True][1] > 10 and hitler_ja[True][0] == hitler_ja[True][1]
    # Liberals (and blind Hitler, never a voter on his own chancellorship here) say Nein.
    assert hitler_ja[False][1] > 10 and hitler_ja[False][0] <= 0.1 * hitler_ja[False][1]


def test_table_model_probabilities() -> None:
    model = TableModel.uniform(7, 2)
    assert len(model.liberal_ja[0]) == len(model.liberal_ja[1]) == 49
    assert all(0.05 <= p <= 0.95 for zone in model.liberal_ja for p in zone)
    # A government of trusted seats gets more Liberal Ja votes than a suspected one.
    model = TableModel.build([0.0, 0.9, 0.3, 0.3, 0.3], [0.0, 0.5, 0.2, 0.2, 0.1])
    assert model.liberal_ja[0][0 * 5 + 2] > model.liberal_ja[0][0 * 5 + 1]
    assert model.liberal_ja[1][0 * 5 + 3] < model.liberal_ja[1][0 * 5 + 4]  # likelier Hitler
    assert model.trust[0][0] > model.trust[0][1]
    assert model.suspect[1] > model.suspect[0]
    assert FastGame.new(7, 1).phase_name is Phase.NOMINATE


def test_wild_seats_vote_at_random_and_never_the_searcher() -> None:
    """`wild` is the share of seats (drawn once per game, never the searcher) that vote
    and pick targets at random; at 0 the model's players are all careful."""
    rng = random.Random(4)
    careful, wild = TableModel.uniform(7, 2), TableModel.uniform(7, 2, wild=1.0)
    for seed in range(20):
        game = FastGame.new(7, seed)
        assert not any(ModelPlayers(game, careful, rng.random, 3).wild)
        assert ModelPlayers(game, wild, rng.random, 3).wild == [s != 3 for s in range(7)]
    # A careful Fascist backs a government holding a teammate; a wild one tosses a coin.
    ja = {True: 0, False: 0}
    for seed in range(200):
        game = FastGame.new(7, seed)
        fascist = game.roles.index(1)
        mate = next(s for s, r in enumerate(game.roles) if r != 0 and s != fascist)
        # A vote on (a Liberal president, the Fascist's teammate), set up directly.
        game.president = game.roles.index(0)
        game.chancellor, game.phase = mate, VOTE
        for model in (careful, wild):
            game.votes = {}
            ModelPlayers(game, model, rng.random, -1).fill_ballots(game, rng.random)
            ja[model is wild] += game.votes[fascist]
    assert ja[False] >= 180 and 70 <= ja[True] <= 130, ja


def test_counted_ballots_are_the_ballots_the_box_would_hold() -> None:
    """`ballots` draws exactly what `fill_ballots` casts (same draws, same order) and
    counts them with the ballots already cast, leaving the box alone; `skip` draws none
    for that seat; `tally` then ends the vote as `count_votes` does."""
    model = TableModel.build(
        [0.1 * (s % 7) for s in range(10)], [0.1] * 10, wild=0.3
    )  # uneven trust, some wild seats: every branch of the draw is taken
    for seed in range(300):
        game = FastGame.new(10, seed)
        setup = random.Random(seed)
        game.president, game.chancellor = setup.sample(range(10), 2)
        game.fascist_policies = setup.randrange(6)
        game.election_tracker = setup.randrange(3)
        game.phase = VOTE
        game.votes = {s: setup.random() < 0.5 for s in setup.sample(range(10), setup.randrange(4))}
        players = ModelPlayers(game, model, random.Random(seed).random, -1)
        cast = dict(game.votes)
        counter, filler = random.Random(seed), random.Random(seed)
        ja = players.ballots(game, counter.random)
        assert game.votes == cast  # counted, not cast
        boxed = game.clone()
        players.fill_ballots(boxed, filler.random)
        assert ja == sum(boxed.votes.values())
        assert counter.random() == filler.random()  # the same number of draws
        skip = next((s for s in range(10) if s not in cast), -1)
        if skip >= 0:
            game.votes[skip] = True
            with_me = players.ballots(game, random.Random(seed).random)
            del game.votes[skip]
            assert players.ballots(game, random.Random(seed).random, skip=skip) == with_me - 1
        counted = game.clone()
        assert counted.tally(ja) == boxed.count_votes()
        assert (counted.phase, counted.president, counted.election_tracker, counted.reason) == (
            boxed.phase,
            boxed.president,
            boxed.election_tracker,
            boxed.reason,
        )
