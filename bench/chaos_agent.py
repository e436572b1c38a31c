"""A belief-ISMCTS agent that sometimes fails on purpose, for bench/ai_load_bench.py --chaos.

With probability `SHBOT_CHAOS_RATE` (an environment variable, 0..1, read at each call)
a decision or claim does one of three faults, chosen at random: it raises, it hangs
(sleeps an hour), or it kills its worker process (`os._exit(13)`). Otherwise it plays
exactly as belief-ismcts. Faults happen only inside a worker process: the AI service
may run an agent in the bot's own process as a last resort, and a fault there would
hang or kill the bot itself, which is not what the benchmark measures.

Register it before the AI service starts (the service ships the registry to its
workers, which must be able to import this module: bench/ on their sys.path):

    AGENTS["chaos"] = "chaos_agent:ChaosAgent"
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from typing import ClassVar

from agents.belief_ismcts import BeliefISMCTSAgent
from engine import Action, Claim, PlayerView

RATE_VARIABLE = "SHBOT_CHAOS_RATE"
FAULTS = ("raise", "hang", "exit")
EXIT_CODE = 13
HANG_S = 3600.0

# Not the agent's seeded RNG: faults must not depend on the game, or every run of a
# seed would fail at the same decisions.
_dice = random.SystemRandom()


class ChaosError(RuntimeError):
    """The fault this agent raises on purpose (picklable: it crosses the process pipe)."""


def chaos_rate() -> float:
    """The share of decisions that fail, from the environment (0 when unset or bad)."""
    try:
        rate = float(os.environ.get(RATE_VARIABLE, "0"))
    except ValueError:
        return 0.0
    return min(1.0, max(0.0, rate))


def in_worker() -> bool:
    """Whether this runs in a child process (an agent worker), not in the bot itself."""
    return multiprocessing.parent_process() is not None


def maybe_fail() -> None:
    """With probability `chaos_rate()`, in a worker only: raise, hang or exit."""
    rate = chaos_rate()
    if rate <= 0.0 or not in_worker() or _dice.random() >= rate:
        return
    fault = _dice.choice(FAULTS)
    if fault == "raise":
        raise ChaosError("chaos: a fault on purpose")
    if fault == "hang":
        time.sleep(HANG_S)  # the service must terminate this worker past the deadline
    os._exit(EXIT_CODE)  # no clean-up, as a crash would (also after a hang, if woken)


class ChaosAgent(BeliefISMCTSAgent):
    """belief-ismcts, except that a share of its decisions and claims fail (see above)."""

    name: ClassVar[str] = "chaos"

    def act(self, view: PlayerView) -> Action:
        """A fault, or belief-ismcts's action."""
        maybe_fail()
        return super().act(view)

    def claim(self, view: PlayerView) -> Claim | None:
        """A fault, or belief-ismcts's claim."""
        maybe_fail()
        return super().claim(view)
