"""The limits table and the contract cannot drift apart.

Every string and repeated field of every request message (and of the
messages inside them) has a limit in ``parlour.service.grpc.limits.LIMITS``, and
the field's comment in the .proto file states the same number.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from parlour.service.grpc.limits import LIMITS, MAX_REQUEST_BYTES, check_request
from parlour.v1 import (
    accounts_pb2,
    analysis_pb2,
    bots_pb2,
    catalogue_pb2,
    home_pb2,
    lobby_pb2,
    play_pb2,
    replay_pb2,
)

PROTO = Path(__file__).resolve().parents[2] / "proto"
MODULES = (
    catalogue_pb2,
    lobby_pb2,
    play_pb2,
    replay_pb2,
    bots_pb2,
    accounts_pb2,
    home_pb2,
    analysis_pb2,
)


def request_types() -> list[Descriptor]:
    return [
        method.input_type
        for module in MODULES
        for service in module.DESCRIPTOR.services_by_name.values()
        for method in service.methods
    ]


def reachable_fields(roots: list[Descriptor]) -> Iterator[FieldDescriptor]:
    """Every field of the request messages and of the messages they contain."""
    seen: set[str] = set()
    stack = list(roots)
    while stack:
        message = stack.pop()
        if message.full_name in seen:
            continue
        seen.add(message.full_name)
        for field in message.fields:
            yield field
            if field.message_type is not None:
                stack.append(field.message_type)


def limited_fields() -> list[FieldDescriptor]:
    return [
        field
        for field in reachable_fields(request_types())
        if field.is_repeated or field.type == FieldDescriptor.TYPE_STRING
    ]


def is_map(field: FieldDescriptor) -> bool:
    return field.message_type is not None and field.message_type.GetOptions().map_entry


def comments() -> dict[str, str]:
    """Field full name -> its leading comment in the .proto files (protoc's source info)."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{PROTO}",
            "--include_source_info",
            "--descriptor_set_out=/dev/stdout",
            *sorted(str(path) for path in (PROTO / "parlour" / "v1").glob("*.proto")),
        ],
        check=True,
        capture_output=True,
    ).stdout
    files = descriptor_pb2.FileDescriptorSet.FromString(out)
    found: dict[str, str] = {}
    for file in files.file:
        by_path = {
            tuple(location.path): location.leading_comments
            for location in file.source_code_info.location
        }
        stack = [
            (message, file.package, (4, index)) for index, message in enumerate(file.message_type)
        ]
        while stack:
            message, prefix, path = stack.pop()
            name = f"{prefix}.{message.name}"
            for index, field in enumerate(message.field):
                comment = by_path.get((*path, 2, index), "")
                found[f"{name}.{field.name}"] = " ".join(comment.split())
            for index, nested in enumerate(message.nested_type):
                stack.append((nested, name, (*path, 3, index)))
    return found


def test_every_string_and_repeated_request_field_has_a_limit() -> None:
    missing = [field.full_name for field in limited_fields() if field.full_name not in LIMITS]
    assert missing == [], f"give these fields a limit in limits.LIMITS: {missing}"
    repeated_strings = [
        field
        for field in limited_fields()
        if field.is_repeated and field.type == FieldDescriptor.TYPE_STRING
    ]
    assert all(f"{field.full_name}.item" in LIMITS for field in repeated_strings)
    known = {field.full_name for field in limited_fields()}
    stale = [name for name in LIMITS if name.removesuffix(".item") not in known]
    assert stale == [], f"limits for fields no request has: {stale}"


def test_each_proto_comment_states_the_enforced_limit() -> None:
    text = comments()
    wrong = []
    for field in limited_fields():
        if field.containing_type.GetOptions().map_entry:
            continue  # stated on the map field itself, below
        comment = text[field.full_name]
        limit = LIMITS[field.full_name]
        if field.is_repeated:
            wanted = [rf"\bat most {limit} \w+"]
            if is_map(field):
                entry = field.message_type.full_name
                for part in ("key", "value"):
                    wanted.append(rf"\bat most {LIMITS[f'{entry}.{part}']} characters")
            elif f"{field.full_name}.item" in LIMITS:
                wanted.append(rf"\bat most {LIMITS[f'{field.full_name}.item']} characters")
        else:
            wanted = [rf"\b(at most|to) {limit} characters"]
        for pattern in wanted:
            if not re.search(pattern, comment, re.IGNORECASE):
                wrong.append(f"{field.full_name}: {pattern!r} not in {comment!r}")
    assert wrong == []


def test_the_largest_valid_requests_fit_the_message_size_limit() -> None:
    """Each request with every limited field at its limit, in 4-byte characters."""
    wide = "\U0001f0a1"
    for request_type in request_types():
        request = _filled(request_type, wide)
        check_request(request)  # within every limit
        assert request.ByteSize() < MAX_REQUEST_BYTES / 2, request_type.full_name


def _filled(message_type: Descriptor, char: str):  # type: ignore[no-untyped-def]
    from google.protobuf import message_factory

    message = message_factory.GetMessageClass(message_type)()
    for field in message_type.fields:
        if field.containing_oneof is not None and field.containing_oneof.fields[0] is not field:
            continue
        limit = LIMITS.get(field.full_name, 0)
        if is_map(field):
            entry = field.message_type.full_name
            key_length, value_length = LIMITS[f"{entry}.key"], LIMITS[f"{entry}.value"]
            target = getattr(message, field.name)
            for number in range(limit):
                key = f"{number:04d}" + char * (key_length - 4)
                target[key] = char * value_length
        elif field.is_repeated:
            target = getattr(message, field.name)
            for _ in range(limit):
                if field.type == FieldDescriptor.TYPE_MESSAGE:
                    target.add().CopyFrom(_filled(field.message_type, char))
                elif field.type == FieldDescriptor.TYPE_STRING:
                    target.append(char * LIMITS[f"{field.full_name}.item"])
        elif field.type == FieldDescriptor.TYPE_STRING:
            setattr(message, field.name, char * limit)
        elif field.type == FieldDescriptor.TYPE_MESSAGE:
            getattr(message, field.name).CopyFrom(_filled(field.message_type, char))
    return message


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_one_past_each_limit_is_refused_naming_the_field(name: str) -> None:
    from parlour.service.grpc.limits import LimitExceeded

    field_name = name.removesuffix(".item")
    for request_type in request_types():
        request = _filled(request_type, "x")
        path = _path_to(request_type, field_name)
        if path is None:
            continue
        _overfill(request, path, name.endswith(".item"))
        with pytest.raises(LimitExceeded, match=f"the limit is {LIMITS[name]}"):
            check_request(request)
        return
    pytest.fail(f"no request reaches {name}")


def _path_to(message_type: Descriptor, full_name: str) -> list[FieldDescriptor] | None:
    for field in message_type.fields:
        if field.full_name == full_name:
            return [field]
        if field.message_type is not None and field.message_type is not message_type:
            rest = _path_to(field.message_type, full_name)
            if rest is not None:
                return [field, *rest]
    return None


def _overfill(message, path: list[FieldDescriptor], per_item: bool) -> None:  # type: ignore[no-untyped-def]
    field, rest = path[0], path[1:]
    if rest and is_map(field):
        target = getattr(message, field.name)
        key = next(iter(target))
        if rest[0].name == "key":
            del target[key]
            target["k" * (LIMITS[rest[0].full_name] + 1)] = "v"
        else:
            target[key] = "v" * (LIMITS[rest[0].full_name] + 1)
        return
    if rest:
        value = getattr(message, field.name)
        _overfill(value[0] if field.is_repeated else value, rest, per_item)
        return
    limit = LIMITS[field.full_name]
    if field.is_repeated and per_item:
        target = getattr(message, field.name)
        if not target:  # in a oneof branch _filled left empty
            target.append("x")
        target[0] = "x" * (LIMITS[f"{field.full_name}.item"] + 1)
    elif is_map(field):
        getattr(message, field.name)["extra"] = "1"
    elif field.is_repeated:
        target = getattr(message, field.name)
        while len(target) <= limit:  # one past the limit, even where _filled left it empty
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                target.add()
            else:
                target.append("x")
    else:
        setattr(message, field.name, "x" * (limit + 1))
