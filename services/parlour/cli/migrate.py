"""``parlour migrate``: bring a database's schema up to the newest migration.

Run it once before starting replicas that were given ``--no-migrate`` (the
deployment's one-shot ``migrate`` service); ``parlour serve`` otherwise
migrates on start.
"""

from __future__ import annotations

import argparse

from parlour.cli.options import database_url_argument, safe_url
from parlour.service.store.open import upgrade_head


def add_arguments(parser: argparse.ArgumentParser) -> None:
    database_url_argument(parser)


def run(args: argparse.Namespace) -> int:
    upgrade_head(args.database_url)
    print(f"parlour: database schema is up to date ({safe_url(args.database_url)})", flush=True)
    return 0
