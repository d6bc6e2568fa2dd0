"""How a ``parlour`` process's log lines look and reach stderr: plain text or one
JSON object per line, both carrying the ``extra`` fields, written through a buffer
that a thread flushes (``options.setup_logging`` installs them from the flags).
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
import weakref
from datetime import UTC, datetime
from typing import Any

#: LogRecord attributes that every record has; anything else was passed in ``extra``.
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and every ``extra`` field."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update((k, v) for k, v in record.__dict__.items() if k not in _STANDARD)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    """The plain format, with the ``extra`` fields appended as key=value."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        extra = [f"{k}={v}" for k, v in record.__dict__.items() if k not in _STANDARD]
        return f"{text} {' '.join(extra)}" if extra else text


class BufferedStderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Log lines to stderr through a buffer, not a write per line (a line per RPC at
    hundreds of RPCs a second costs a system call each): a daemon thread flushes it
    every ``FLUSH_SECONDS``, a WARNING or worse is flushed at once, and
    ``logging.shutdown`` (at exit) flushes what is left."""

    FLUSH_SECONDS = 0.2

    def __init__(self) -> None:
        stream = open(  # noqa: SIM115 - lives as long as the process; stderr stays open
            sys.stderr.fileno(), "w", buffering=1 << 16, encoding="utf-8", closefd=False
        )
        super().__init__(stream)
        with _FLUSHED_LOCK:
            if not _FLUSHED:
                threading.Thread(target=_flush_forever, name="log-flush", daemon=True).start()
            _FLUSHED.add(self)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.stream.write(self.format(record) + self.terminator)
            if record.levelno >= logging.WARNING:
                self.flush()
        except Exception:  # logging's own contract: report, never raise
            self.handleError(record)


_FLUSHED: weakref.WeakSet[BufferedStderrHandler] = weakref.WeakSet()
_FLUSHED_LOCK = threading.Lock()


def _flush_forever() -> None:
    while True:
        time.sleep(BufferedStderrHandler.FLUSH_SECONDS)
        for handler in list(_FLUSHED):
            handler.flush()
