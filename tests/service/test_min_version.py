"""GetView's min_version: a view at a version the client was told of, without a read when
the service already holds it, and never older than that version on any replica."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from parlour.client import ParlourError
from tests.service.harness import Service, running_service, seated_table


def count_reads(service: Service, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every store.read the service makes from now on, by its arguments."""
    reads: list[Any] = []
    read = service.store.read

    async def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(args)
        return await read(*args, **kwargs)

    monkeypatch.setattr(service.store, "read", counted)
    return reads


async def test_a_view_at_a_version_the_service_holds_is_answered_without_a_read(
    store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with running_service(store_url) as service:
        table = await seated_table(service.client, "crazy8s", 2)
        first = await table.seats[0].view()
        mover = table.seats[first.view.to_act[0]]
        current = await mover.view()
        done = await mover.act(current.view.legal_actions[0].id, expected_version=current.version)
        other = table.seats[1 - mover.seat]
        reads = count_reads(service, monkeypatch)

        told = await other.view(min_version=done.version)
        assert told.version == done.version and reads == []
        older = await other.view(min_version=first.version)  # "or later": the latest held
        assert older.version == done.version and reads == []
        assert list(told.view.hand) == list((await other.view()).view.hand)
        assert len(reads) == 1  # without min_version: the store is read to be sure


async def test_a_min_version_the_table_has_not_reached_is_out_of_range(store_url: str) -> None:
    async with running_service(store_url) as service:
        table = await seated_table(service.client, "hearts", 4)
        current = await table.seats[0].view()
        with pytest.raises(ParlourError) as refused:
            await table.seats[0].view(min_version=current.version + 1)
        assert refused.value.code == grpc.StatusCode.OUT_OF_RANGE
        assert f"min_version {current.version + 1} is ahead" in refused.value.message
        lobby = await seated_table(service.client, "hearts", 4, start=False)
        waiting = await lobby.seats[0].view()
        with pytest.raises(ParlourError) as early:
            await lobby.seats[0].view(min_version=waiting.version + 1)
        assert early.value.code == grpc.StatusCode.OUT_OF_RANGE


@pytest.mark.postgres
async def test_a_replica_holding_an_older_fold_reads_up_to_the_version_it_is_told(
    postgres_url: str,
) -> None:
    async with (
        running_service(postgres_url) as one,
        running_service(postgres_url, migrate=False) as two,
    ):
        table = await seated_table(one.client, "crazy8s", 2)
        first = await table.seats[0].view()
        mover = table.seats[first.view.to_act[0]]
        other_seat = 1 - mover.seat
        other = two.client.seat(table.table_id, other_seat, table.seats[other_seat].token)
        held = await other.view()  # replica two now holds the fold at this version
        assert held.version == first.version
        current = await mover.view()
        done = await mover.act(current.view.legal_actions[0].id, expected_version=current.version)
        # told of the move (by Watch or by the mover), replica two answers at it or later
        told = await other.view(min_version=done.version)
        assert told.version >= done.version > held.version
