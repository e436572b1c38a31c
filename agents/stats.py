"""Win-rate statistics for the arena: proportions with Wilson score intervals."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

Z95 = 1.959963984540054  # the standard normal quantile for a two-sided 95% interval


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% by default).

    Chosen over the normal ("Wald") interval because it stays inside [0, 1] and keeps
    its coverage for small samples and rates near 0 or 1, as per-role rates can be.
    With no trials nothing is known: (0, 1).
    """
    if not 0 <= successes <= trials:
        raise ValueError(f"Need 0 <= successes <= trials, got {successes} of {trials}.")
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(slots=True)
class Tally:
    """Wins out of games played, with the rate and its 95% Wilson interval."""

    played: int = 0
    wins: int = 0

    def add(self, won: bool) -> None:
        """Count one more game."""
        self.played += 1
        self.wins += won

    @property
    def rate(self) -> float | None:
        """Wins per game played (None before any game)."""
        return self.wins / self.played if self.played else None

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson score interval of the rate."""
        return wilson_interval(self.wins, self.played)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: played, wins, win_rate, ci95."""
        low, high = self.interval
        return {
            "played": self.played,
            "wins": self.wins,
            "win_rate": self.rate,
            "ci95": [low, high],
        }
