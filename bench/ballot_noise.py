"""Does a capped Liberal ballot vote as the full search would? Same states, two budgets.

    python bench/ballot_noise.py --games 8 --seed 1 [--full 10000] [--json]

belief-ISMCTS caps a ballot's search (`agents.belief_ismcts.BALLOT_ITERATIONS` for a
Liberal) and casts its sincere ballot unless the search's margin is clear
(`clear_ballot`). This plays games with `belief` agents at every seat and, at each
ballot of a Liberal outside the government, searches the same position twice from the
same random stream: at the cap, and at `--full` iterations. It reports how often each
search calls its margin clear, by the share alone (the rule before 2f3fabf: at least
`CLEAR_BALLOT` of the paired games) and by `clear_ballot` (the share and the noise), and
how often the capped ballot equals the full search's ballot under each rule.
Analysis only: the full search stands for the ballot the agent would cast with time.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence

from agents.base import Budget
from agents.belief_agent import BeliefAgent, liberal_ballot
from agents.belief_ismcts import (
    BALLOT_ITERATIONS,
    CLEAR_BALLOT,
    BeliefISMCTSAgent,
    clear_ballot,
)
from engine import Game, Phase, PlayerView, Role


class _Uncapped(BeliefISMCTSAgent):
    """belief-ISMCTS whose ballots search the whole budget."""

    def iteration_limit(self, view: PlayerView | None = None) -> tuple[int | None, float | None]:
        return self.budget.iterations, None


def _by_share(margin: int, games: int) -> bool:
    """The clear-margin rule before the noise test: the share alone."""
    return games > 0 and abs(margin) >= CLEAR_BALLOT * games


def _ballot(agent: BeliefISMCTSAgent, view: PlayerView, seed: int) -> tuple[int, int, bool]:
    """(margin, games per ballot, sincere ballot) of `agent`'s search of `view`."""
    agent.observe(view)
    belief = agent.belief
    assert belief is not None and view.seat is not None
    root = agent.search(view, random.Random(seed)).root
    sincere = liberal_ballot(view, view.seat, belief.pair_liberal(), belief.hitler())
    return root.wins[1] - root.wins[0], root.visits[1], sincere


def liberal_ballots(games: int, seed: int) -> list[PlayerView]:
    """Views of every Liberal ballot outside the government, in `belief` agents' games."""
    rng = random.Random(seed)
    views: list[PlayerView] = []
    for g in range(games):
        game = Game(rng.randint(5, 10), seed=seed * 1000 + g)
        agents = [BeliefAgent(s, seed * 1000 + g) for s in range(game.players)]
        while not game.is_over:
            seat = game.awaiting()[0]
            view = game.view(seat)
            if (
                view.phase is Phase.VOTE
                and view.role is Role.LIBERAL
                and seat not in (view.president, view.chancellor)
            ):
                views.append(view)
            game.apply(agents[seat].act(view))
    return views


def measure(games: int, seed: int, full: int) -> dict[str, float | int]:
    """The counts and shares this bench prints (see the module doc)."""
    counts = dict.fromkeys(
        ("capped_clear_share", "capped_clear_noise", "full_clear_share", "agree_share",
         "agree_noise"), 0,
    )  # fmt: skip
    views = liberal_ballots(games, seed)
    for i, view in enumerate(views):
        assert view.seat is not None
        capped = BeliefISMCTSAgent(view.seat, seed, Budget(iterations=full))
        whole = _Uncapped(view.seat, seed, Budget(iterations=full))
        m_cap, n_cap, sincere = _ballot(capped, view, seed * 7919 + i)
        m_full, n_full, _ = _ballot(whole, view, seed * 7919 + i)
        # The ballot the agent casts with the full search (the share decides there).
        target = (m_full > 0) if _by_share(m_full, n_full) else sincere
        share = (m_cap > 0) if _by_share(m_cap, n_cap) else sincere
        noise = (m_cap > 0) if clear_ballot(m_cap, n_cap) else sincere
        counts["capped_clear_share"] += _by_share(m_cap, n_cap)
        counts["capped_clear_noise"] += clear_ballot(m_cap, n_cap)
        counts["full_clear_share"] += _by_share(m_full, n_full)
        counts["agree_share"] += share == target
        counts["agree_noise"] += noise == target
    out: dict[str, float | int] = {"ballots": len(views), "cap": BALLOT_ITERATIONS, "full": full}
    out.update(counts)
    for key in ("agree_share", "agree_noise"):
        out[f"{key}_rate"] = counts[key] / len(views) if views else 0.0
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--full", type=int, default=10_000, help="the full search's iterations")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = measure(args.games, args.seed, args.full)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>20} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
