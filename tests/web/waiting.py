"""Waiting for the page in browser tests without eval.

Playwright's ``wait_for_function`` evaluates its predicate with eval, which the
page's Content-Security-Policy (no 'unsafe-eval') refuses; ``evaluate`` is not
eval, so this polls it.
"""

from __future__ import annotations

import time
from typing import Any


def wait_until(page: Any, expression: str, timeout: float = 30.0) -> None:
    """Poll ``expression`` in the page until it is true (``timeout`` seconds at most)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"the page never met: {expression}")
        time.sleep(0.05)
