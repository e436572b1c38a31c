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
budget, so the Fascist side of the pool is unchanged; its claims are always that
agent's (truthful as a Liberal). It is a ceiling in practice, not a theorem (a Liberal
could in principle steer others by talking).

`--perfect vote,nominate` splits the gap: the oracle Liberal plays only those kinds of
decision with perfect knowledge and leaves the rest (policy, execute, special,
investigate) to belief-ismcts, which shows where a better honest Liberal would gain.

Prints every agent's win rate overall and by role, with 95% Wilson intervals.
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
    Claim,
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
from engine.variants import HITLER_ZONE

ORACLE = "oracle"
KINDS = frozenset({"nominate", "vote", "policy", "execute", "special", "investigate"})
# Parts of a kind, for `--perfect` only (not in the default): every ballot once three
# Fascist policies are down (`zone_vote`), or only Nein to Hitler as chancellor there,
# every other ballot the honest agent's (`hitler_vote`).
PARTS = frozenset({"zone_vote", "hitler_vote"})


def _kind(action: Action) -> str:
    """The kind of decision an action answers, as `--perfect` names it."""
    match action:
        case Nominate():
            return "nominate"
        case Vote():
            return "vote"
        case Execute():
            return "execute"
        case CallSpecialElection():
            return "special"
        case Investigate():
            return "investigate"
        case _:
            return "policy"


class OracleLiberal(AgentBase):
    """A Liberal that knows every role (see the module docstring); analysis only."""

    name = ORACLE

    def __init__(
        self,
        seat: int,
        roles: Sequence[Role],
        honest: AgentBase,
        perfect: frozenset[str] = KINDS,
    ) -> None:
        super().__init__(seat, 0)
        self.roles = tuple(roles)
        self.honest = honest  # decides the kinds not in `perfect`, and claims
        self.perfect = perfect

    def act(self, view: PlayerView) -> Action:
        """Perfect play for the kinds of decision in `perfect`; the honest agent's otherwise."""
        first = view.legal_actions[0]
        zone = isinstance(first, Vote) and view.fascist_policies >= HITLER_ZONE
        if _kind(first) in self.perfect or (zone and "zone_vote" in self.perfect):
            self.honest.observe(view)  # keep its beliefs current
            return super().act(view)
        if zone and "hitler_vote" in self.perfect and view.chancellor == self._hitler():
            self.honest.observe(view)
            return Vote(self.seat, False)
        return self.honest.act(view)

    def _hitler(self) -> int:
        return self.roles.index(Role.HITLER)

    def claim(self, view: PlayerView) -> Claim | None:
        """Claims are the honest agent's (the truth, for belief-ismcts)."""
        return self.honest.claim(view)

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


def oracle_agents(
    setup: GameSetup, iterations: int, perfect: frozenset[str] = KINDS
) -> dict[int, AgentBase]:
    """The oracle seats of a planned game: omniscient as Liberals, belief-ismcts otherwise."""
    roles = Game(setup.players, seed=setup.seed).roles
    built: dict[int, AgentBase] = {}
    for seat, spec in enumerate(setup.specs):
        if spec != ORACLE:
            continue
        honest = BeliefISMCTSAgent(
            seat, agent_seed(setup.seed, seat), Budget(iterations=iterations)
        )
        if roles[seat] is Role.LIBERAL:
            built[seat] = OracleLiberal(seat, roles, honest, perfect)
        else:
            built[seat] = honest
    return built


def play(args: tuple[GameSetup, int, frozenset[str]]) -> GameResult:
    """One game with the oracle seats built from the deal."""
    setup, iterations, perfect = args
    agents = oracle_agents(setup, iterations, perfect)
    return play_game(setup.specs, seed=setup.seed, agents=agents)


def run(
    games: int,
    seed: int,
    players: tuple[int, int],
    iterations: int,
    workers: int,
    perfect: frozenset[str] = KINDS,
) -> dict[str, Any]:
    """Play the games; return the tallies as a JSON-ready dict."""
    pool = ["random", "selfish", f"ismcts:iterations={iterations}", ORACLE]
    setups = [plan_game(seed, i, players, pool) for i in range(games)]
    tallies: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    endings: dict[str, int] = defaultdict(int)
    start = time.perf_counter()
    jobs = [(s, iterations, perfect) for s in setups]
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
        "perfect": sorted(perfect),
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
    parser.add_argument(
        "--perfect",
        default=",".join(sorted(KINDS)),
        help="the decisions the oracle makes with perfect knowledge (the rest: belief-ismcts)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    perfect = frozenset(filter(None, args.perfect.split(",")))
    if not perfect <= KINDS | PARTS:
        parser.error(f"--perfect takes some of {', '.join(sorted(KINDS | PARTS))}")
    report = run(args.games, args.seed, args.players, args.iterations, args.workers, perfect)
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
