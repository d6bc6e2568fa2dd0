"""TLS for clients: channel credentials from PEM files.

    creds = tls_credentials(ca_file="ca.pem")            # trust this CA
    creds = tls_credentials()                             # trust the system's roots
    creds = tls_credentials("ca.pem", "me.pem", "me.key")  # mutual TLS (a worker)

Pass the result as ``ParlourClient(..., credentials=creds)``.
"""

from __future__ import annotations

from pathlib import Path

import grpc


def tls_credentials(
    ca_file: str | Path | None = None,
    cert_file: str | Path | None = None,
    key_file: str | Path | None = None,
) -> grpc.ChannelCredentials:
    """Credentials that trust ``ca_file`` (or the system's roots) and, for mutual TLS,
    present ``cert_file``/``key_file`` (both or neither)."""
    if (cert_file is None) != (key_file is None):
        raise ValueError("give both a client certificate and its key, or neither")
    return grpc.ssl_channel_credentials(
        root_certificates=_read(ca_file),
        private_key=_read(key_file),
        certificate_chain=_read(cert_file),
    )


def _read(path: str | Path | None) -> bytes | None:
    return None if path is None else Path(path).read_bytes()
