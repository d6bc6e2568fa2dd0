"""Who this terminal is: its device secret and session, kept under the state directory.

On start the client signs in with the session it kept, or, when there is
none or it died, as this device (AccountService.AuthenticateDevice: a guest
account made on first use), and keeps the new session. The seats it takes
are then bound to the account. The file (``identity.json`` under
``$PARLOUR_STATE_DIR`` or ``~/.config/parlour``) is created readable by its
owner only (mode 0600) and never printed.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import grpc

from parlour.client import ParlourClient, ParlourError
from parlour.client.accounts import authenticate_device, new_device_secret, who_am_i
from parlour.v1 import accounts_pb2

from .saved import state_dir

FILE_NAME = "identity.json"


@dataclass
class Identity:
    """The device secret and the session token this terminal keeps."""

    device_secret: str
    session_token: str = ""


class IdentityFile:
    """``identity.json`` in the state directory."""

    def __init__(self, directory: Path | None = None) -> None:
        self.path = (directory or state_dir()) / FILE_NAME

    def load(self) -> Identity:
        """The kept identity, or a new device secret when there is none (or it is unreadable)."""
        try:
            return Identity(**json.loads(self.path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return Identity(new_device_secret())

    def save(self, identity: Identity) -> None:
        """Write the file, readable by its owner only (created so: never a moment wider)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            json.dump(asdict(identity), out)
        os.chmod(temporary, 0o600)  # an older file of the same name kept its mode
        temporary.replace(self.path)


async def sign_in(client: ParlourClient, directory: Path | None = None) -> accounts_pb2.Account:
    """Sign ``client`` in (its ``session`` metadata) with the kept session or the device."""
    assert client.session is not None, "the client needs SessionMetadata to sign in"
    kept = IdentityFile(directory)
    identity = kept.load()
    if identity.session_token:
        client.session.token = identity.session_token
        try:
            who: accounts_pb2.WhoAmIResponse = await who_am_i(client)
            return who.account
        except ParlourError as refused:
            if refused.code != grpc.StatusCode.UNAUTHENTICATED:
                raise
    client.session.token = None
    signed: accounts_pb2.AuthenticateDeviceResponse = await authenticate_device(
        client, identity.device_secret
    )
    client.session.token = identity.session_token = signed.session_token
    kept.save(identity)
    account: accounts_pb2.Account = signed.account
    return account
