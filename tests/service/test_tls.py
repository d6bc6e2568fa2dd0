"""TLS: a whole game over an encrypted channel; plaintext and untrusted clients refused;
mutual TLS refuses a client without a certificate from the client CA.

The certificates are made by the test (trustme): a CA, a server certificate for
127.0.0.1 and, for mutual TLS, a client certificate. The server's credentials are
read by `parlour serve`'s own options (``--tls-cert/--tls-key/--tls-client-ca``),
the client's by the client library's ``tls_credentials``.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import grpc
import pytest
import trustme

from parlour.cli import options as ops
from parlour.cli import serve
from parlour.client import ParlourClient, ParlourError, RetryPolicy, tls_credentials
from parlour.service.bootstrap import Settings, assemble
from parlour.service.notify import make_notifier
from parlour.service.store.open import open_store, upgrade_head
from tests.service.harness import play_randomly, seated_table

WORKER_TOKEN = "a-worker-token-for-tls-tests"


@pytest.fixture
def pki(tmp_path: Path) -> dict[str, Path]:
    """PEM files: the CA, the server's chain and key, a client's chain and key, another CA."""
    ca, stranger = trustme.CA(), trustme.CA()
    server = ca.issue_cert("127.0.0.1", "localhost")
    client = ca.issue_cert("worker-1@parlour.test")
    files = {
        "ca": ca.cert_pem,
        "stranger_ca": stranger.cert_pem,
        "server_key": server.private_key_pem,
        "client_key": client.private_key_pem,
    }
    paths = {name: tmp_path / f"{name}.pem" for name in (*files, "server_cert", "client_cert")}
    for name, blob in files.items():
        blob.write_to_path(str(paths[name]))
    paths["server_cert"].write_bytes(b"".join(b.bytes() for b in server.cert_chain_pems))
    paths["client_cert"].write_bytes(b"".join(b.bytes() for b in client.cert_chain_pems))
    return paths


def server_credentials(*flags: str) -> grpc.ServerCredentials | None:
    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    return ops.tls_server_credentials(parser.parse_args(list(flags)))


@asynccontextmanager
async def tls_service(url: str, credentials: grpc.ServerCredentials | None) -> AsyncIterator[str]:
    upgrade_head(url)
    store = open_store(url)
    notifier = make_notifier(store)
    await notifier.start()
    settings = Settings(address="127.0.0.1:0", credentials=credentials, worker_token=WORKER_TOKEN)
    server = (await assemble(settings, store, notifier)).server
    await server.start()
    try:
        yield f"127.0.0.1:{server.port}"
    finally:
        await server.stop(0)
        await notifier.stop()
        await store.close()


async def refused(client: ParlourClient) -> grpc.StatusCode:
    async with client:
        with pytest.raises(ParlourError) as caught:
            await client.list_games()
    return caught.value.code


async def test_a_whole_game_over_tls_and_a_plaintext_client_refused(
    sqlite_url: str, pki: dict[str, Path]
) -> None:
    credentials = server_credentials(
        "--tls-cert", str(pki["server_cert"]), "--tls-key", str(pki["server_key"])
    )
    assert credentials is not None
    async with tls_service(sqlite_url, credentials) as address:
        async with ParlourClient(address, credentials=tls_credentials(pki["ca"])) as client:
            table = await seated_table(client, "wizard", 3, {"rounds": "5"})
            final = await play_randomly(table, random.Random(15))
            assert final.is_over and list(final.winners)

        once = RetryPolicy(attempts=1)
        plaintext = ParlourClient(address, retry=once, timeout=5)
        assert await refused(plaintext) == grpc.StatusCode.UNAVAILABLE
        untrusting = ParlourClient(
            address, retry=once, timeout=5, credentials=tls_credentials(pki["stranger_ca"])
        )
        assert await refused(untrusting) == grpc.StatusCode.UNAVAILABLE


async def test_mutual_tls_refuses_a_client_without_a_certificate(
    sqlite_url: str, pki: dict[str, Path]
) -> None:
    credentials = server_credentials(
        "--tls-cert",
        str(pki["server_cert"]),
        "--tls-key",
        str(pki["server_key"]),
        "--tls-client-ca",
        str(pki["ca"]),
    )
    async with tls_service(sqlite_url, credentials) as address:
        with_cert = tls_credentials(pki["ca"], pki["client_cert"], pki["client_key"])
        async with ParlourClient(address, credentials=with_cert) as client:
            assert {game.id for game in await client.list_games()} >= {"wizard", "hearts"}
        anonymous = ParlourClient(
            address,
            retry=RetryPolicy(attempts=1),
            timeout=5,
            credentials=tls_credentials(pki["ca"]),
        )
        assert await refused(anonymous) == grpc.StatusCode.UNAVAILABLE


def test_tls_options_that_do_not_fit_together_stop_the_command(pki: dict[str, Path]) -> None:
    assert server_credentials() is None  # no flags: plaintext
    with pytest.raises(SystemExit, match="both --tls-cert and --tls-key"):
        server_credentials("--tls-cert", str(pki["server_cert"]))
    with pytest.raises(SystemExit, match="needs --tls-cert"):
        server_credentials("--tls-client-ca", str(pki["ca"]))
    with pytest.raises(SystemExit, match="TLS"):
        server_credentials("--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.key")


async def test_a_worker_plays_a_bots_game_over_mutual_tls_and_the_gateway_serves_over_tls(
    sqlite_url: str, pki: dict[str, Path]
) -> None:
    import asyncio

    import httpx

    from parlour.ai.worker import Worker, WorkerConfig
    from parlour.gateway.app import create_app

    credentials = server_credentials(
        "--tls-cert",
        str(pki["server_cert"]),
        "--tls-key",
        str(pki["server_key"]),
        "--tls-client-ca",
        str(pki["ca"]),
    )
    with_cert = tls_credentials(pki["ca"], pki["client_cert"], pki["client_key"])
    async with tls_service(sqlite_url, credentials) as address:
        config = WorkerConfig(
            servers=(address,),
            worker_token=WORKER_TOKEN,
            worker_id="tls-worker",
            credentials=with_cert,
            wait_seconds=1.0,
        )
        worker = Worker(config)
        running = asyncio.create_task(worker.run())
        async with ParlourClient(address, credentials=with_cert) as client:
            hosted = await client.host_table("crazy8s", 2, seat_setup=[("bot", "")] * 2)
            table_id = hosted.table.table_id
            await client.start_table(table_id, hosted.host_token)
            for _ in range(600):
                view = await client.get_view(table_id, None, None)
                if view.view.is_over:
                    break
                await asyncio.sleep(0.1)
            assert view.view.is_over, "the worker did not finish the game over mutual TLS"
        worker.stop()
        tally = await asyncio.wait_for(running, 10)
        assert tally.played > 0

        gateway = create_app(address, with_cert)
        transport = httpx.ASGITransport(app=gateway)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway") as browser:
            answer = await browser.post("/api/LobbyService/GetTable", json={"tableId": table_id})
        assert answer.status_code == 200, answer.text
        assert answer.json()["table"]["status"] == "TABLE_STATUS_FINISHED"
