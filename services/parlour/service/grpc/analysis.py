"""AnalysisService's servicer (``proto/parlour/v1/analysis.proto``, issue 35).

Translation only: the caller's tokens and session, the use cases of
``app/analysis.py``, the messages of ``convert_analysis.py``; the workers' side
(ClaimAnalysis, SubmitAnalysis) is BotService's (``servicers.BotServicer``).
"""

from __future__ import annotations

from parlour.service.app.analysis import Analyses
from parlour.service.app.parlour import Parlour
from parlour.service.grpc.convert_analysis import analysis_message
from parlour.service.grpc.servicers import _OverApp
from parlour.service.grpc.status import Context, unary
from parlour.v1 import analysis_pb2, analysis_pb2_grpc


class AnalysisServicer(_OverApp, analysis_pb2_grpc.AnalysisServiceServicer):
    """AnalysisService over :class:`Analyses`."""

    def __init__(self, app: Parlour, analyses: Analyses) -> None:
        super().__init__(app)
        self.analyses = analyses

    @unary
    async def RequestAnalysis(
        self, request: analysis_pb2.RequestAnalysisRequest, context: Context
    ) -> analysis_pb2.RequestAnalysisResponse:
        row, created = await self.analyses.request(request.table_id, await self._who(context))
        return analysis_pb2.RequestAnalysisResponse(analysis=analysis_message(row), created=created)

    @unary
    async def GetAnalysis(
        self, request: analysis_pb2.GetAnalysisRequest, context: Context
    ) -> analysis_pb2.GetAnalysisResponse:
        row = await self.analyses.get(request.table_id, await self._who(context))
        return analysis_pb2.GetAnalysisResponse(analysis=analysis_message(row))
