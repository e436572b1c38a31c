"""How well could any Liberal do in the strength pool? An omniscient Liberal's win rate.

    python bench/liberal_bound.py --games 300 --seed 1 --iterations 1000 --workers 2 [--json]

Issue 3 asks belief-ISMCTS to win >= 0.40 of its games as a Liberal in the arena pool
{random, selfish, ismcts, belief-ismcts}. One Liberal seat shares its fate with the
other Liberals, drawn from the same pool. This bench measures a ceiling for that
figure: the same arena games (`agents.arena.plan_game`), with the belief-ismcts seats
replaced by an **oracle** that, *as a Liberal*, knows every role (it is built here,
from the deal, outside the agent protocol: analysis only, never a player) and plays
the obvious perfect-information policy:

- nominate a Liberal chancellor (else a Fascist who is not Hitler);
- vote Ja only for an all-Liberal government;
- discard and enact Liberal tiles; propose and accept a veto of an all-Fascist agenda;
- execute Hitler (else a Fascist), call special elections on Liberals, investigate a
  Fascist (it learns nothing new).

As a Fascist or Hitler the oracle seat is an honest belief-ismcts agent with the same
budget, so the Fascist side of the pool is unchanged. The oracle makes no claims, and
the honest agents it plays with cannot tell it apart. It is a ceiling in practice, not
a theorem (a Liberal could in principle steer others by talking; none of the pool's
other agents but belief-ismcts reads claims).

Prints the oracle's win rate as a Liberal with its 95% Wilson interval, and every
agent's rate by role.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.arena import GameSetup, parse_players, plan_game
from agents.base import AgentBase, Budget
from agents.belief_ismcts import BeliefISMCTSAgent
from agents.runner import GameResult, agent_seed, play_game
from agents.stats import Tally
from engine import (
    Action,
    CallSpecialElection,
    Discard,
    Enact,
    Execute,
    Game,
    Investigate,
    Nominate,
    PlayerView,
    Policy,
    ProposeVeto,
    Role,
    VetoReply,
    Vote,
)

ORACLE = "oracle"


class OracleLiberal(AgentBase):
    """A Liberal that knows every role (see the module docstring); analysis only."""

    name = ORACLE

    def __init__(self, seat: int, roles: Sequence[Role]) -> None:
        super().__init__(seat, 0)
        self.roles = tuple(roles)

    def _liberal(self, seat: int) -> bool:
        return self.roles[seat] is Role.LIBERAL

    def decide(self, view: PlayerView, rng: random.Random) -> Action:
        legal = view.legal_actions
        first = legal[0]
        hitler = self.roles.index(Role.HITLER)
        if isinstance(first, Nominate):
            options = [a for a in legal if isinstance(a, Nominate)]
            good = [a for a in options if self._liberal(a.chancellor)]
            safe = [a for a in options if a.chancellor != hitler]
            return rng.choice(good or safe or options)
        if isinstance(first, Vote):
            clean = self._liberal(view.president) and (
                view.chancellor is None or self._liberal(view.chancellor)
            )
            return Vote(self.seat, clean)
        if isinstance(first, Discard | Enact):
            for action in legal:
                if isinstance(action, Discard) and action.policy is Policy.FASCIST:
                    return action
                if isinstance(action, Enact) and action.policy is Policy.LIBERAL:
                    return action
            vetoes = [a for a in legal if isinstance(a, ProposeVeto)]
            return vetoes[0] if vetoes else first
        if isinstance(first, VetoReply):
            return VetoReply(self.seat, Policy.LIBERAL not in view.hand)
        if isinstance(first, Execute):
            targets = [a for a in legal if isinstance(a, Execute)]
            return min(targets, key=lambda a: (a.target != hitler, self._liberal(a.target)))
        if isinstance(first, CallSpecialElection):
            targets = [a for a in legal if isinstance(a, CallSpecialElection)]
            good = [a for a in targets if self._liberal(a.target)]
            return rng.choice(good or targets)
        if isinstance(first, Investigate):
            targets = [a for a in legal if isinstance(a, Investigate)]
            bad = [a for a in targets if not self._liberal(a.target)]
            return rng.choice(bad or targets)
        return rng.choice(legal)


def oracle_agents(setup: GameSetup, iterations: int) -> dict[int, AgentBase]:
    """The oracle seats of a planned game: omniscient as Liberals, belief-ismcts otherwise."""
    roles = Game(setup.players, seed=setup.seed).roles
    built: dict[int, AgentBase] = {}
    for seat, spec in enumerate(setup.specs):
        if spec != ORACLE:
            continue
        if roles[seat] is Role.LIBERAL:
            built[seat] = OracleLiberal(seat, roles)
        else:
            built[seat] = BeliefISMCTSAgent(
                seat, agent_seed(setup.seed, seat), Budget(iterations=iterations)
            )
    return built


def play(args: tuple[GameSetup, int]) -> GameResult:
    """One game with the oracle seats built from the deal."""
    setup, iterations = args
    return play_game(setup.specs, seed=setup.seed, agents=oracle_agents(setup, iterations))


def run(
    games: int, seed: int, players: tuple[int, int], iterations: int, workers: int
) -> dict[str, Any]:
    """Play the games; return the tallies as a JSON-ready dict."""
    pool = ["random", "selfish", f"ismcts:iterations={iterations}", ORACLE]
    setups = [plan_game(seed, i, players, pool) for i in range(games)]
    tallies: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    endings: dict[str, int] = defaultdict(int)
    start = time.perf_counter()
    jobs = [(s, iterations) for s in setups]
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as executor:
            results = list(executor.map(play, jobs))
    else:
        results = [play(job) for job in jobs]
    for result in results:
        endings[result.win_reason.value] += 1
        for seat, spec in enumerate(result.specs):
            name = spec.partition(":")[0]
            role = result.roles[seat].value
            won = result.won(seat)
            tallies[name]["overall"].add(won)
            tallies[name][role].add(won)
    return {
        "games": games,
        "seed": seed,
        "players": list(players),
        "iterations": iterations,
        "wall_seconds": time.perf_counter() - start,
        "endings": dict(endings),
        "agents": {
            name: {key: tally.to_dict() for key, tally in by.items()}
            for name, by in sorted(tallies.items())
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=parse_players, default=(5, 10))
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(args.games, args.seed, args.players, args.iterations, args.workers)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{args.games} games, {report['wall_seconds']:.0f} s; endings {report['endings']}")
    for name, by in report["agents"].items():
        cells = []
        for key in ("overall", "liberal", "fascist", "hitler"):
            if key in by:
                d = by[key]
                low, high = d["ci95"]
                cells.append(f"{key} {d['win_rate']:.3f} [{low:.3f},{high:.3f}] n={d['played']}")
        print(f"{name:>8}: " + "; ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
