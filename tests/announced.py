"""Where a server started by a test listens, read from what it says once bound.

The tests start ``parlour serve``, ``parlour gateway`` and the metrics endpoints
on port 0: a port picked by the test and handed over could be taken by another
test's connection in between (tests/deploy/test_log_json.py once lost that race).
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

#: ``parlour serve``'s line: the address (HOST:PORT) it serves on
SERVING_ON = r"serving on (\S+)"
#: ``parlour gateway``'s line: its base URL, without the closing slash
BROWSER_CLIENT_ON = r"browser client on (http://\S+)/ "
#: a metrics endpoint's log line (plain or JSON): its port
METRICS_AT = r"metrics at http://[^:/]+:(\d+)/metrics"


def announced(
    log: Path, pattern: str, child: subprocess.Popen[bytes], timeout: float = 60.0
) -> str:
    """The first group of ``pattern`` in ``log``, once ``child`` has written it there."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = log.read_text(encoding="utf-8", errors="replace")
        found = re.search(pattern, text)
        if found:
            return found.group(1)
        if child.poll() is not None:
            raise AssertionError(
                f"{log.stem} stopped ({child.returncode}) before it said {pattern!r}:\n{text}"
            )
        time.sleep(0.1)
    raise AssertionError(f"{log.stem} did not say {pattern!r} within {timeout} s")
