"""After the game, the expert's analysis, for client-library programs
(``proto/parlour/v1/analysis.proto``, issue 35): a player asks for a finished game's
analysis and reads it; an AI worker claims analysis jobs and submits them
(BotService, with the client's worker token and id)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from parlour.client.client import ParlourClient, tokens
from parlour.v1 import analysis_pb2, analysis_pb2_grpc, bots_pb2, bots_pb2_grpc


async def request_analysis(
    client: ParlourClient, table_id: str, seat_token: str | None = None
) -> analysis_pb2.RequestAnalysisResponse:
    """Queue the finished game's analysis (once; asking again answers the same one).
    ``seat_token``: a seat's token, where the table allows no spectators (or the
    client's session)."""
    request = analysis_pb2.RequestAnalysisRequest(table_id=table_id)
    metadata = tokens(seat_token=seat_token)

    def run(stubs: Any) -> Any:
        stub = analysis_pb2_grpc.AnalysisServiceStub(stubs.channel)
        return stub.RequestAnalysis(request, metadata=metadata, timeout=client.timeout)

    response: analysis_pb2.RequestAnalysisResponse = await client._call(run, idempotent=True)
    return response


async def get_analysis(
    client: ParlourClient, table_id: str, seat_token: str | None = None
) -> analysis_pb2.Analysis:
    """The table's analysis as it stands (its decisions once DONE)."""
    request = analysis_pb2.GetAnalysisRequest(table_id=table_id)
    metadata = tokens(seat_token=seat_token)

    def run(stubs: Any) -> Any:
        stub = analysis_pb2_grpc.AnalysisServiceStub(stubs.channel)
        return stub.GetAnalysis(request, metadata=metadata, timeout=client.timeout)

    response: analysis_pb2.GetAnalysisResponse = await client._call(run, idempotent=True)
    return response.analysis


async def claim_analysis(
    client: ParlourClient, wait_seconds: float = 0.0, *, games: Sequence[str] = ()
) -> bots_pb2.ClaimAnalysisResponse:
    """Claim an analysis job for the client's worker id, waiting up to ``wait_seconds``.
    Retried on UNAVAILABLE (a lost answer's lease is this worker's own until it lapses)."""
    if not client.worker_id:
        raise ValueError("claiming an analysis needs the client's worker_id")
    request = bots_pb2.ClaimAnalysisRequest(
        worker_id=client.worker_id, wait_seconds=wait_seconds, games=list(games)
    )
    metadata = tokens(worker_token=client.worker_token)
    deadline = wait_seconds + (client.timeout or 10.0)

    def run(stubs: Any) -> Any:
        stub = bots_pb2_grpc.BotServiceStub(stubs.channel)
        return stub.ClaimAnalysis(request, metadata=metadata, timeout=deadline)

    response: bots_pb2.ClaimAnalysisResponse = await client._call(run, idempotent=True)
    return response


async def submit_analysis(
    client: ParlourClient, request: bots_pb2.SubmitAnalysisRequest
) -> bots_pb2.SubmitAnalysisResponse:
    """Send one part of a claimed job (``request.worker_id`` is set to the client's).
    Safe to resend: a part sent again replaces what it judged, and the last part
    sent again is answered accepted = false."""
    if not client.worker_id:
        raise ValueError("submitting an analysis needs the client's worker_id")
    request.worker_id = client.worker_id
    metadata = tokens(worker_token=client.worker_token)

    def run(stubs: Any) -> Any:
        stub = bots_pb2_grpc.BotServiceStub(stubs.channel)
        return stub.SubmitAnalysis(request, metadata=metadata, timeout=client.timeout)

    response: bots_pb2.SubmitAnalysisResponse = await client._call(run, idempotent=True)
    return response
