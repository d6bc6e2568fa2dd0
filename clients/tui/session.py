"""What every screen of the client shares: the server, its clients, the saved seats."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc
from textual.dom import DOMNode

from parlour.client import ParlourClient, RetryPolicy
from parlour.client.accounts import SessionMetadata

from .saved import SeatBook


@dataclass
class Session:
    """One server address and the connections to it."""

    address: str
    client: ParlourClient
    # The watch stream gets no silent retries: a drop must reach the table
    # screen, which says so and resumes from the last version it saw.
    stream_client: ParlourClient
    seat_book: SeatBook
    #: the account's session, sent by both clients (``identity.py`` signs in)
    signed_in: SessionMetadata
    state_dir: Path | None = None

    @classmethod
    def open(
        cls,
        address: str,
        state_dir: Path | None = None,
        credentials: grpc.ChannelCredentials | None = None,
        language: str = "en",
    ) -> Session:
        """The clients ask for the server's words in ``language`` (labels, events)."""
        signed_in = SessionMetadata()
        return cls(
            address,
            ParlourClient(address, credentials=credentials, session=signed_in, language=language),
            ParlourClient(
                address,
                retry=RetryPolicy(attempts=1),
                credentials=credentials,
                session=signed_in,
                language=language,
            ),
            SeatBook(state_dir),
            signed_in,
            state_dir,
        )

    async def close(self) -> None:
        await self.client.close()
        await self.stream_client.close()


def session(node: DOMNode) -> Session:
    """The session of the app ``node`` belongs to."""
    found = getattr(node.app, "session", None)
    if not isinstance(found, Session):
        raise RuntimeError("the Parlour screens run inside ParlourApp")
    return found
