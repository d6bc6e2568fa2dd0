"""A serving replica's garbage collector (issue 34): the start's objects frozen out
of its sight, and its passes less frequent than Python's default."""

from __future__ import annotations

import gc

from parlour.cli.serve import COLLECTOR_THRESHOLDS, settle_collector


def test_settling_freezes_what_the_start_made_and_spaces_the_passes() -> None:
    before = gc.get_threshold()
    try:
        settle_collector()
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == COLLECTOR_THRESHOLDS
        assert COLLECTOR_THRESHOLDS[0] > 700  # Python's default first threshold
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
