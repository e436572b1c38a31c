"""Does a capped ballot vote as the full search would? Same states, two budgets.

    python bench/ballot_noise.py --games 8 --seed 1 [--full 10000] [--json]
        [--party fascist [--cap 2000]]

Until 2026-11-27 belief-ISMCTS capped a Liberal's ballot search
(`agents.belief_ismcts.BALLOT_ITERATIONS`) and cast its sincere ballot unless the
search's margin was clear (`clear_ballot`, the rule kept here); now it casts the
sincere ballot unsearched, since no capped margin was clear any more (0 of 319 at
`--games 8 --seed 1 --full 1000`). This plays games with `belief` agents at every seat and, at each
ballot of a Liberal outside the government, searches the same position twice from the
same random stream: at the cap, and at `--full` iterations. It reports how often each
search calls its margin clear, by the share alone (the rule before 2f3fabf: at least
`CLEAR_BALLOT` of the paired games) and by `clear_ballot` (the share and the noise), and
how often the capped ballot equals the full search's ballot under each rule.
Analysis only: the full search stands for the ballot the agent would cast with time.

`--party fascist` asks the same of every Fascist's and Hitler's ballot (on a clock
capped at `--cap`, FASCIST_BALLOT_ITERATIONS by default). There the agent casts the
sign of its margin, and its fallback ballot is the expected one (a teammate's
government for a seat that knows the team): "share" is the capped sign, "noise" the
capped sign when `clear_ballot` holds and the expected ballot otherwise, and
`expected_agree` how often the expected ballot alone is the full search's.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Callable, Sequence

from agents.base import Budget
from agents.belief_agent import BeliefAgent, liberal_ballot
from agents.belief_ismcts import BALLOT_ITERATIONS, FASCIST_BALLOT_ITERATIONS, BeliefISMCTSAgent
from engine import Game, Phase, PlayerView, Role

# The clear-margin rule a Liberal's capped ballot followed until 2026-11-27: Ja's and
# Nein's paired games differ by at least this share of the games...
CLEAR_BALLOT = 0.03
# ...and by this many deviations of their noise (a margin over n paired games sums n
# differences in {-1, 0, 1}: its deviation is at most sqrt(n)).
CLEAR_Z = 2.0


def clear_ballot(margin: float, games: int) -> bool:
    """Whether a ballot's `margin` (Ja's extra wins over Nein on `games` paired games)
    is clear: at least CLEAR_BALLOT of the games and CLEAR_Z deviations of their noise."""
    return games > 0 and abs(margin) >= max(CLEAR_BALLOT * games, CLEAR_Z * math.sqrt(games))


class _Uncapped(BeliefISMCTSAgent):
    """belief-ISMCTS whose ballots search the whole budget."""

    def iteration_limit(self, view: PlayerView | None = None) -> tuple[int | None, float | None]:
        return self.budget.iterations, None


def _by_share(margin: int, games: int) -> bool:
    """The clear-margin rule before the noise test: the share alone."""
    return games > 0 and abs(margin) >= CLEAR_BALLOT * games


def _ballot(agent: BeliefISMCTSAgent, view: PlayerView, seed: int) -> tuple[int, int, bool]:
    """(margin, games per ballot, fallback ballot) of `agent`'s search of `view`: the
    fallback is a Liberal's sincere ballot, a Fascist's or Hitler's expected one."""
    agent.observe(view)
    belief = agent.belief
    assert belief is not None and view.seat is not None
    root = agent.search(view, random.Random(seed)).root
    if view.role is Role.LIBERAL:
        fallback = liberal_ballot(view, view.seat, belief.pair_liberal(), belief.hitler())
    else:
        assert agent.model is not None
        fallback = agent._expected_ballot(view, agent.model)
    return root.wins[1] - root.wins[0], root.visits[1], fallback


def fascist_ballots(games: int, seed: int) -> list[PlayerView]:
    """Views of every Fascist's and Hitler's ballot, in `belief` agents' games."""
    return _ballots(games, seed, lambda view, seat: view.role is not Role.LIBERAL)


def liberal_ballots(games: int, seed: int) -> list[PlayerView]:
    """Views of every Liberal ballot outside the government, in `belief` agents' games."""
    return _ballots(
        games,
        seed,
        lambda view, seat: (
            view.role is Role.LIBERAL and seat not in (view.president, view.chancellor)
        ),
    )


def _ballots(games: int, seed: int, wanted: Callable[[PlayerView, int], bool]) -> list[PlayerView]:
    """Views of the ballots `wanted` picks, in games of `belief` agents at every seat."""
    rng = random.Random(seed)
    views: list[PlayerView] = []
    for g in range(games):
        game = Game(rng.randint(5, 10), seed=seed * 1000 + g)
        agents = [BeliefAgent(s, seed * 1000 + g) for s in range(game.players)]
        while not game.is_over:
            seat = game.awaiting()[0]
            view = game.view(seat)
            if view.phase is Phase.VOTE and wanted(view, seat):
                views.append(view)
            game.apply(agents[seat].act(view))
    return views


def measure(
    games: int, seed: int, full: int, party: str = "liberal", cap: int | None = None
) -> dict[str, float | int]:
    """The counts and shares this bench prints (see the module doc)."""
    counts = dict.fromkeys(
        ("capped_clear_share", "capped_clear_noise", "full_clear_share", "agree_share",
         "agree_noise", "expected_agree"), 0,
    )  # fmt: skip
    liberal = party == "liberal"
    if cap is None:
        cap = BALLOT_ITERATIONS if liberal else FASCIST_BALLOT_ITERATIONS
    views = liberal_ballots(games, seed) if liberal else fascist_ballots(games, seed)
    for i, view in enumerate(views):
        assert view.seat is not None
        capped = BeliefISMCTSAgent(
            view.seat, seed, Budget(iterations=full), fascist_ballots=None if liberal else cap
        )
        whole = _Uncapped(view.seat, seed, Budget(iterations=full))
        m_cap, n_cap, fallback = _ballot(capped, view, seed * 7919 + i)
        m_full, n_full, _ = _ballot(whole, view, seed * 7919 + i)
        if liberal:
            # The ballot the agent casts with the full search (the share decides there).
            target = (m_full > 0) if _by_share(m_full, n_full) else fallback
            share = (m_cap > 0) if _by_share(m_cap, n_cap) else fallback
        else:
            # A Fascist casts its margin's sign; the expected ballot on a tie.
            target = (m_full > 0) if m_full else fallback
            share = (m_cap > 0) if m_cap else fallback
        noise = (m_cap > 0) if clear_ballot(m_cap, n_cap) else fallback
        counts["capped_clear_share"] += _by_share(m_cap, n_cap)
        counts["capped_clear_noise"] += clear_ballot(m_cap, n_cap)
        counts["full_clear_share"] += _by_share(m_full, n_full)
        counts["agree_share"] += share == target
        counts["agree_noise"] += noise == target
        counts["expected_agree"] += fallback == target
    out: dict[str, float | int] = {"party": party, "ballots": len(views), "cap": cap}
    out["full"] = full
    out.update(counts)
    for key in ("agree_share", "agree_noise", "expected_agree"):
        out[f"{key}_rate"] = counts[key] / len(views) if views else 0.0
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--full", type=int, default=10_000, help="the full search's iterations")
    parser.add_argument("--party", choices=("liberal", "fascist"), default="liberal")
    parser.add_argument("--cap", type=int, default=None, help="the capped search's iterations")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = measure(args.games, args.seed, args.full, args.party, args.cap)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>20} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
