"""After the game, the expert's analysis, for client-library programs
(``proto/parlour/v1/analysis.proto``, issue 35): a player asks for a finished game's
analysis and reads it. (An AI worker's half, claiming and submitting the jobs, is
the worker's own: ``parlour.ai.analyst``.)"""

from __future__ import annotations

from typing import Any

from parlour.client.client import ParlourClient, tokens
from parlour.v1 import analysis_pb2, analysis_pb2_grpc


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
    """The table's analysis as it stands (its decisions and summaries once DONE)."""
    request = analysis_pb2.GetAnalysisRequest(table_id=table_id)
    metadata = tokens(seat_token=seat_token)

    def run(stubs: Any) -> Any:
        stub = analysis_pb2_grpc.AnalysisServiceStub(stubs.channel)
        return stub.GetAnalysis(request, metadata=metadata, timeout=client.timeout)

    response: analysis_pb2.GetAnalysisResponse = await client._call(run, idempotent=True)
    return response.analysis
