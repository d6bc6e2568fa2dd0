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


class StallGuard:
    """Ends a polling loop that no longer gets anywhere: it fails once the table has
    shown nothing new (no log line, no card moved) for ``seconds``. A hang, not a
    slow machine: however long a loaded machine takes, every move changes the page."""

    SIGNATURE = (
        "[...document.querySelectorAll('.log li, .hand-card, .in-trick, .overlay')].length"
        " + ':' + (document.querySelector('.log') || document.body).textContent.length"
    )

    def __init__(self, page: Any, seconds: float = 60.0) -> None:
        self.page = page
        self.seconds = seconds
        self._seen: object = None
        self._since = time.monotonic()

    def check(self, what: str) -> None:
        """Fail with ``what`` if the page has not changed for ``seconds``."""
        seen = self.page.evaluate(self.SIGNATURE)
        now = time.monotonic()
        if seen != self._seen:
            self._seen, self._since = seen, now
        elif now - self._since > self.seconds:
            raise AssertionError(f"{what}: the table showed nothing new for {self.seconds:.0f} s")
