"""The bot's start-up GC settings (their effect on loop lag is measured by the bench)."""

from __future__ import annotations

import gc

from bot.gc_tuning import FIRST_GENERATION_THRESHOLD, SECOND_GENERATION_THRESHOLD, tune_gc


def test_tune_gc_freezes_the_start_up_heap_and_sets_the_young_thresholds() -> None:
    before = gc.get_threshold()
    try:
        tune_gc()
        assert gc.get_freeze_count() > 1000  # the imported modules' objects
        assert gc.get_threshold() == (
            FIRST_GENERATION_THRESHOLD,
            SECOND_GENERATION_THRESHOLD,
            before[2],
        )
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
