"""Server reflection, both ``grpc.reflection.v1`` and ``grpc.reflection.v1alpha``.

grpcio-reflection implements only v1alpha (grpc/grpc#38576), while newer tools
(grpcurl, Postman, grpc-java's and grpc-go's clients) ask for v1 first. The two
versions have the same messages, field for field, under another package name,
so one servicer answers both: the v1 method reads and writes the v1alpha
messages (the bytes on the wire are the same), and a copy of v1alpha's file
descriptor renamed to ``grpc/reflection/v1/reflection.proto`` lets reflection
describe the v1 service itself.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

V1ALPHA_SERVICE_NAME = "grpc.reflection.v1alpha.ServerReflection"
V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
_V1ALPHA_PREFIX = ".grpc.reflection.v1alpha."
_V1_PREFIX = ".grpc.reflection.v1."


def _register_v1_descriptor(pool: descriptor_pool.DescriptorPool) -> None:
    """Add the v1 reflection file to ``pool`` (once), made from the v1alpha one."""
    try:
        pool.FindServiceByName(V1_SERVICE_NAME)
        return
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name = "grpc/reflection/v1/reflection.proto"
    proto.package = "grpc.reflection.v1"
    proto.ClearField("options")

    def renamed(type_name: str) -> str:
        return type_name.replace(_V1ALPHA_PREFIX, _V1_PREFIX, 1)

    for message in proto.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = renamed(field.type_name)
    for service in proto.service:
        for method in service.method:
            method.input_type = renamed(method.input_type)
            method.output_type = renamed(method.output_type)
    pool.AddSerializedFile(proto.SerializeToString())


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serve reflection v1 and v1alpha for ``service_names`` (both listed as well)."""
    _register_v1_descriptor(descriptor_pool.Default())
    servicer = reflection.aio.ReflectionServicer(
        (*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
    )
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    v1 = grpc.method_handlers_generic_handler(
        V1_SERVICE_NAME,
        {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                servicer.ServerReflectionInfo,
                request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
                response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
            )
        },
    )
    server.add_generic_rpc_handlers((v1,))
