"""The behaviour-fitting script: agent mixes, and a fit that reads what the agents did."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.behaviour import load_behaviour
from agents.fit_behaviour import Counts, count_game, main, parse_mix
from agents.runner import play_game
from engine.fastsim import FASCIST_ROLE, LIBERAL_ROLE


def test_mixes_with_weights_and_budgets() -> None:
    assert parse_mix("belief") == [("belief", 1.0)]
    assert parse_mix("belief=8,selfish=1,random") == [
        ("belief", 8.0),
        ("selfish", 1.0),
        ("random", 1.0),
    ]
    # A budget's "=" is not a weight; a weight may follow it.
    assert parse_mix("ismcts:iterations=200,ismcts:iterations=50=3") == [
        ("ismcts:iterations=200", 1.0),
        ("ismcts:iterations=50", 3.0),
    ]
    assert parse_mix("ismcts:iterations=20,seconds=1=2;random") == [
        ("ismcts:iterations=20,seconds=1", 2.0),
        ("random", 1.0),
    ]


@pytest.mark.parametrize("text", ["", "nobody", "belief=0", "belief=-1", "ismcts:depth=3"])
def test_bad_mixes_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_mix(text)


def test_a_fit_of_selfish_play_reads_selfish_discards(tmp_path: Path) -> None:
    """Selfish presidents keep their party's tiles: the fit must say so (within shrinkage)."""
    out = tmp_path / "fit.json"
    assert main(["--games", "150", "--rounds", "1", "--players", "5", "--mix", "selfish",
                 "--out", str(out)]) == 0  # fmt: skip
    fitted = load_behaviour(5, out)
    # discard_liberal[role, chancellor role, Liberal tiles drawn, zone], mixed hands only.
    liberal = fitted.discard_liberal[LIBERAL_ROLE, :, 1:3, :].max()
    fascist = fitted.discard_liberal[FASCIST_ROLE, :, 1:3, :].min()
    assert liberal < 0.2 < 0.8 < fascist, (liberal, fascist)


def test_the_shipped_fit_never_learns_from_humanlike_seats(tmp_path: Path) -> None:
    """The human-style players test the belief on play it was not fitted on."""
    with pytest.raises(SystemExit):
        main(["--games", "1", "--mix", "belief=3,humanlike=1", "--out", str(tmp_path / "x.json")])
    assert not (tmp_path / "x.json").exists()


def _same_counts(a: Counts, b: Counts) -> bool:
    return (
        all(np.array_equal(a.hits[n], b.hits[n]) for n in a.hits)
        and all(np.array_equal(a.trials[n], b.trials[n]) for n in a.trials)
        and all(np.array_equal(a.claims[n], b.claims[n]) for n in a.claims)
        and {k: dict(v) for k, v in a.nominations.items() if v}
        == {k: dict(v) for k, v in b.nominations.items() if v}
        and {k: dict(v) for k, v in a.targets.items() if v}
        == {k: dict(v) for k, v in b.targets.items() if v}
    )


def test_counting_some_seats_counts_their_decisions_only() -> None:
    """One agent's seats of a mixed table: the counts of a split of the seats add up
    to the whole table's, decision by decision, and no seat is counted twice."""
    whole, odd, even = Counts(), Counts(), Counts()
    for seed in range(6):
        record = play_game(["humanlike"] * 8, seed=seed).record  # claims, powers, vetoes
        count_game(record, whole)
        count_game(record, odd, seats=[s for s in range(8) if s % 2])
        count_game(record, even, seats=range(0, 8, 2))
    both = Counts()
    both.add(odd)
    both.add(even)
    assert _same_counts(both, whole)
    assert not _same_counts(odd, whole) and not _same_counts(even, whole)
    nobody = Counts()
    count_game(record, nobody, seats=())
    assert _same_counts(nobody, Counts())
    votes = whole.trials["vote_ja"].sum()
    assert 0 < odd.trials["vote_ja"].sum() < votes
    assert all(whole.claims[n].sum() > 0 for n in ("president_claim", "chancellor_claim"))
