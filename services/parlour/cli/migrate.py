"""``parlour migrate``: bring a database's schema up to the newest migration."""

from __future__ import annotations

import argparse
import os

from parlour.service.store.open import upgrade_head

DEFAULT_DATABASE_URL = "sqlite:///parlour.sqlite3"


def database_url_argument(parser: argparse.ArgumentParser) -> None:
    """--database-url, defaulting to $PARLOUR_DATABASE_URL, else a local SQLite file.

    The password is best kept out of the URL (which may be seen in argv):
    $PARLOUR_DATABASE_PASSWORD_FILE or $PARLOUR_DATABASE_PASSWORD fills it in.
    """
    parser.add_argument(
        "--database-url",
        type=with_password,
        default=os.environ.get("PARLOUR_DATABASE_URL") or DEFAULT_DATABASE_URL,
        help="SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db "
        "(default: $PARLOUR_DATABASE_URL, else %(default)s); its password from "
        "$PARLOUR_DATABASE_PASSWORD_FILE or $PARLOUR_DATABASE_PASSWORD if it has none",
    )


def with_password(url: str) -> str:
    """``url`` with the password from the environment, if it names none itself."""
    from sqlalchemy import make_url

    from parlour.cli.options import secret

    password = secret("PARLOUR_DATABASE_PASSWORD")
    parsed = make_url(url)
    if password is None or parsed.password is not None or parsed.get_backend_name() == "sqlite":
        return url
    return parsed.set(password=password).render_as_string(hide_password=False)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    database_url_argument(parser)


def run(args: argparse.Namespace) -> int:
    upgrade_head(args.database_url)
    print(f"parlour: database schema is up to date ({safe_url(args.database_url)})", flush=True)
    return 0


def safe_url(url: str) -> str:
    from sqlalchemy import make_url

    return make_url(url).render_as_string(hide_password=True)
