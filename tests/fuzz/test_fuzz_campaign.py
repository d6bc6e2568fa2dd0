"""A short run of ``make fuzz``: the same campaign, a thousand requests (enough that
each of the contract's RPCs is drawn)."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from tests.fuzz.campaign import contract, run, running

pytestmark = pytest.mark.postgres


def test_a_short_fuzz_campaign_finds_no_internal_error_and_no_refused_write(
    postgres_url: str, tmp_path: Path
) -> None:
    url = sa.make_url(postgres_url).render_as_string(hide_password=False)
    with running(url, tmp_path) as (address, base):
        report = run(address, base, url, requests=1000, seed_value=7)
    print("\n".join(report.lines()))
    assert report.sent == 1000
    assert report.bad == [] and report.refused_writes == []
    assert len(report.by_rpc) == len(contract())  # every RPC was called
    assert any(status.startswith("http") for status in report.by_status)
    assert report.by_status["grpc OK"] > 0 and report.by_status["grpc INVALID_ARGUMENT"] > 0
