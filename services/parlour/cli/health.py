"""``parlour health``: exit 0 if a Parlour process answers, 1 if not (for healthchecks).

parlour health --server 127.0.0.1:50051          # a game service: gRPC health SERVING
parlour health --url http://127.0.0.1:9464/metrics  # a worker or gateway: HTTP 200
"""

from __future__ import annotations

import argparse
import sys
import urllib.request

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from parlour.cli import options as ops


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--server", metavar="ADDRESS", help="a game service's host:port")
    where.add_argument("--url", help="an HTTP URL that must answer 200")
    parser.add_argument(
        "--timeout", type=float, default=3.0, help="seconds to wait (default: %(default)s)"
    )
    ops.tls_client_arguments(parser)


def run(args: argparse.Namespace) -> int:
    try:
        if args.url:
            with urllib.request.urlopen(args.url, timeout=args.timeout) as answer:
                healthy = answer.status == 200
        else:
            healthy = _serving(args.server, ops.tls_client_credentials(args), args.timeout)
    except Exception as error:
        print(f"parlour health: {error}", file=sys.stderr)
        return 1
    print("healthy" if healthy else "not serving")
    return 0 if healthy else 1


def _serving(address: str, credentials: grpc.ChannelCredentials | None, timeout: float) -> bool:
    channel = (
        grpc.insecure_channel(address)
        if credentials is None
        else grpc.secure_channel(address, credentials)
    )
    with channel:
        # grpcio-health-checking's stubs do not declare the stub's methods
        reply = health_pb2_grpc.HealthStub(channel).Check(  # type: ignore[attr-defined]
            health_pb2.HealthCheckRequest(), timeout=timeout
        )
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
