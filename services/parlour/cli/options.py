"""The options the ``parlour`` subcommands share, defined once: the database URL,
logging (plain or JSON lines), the Prometheus endpoint, secrets read from the
environment or a file (never from argv), and TLS for the processes that listen
or connect.

The subcommands call ``*_arguments(parser)`` to get the same flags everywhere and
the matching function to act on them.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING

import grpc

from parlour.cli import logs

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

MIN_SECRET_LENGTH = 16


# --- logs -------------------------------------------------------------------------------


def log_arguments(parser: argparse.ArgumentParser, *, debug_help: str = "") -> None:
    parser.add_argument(
        "--log-level",
        default=os.environ.get("PARLOUR_LOG_LEVEL", "INFO").upper(),
        choices=("DEBUG", "INFO", "WARNING", "ERROR"),
        help=f"{debug_help or 'DEBUG logs more'} (default: $PARLOUR_LOG_LEVEL or %(default)s)",
    )
    parser.add_argument(
        "--log-json",
        action="store_true",
        default=os.environ.get("PARLOUR_LOG_JSON", "") not in ("", "0", "false"),
        help="log one JSON object per line (default: on if $PARLOUR_LOG_JSON is set)",
    )


def setup_logging(args: argparse.Namespace) -> None:
    """Log to stderr at ``--log-level``; grpc's and the libraries' own DEBUG stays quiet."""
    handler = logs.BufferedStderrHandler()
    handler.setFormatter(logs.JsonFormatter() if args.log_json else logs.TextFormatter())
    # What no format here shows is not gathered per record (the logging HOWTO's
    # "Optimization"): the caller's frame, the thread and the process.
    logging._srcfile = None
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(max(logging.INFO, getattr(logging, args.log_level)))
    logging.getLogger("parlour").setLevel(getattr(logging, args.log_level))
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)


# --- listening --------------------------------------------------------------------------


def port_problem(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on (e.g. "address already in use"), or None."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        # as a server binds: a port lingering in TIME_WAIT is free, a listener is not
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            return error.strerror or str(error)
    return None


# --- metrics ----------------------------------------------------------------------------


def metrics_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metrics-address",
        default=os.environ.get("PARLOUR_METRICS_ADDRESS") or None,
        metavar="HOST:PORT",
        help="serve Prometheus metrics at http://HOST:PORT/metrics "
        "(default: $PARLOUR_METRICS_ADDRESS; none: no endpoint)",
    )


def start_metrics(address: str | None) -> WSGIServer | None:
    """Serve the process's Prometheus registry at http://ADDRESS/metrics from a thread.

    Returns the HTTP server (``server_address`` has the port bound; ``shutdown()``
    stops it), or None when no address is given.
    """
    if not address:
        return None
    from prometheus_client import start_http_server

    host, _, port = address.rpartition(":")
    server, _thread = start_http_server(int(port), addr=host or "0.0.0.0")
    logging.getLogger("parlour").info(
        "metrics at http://%s:%d/metrics", host or "0.0.0.0", server.server_address[1]
    )
    return server


# --- the database -----------------------------------------------------------------------

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

    password = secret("PARLOUR_DATABASE_PASSWORD")
    parsed = make_url(url)
    if password is None or parsed.password is not None or parsed.get_backend_name() == "sqlite":
        return url
    return parsed.set(password=password).render_as_string(hide_password=False)


def safe_url(url: str) -> str:
    """``url`` with its password masked, for printing."""
    from sqlalchemy import make_url

    return make_url(url).render_as_string(hide_password=True)


# --- secrets ----------------------------------------------------------------------------


def secret(name: str, *, file: str | None = None) -> str | None:
    """A secret from ``file``, else from $NAME_FILE, else from $NAME; None if none is set.

    Secrets never come from argv, where every user of the machine can read them.
    """
    path = file or os.environ.get(f"{name}_FILE")
    if path:
        return Path(path).read_text(encoding="utf-8").strip() or None
    return os.environ.get(name) or None


def worker_token_arguments(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument(
        "--worker-token-file",
        metavar="FILE",
        default=None,
        help=f"{help}: read from FILE, else $PARLOUR_WORKER_TOKEN_FILE, else "
        "$PARLOUR_WORKER_TOKEN (never given on the command line)",
    )


def worker_token(args: argparse.Namespace) -> str | None:
    """The worker token, or None; SystemExit if it is too short to be a secret."""
    token = secret("PARLOUR_WORKER_TOKEN", file=args.worker_token_file)
    if token is not None and len(token) < MIN_SECRET_LENGTH:
        raise SystemExit(
            f"parlour: the worker token must be at least {MIN_SECRET_LENGTH} characters "
            "(for example: python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return token


# --- TLS --------------------------------------------------------------------------------


def tls_client_arguments(parser: argparse.ArgumentParser) -> None:
    """--tls-ca (and, for mutual TLS, --tls-cert/--tls-key) for a process that connects."""
    parser.add_argument(
        "--tls-ca",
        metavar="FILE",
        default=os.environ.get("PARLOUR_TLS_CA") or None,
        help="connect with TLS, trusting the CA certificate in FILE ('system': the "
        "system's roots) (default: $PARLOUR_TLS_CA; none: plaintext)",
    )
    parser.add_argument(
        "--tls-cert",
        metavar="FILE",
        default=os.environ.get("PARLOUR_TLS_CLIENT_CERT") or None,
        help="client certificate for mutual TLS (default: $PARLOUR_TLS_CLIENT_CERT)",
    )
    parser.add_argument(
        "--tls-key",
        metavar="FILE",
        default=os.environ.get("PARLOUR_TLS_CLIENT_KEY") or None,
        help="its private key (default: $PARLOUR_TLS_CLIENT_KEY)",
    )


def tls_client_credentials(args: argparse.Namespace) -> grpc.ChannelCredentials | None:
    """Channel credentials from --tls-ca/--tls-cert/--tls-key, or None for plaintext."""
    from parlour.client import tls_credentials

    if args.tls_ca is None:
        if args.tls_cert or args.tls_key:
            raise SystemExit("parlour: --tls-cert/--tls-key need --tls-ca")
        return None
    ca = None if args.tls_ca == "system" else args.tls_ca
    try:
        credentials: grpc.ChannelCredentials = tls_credentials(ca, args.tls_cert, args.tls_key)
        return credentials
    except (OSError, ValueError) as error:
        raise SystemExit(f"parlour: TLS: {error}") from None


def tls_server_arguments(parser: argparse.ArgumentParser) -> None:
    """--tls-cert/--tls-key (and --tls-client-ca for mutual TLS) for a process that listens."""
    parser.add_argument(
        "--tls-cert",
        metavar="FILE",
        default=os.environ.get("PARLOUR_TLS_CERT") or None,
        help="serve TLS with this certificate chain (PEM) (default: $PARLOUR_TLS_CERT; "
        "none: plaintext)",
    )
    parser.add_argument(
        "--tls-key",
        metavar="FILE",
        default=os.environ.get("PARLOUR_TLS_KEY") or None,
        help="the certificate's private key (default: $PARLOUR_TLS_KEY)",
    )
    parser.add_argument(
        "--tls-client-ca",
        metavar="FILE",
        default=os.environ.get("PARLOUR_TLS_CLIENT_CA") or None,
        help="require client certificates signed by this CA (mutual TLS) "
        "(default: $PARLOUR_TLS_CLIENT_CA)",
    )


def tls_server_credentials(args: argparse.Namespace) -> grpc.ServerCredentials | None:
    """Server credentials from --tls-cert/--tls-key/--tls-client-ca, or None for plaintext."""
    if not (args.tls_cert or args.tls_key):
        if args.tls_client_ca:
            raise SystemExit("parlour: --tls-client-ca needs --tls-cert and --tls-key")
        return None
    if not (args.tls_cert and args.tls_key):
        raise SystemExit("parlour: give both --tls-cert and --tls-key")
    try:
        chain = Path(args.tls_cert).read_bytes()
        key = Path(args.tls_key).read_bytes()
        client_ca = Path(args.tls_client_ca).read_bytes() if args.tls_client_ca else None
    except OSError as error:
        raise SystemExit(f"parlour: TLS: {error}") from None
    return grpc.ssl_server_credentials(
        [(key, chain)], root_certificates=client_ca, require_client_auth=client_ca is not None
    )
