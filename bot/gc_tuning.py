"""Garbage-collector settings for a long-running bot process.

Measured with `bench/session_bench.py`: with CPython's defaults a full collection walks
every object the imports created (discord.py, numpy, Pillow, the agents: ~60,000) plus
every running game, and stalls the event loop for 90-200 ms, longer than an interaction
may wait. Freezing what exists after start-up moves it out of the collector's sight.

What is left is the young collections: each walks the objects allocated (and still
alive) since the last, so its pause grows with the first threshold. At 50,000 a pause
took 35-50 ms of CPU and, on a busy 2-core machine, up to 120 ms of wall time (two bot
processes and PostgreSQL, 400 games: `--processes 2 --games 400`). At 20,000 it takes
20-30 ms (worst loop lag 41-52 ms in three runs). The second threshold rises with it,
25 young collections per middle one instead of 10, so that middle collections, which
walk much more, stay as rare as before (one per 500,000 net allocations); lower first
thresholds measured worse (1,000: a 246 ms full collection; 3,000-10,000: 87-177 ms).
"""

from __future__ import annotations

import gc

FIRST_GENERATION_THRESHOLD = 20_000  # CPython's default is 700 allocations
SECOND_GENERATION_THRESHOLD = 25  # CPython's default is 10 young collections


def tune_gc(
    first_generation: int = FIRST_GENERATION_THRESHOLD,
    second_generation: int = SECOND_GENERATION_THRESHOLD,
) -> None:
    """Freeze everything allocated so far; set the young generations' thresholds."""
    gc.collect()
    gc.freeze()
    third = gc.get_threshold()[2]
    gc.set_threshold(first_generation, second_generation, third)
