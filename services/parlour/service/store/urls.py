"""Database URLs: one parse for every backend, and the form libpq takes.

Kept apart from :mod:`parlour.service.store.open` so the drivers can use them
without importing the module that imports the drivers.
"""

from __future__ import annotations

import sqlalchemy as sa


def normalize_url(url: str) -> sa.URL:
    """Parse a database URL; a bare ``postgresql://`` means psycopg 3."""
    parsed = sa.make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def libpq_url(url: str) -> str:
    """The URL as libpq (psycopg) takes it."""
    return normalize_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
