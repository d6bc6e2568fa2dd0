"""Parlour's client library: the whole gRPC contract, for Python programs.

Imports only the generated contract (``parlour.v1``) and grpcio, so it can be
vendored by third parties. See :class:`ParlourClient` (asyncio) and
:class:`SyncParlourClient` (blocking).
"""

from .client import (
    HOST_TOKEN_KEY,
    SEAT_TOKEN_KEY,
    WORKER_ID_KEY,
    WORKER_TOKEN_KEY,
    ParlourClient,
    ParlourError,
    RetryPolicy,
    Seat,
    new_request_id,
    tokens,
)
from .fairdeal import DealReport, verify_deals
from .sync import SyncParlourClient
from .tls import tls_credentials

__all__ = [
    "HOST_TOKEN_KEY",
    "SEAT_TOKEN_KEY",
    "WORKER_ID_KEY",
    "WORKER_TOKEN_KEY",
    "DealReport",
    "ParlourClient",
    "ParlourError",
    "RetryPolicy",
    "Seat",
    "SyncParlourClient",
    "new_request_id",
    "tls_credentials",
    "tokens",
    "verify_deals",
]
