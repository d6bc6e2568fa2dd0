"""``parlour serve``'s account options (issue 30): session time and per-account caps.

Each is a flag with an environment variable as its default; kept here so
that serve.py only calls :func:`add_account_arguments` and :func:`account_settings`.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from parlour.service.app.accounts import DEFAULT_SESSION_SECONDS
from parlour.service.app.moderation import DEFAULT_MAX_OPEN_SEATS, DEFAULT_MAX_OPEN_TABLES

SESSION_SECONDS_ENV = "PARLOUR_SESSION_SECONDS"
MAX_OPEN_TABLES_ENV = "PARLOUR_MAX_OPEN_TABLES_PER_ACCOUNT"
MAX_OPEN_SEATS_ENV = "PARLOUR_MAX_OPEN_SEATS_PER_ACCOUNT"


def _positive(kind: type[Any]) -> Any:
    def parse(text: str) -> Any:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, not {text}")
        return value

    return parse


def add_account_arguments(parser: argparse.ArgumentParser) -> None:
    """The account options of ``parlour serve``."""
    parser.add_argument(
        "--session-seconds",
        type=_positive(float),
        default=_positive(float)(os.environ.get(SESSION_SECONDS_ENV) or DEFAULT_SESSION_SECONDS),
        help="how long a session (AccountService) lasts before its player signs in again "
        f"(default: ${SESSION_SECONDS_ENV}, else {DEFAULT_SESSION_SECONDS})",
    )
    parser.add_argument(
        "--max-open-tables-per-account",
        type=_positive(int),
        default=_positive(int)(os.environ.get(MAX_OPEN_TABLES_ENV) or DEFAULT_MAX_OPEN_TABLES),
        help="the most open tables a signed-in account may host at once; more is "
        f"RESOURCE_EXHAUSTED (default: ${MAX_OPEN_TABLES_ENV}, else {DEFAULT_MAX_OPEN_TABLES})",
    )
    parser.add_argument(
        "--max-open-seats-per-account",
        type=_positive(int),
        default=_positive(int)(os.environ.get(MAX_OPEN_SEATS_ENV) or DEFAULT_MAX_OPEN_SEATS),
        help="the most open tables a signed-in account may sit at at once; more is "
        f"RESOURCE_EXHAUSTED (default: ${MAX_OPEN_SEATS_ENV}, else {DEFAULT_MAX_OPEN_SEATS})",
    )


def account_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The Settings fields of the account options."""
    return {
        "session_seconds": args.session_seconds,
        "max_open_tables_per_account": args.max_open_tables_per_account,
        "max_open_seats_per_account": args.max_open_seats_per_account,
    }
