"""Hypothesis strategies for any request message of the contract, built from its descriptor.

Nothing here is written per RPC: a field's values come from its type, its
limit in ``parlour.service.grpc.limits.LIMITS`` (values at, just past and far past
it) and, for fields that name something (a table, a game, an option, an
action), the real names the campaign has seen, so that requests reach the
engine and the database as well as the edge checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import strategies as st

from parlour.service.grpc.limits import LIMITS

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
ODD_TEXT = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\t",
    "line\nbreak",
    "\x7f",
    "\x85",
    "\u200b",
    "\ufeff",
    "\U0001f0a1",
    "'; DROP TABLE events; --",
    "%s%s%n",
    "../../etc/passwd",
    "null",
    "{}",
    "QS",
    "10H",
    "Q♠",
]
ACTION_TEXT = [
    "pass",
    "draw",
    "play QS",
    "play 2C",
    "play 8S name H",
    "play W1",
    "play N1",
    "bid 0",
    "bid 3",
    "bid 7NT",
    "bid 12",
    "trump H",
    "give QS",
    "give 2C",
    "PLAY qs",
    "play 10H",
    "play Q♠",
]


@dataclass
class Known:
    """Real names seen so far, by field name ("table_id", "game", ...)."""

    values: dict[str, list[str]] = field(default_factory=dict)

    def add(self, name: str, value: str) -> None:
        pool = self.values.setdefault(name, [])
        if value and value not in pool:
            pool.append(value)
            if len(pool) > 200:
                del pool[0]

    def pool(self, name: str) -> list[str]:
        return self.values.get(name, [])


def text(limit: int, known: Callable[[], list[str]]) -> st.SearchStrategy[str]:
    """Strings for a field of ``limit`` characters: real names, junk, at and past the limit."""

    # The pools grow as the campaign goes: draw an index, so every draw asks the same
    # question of hypothesis whatever the pools hold (it insists on that).
    @st.composite
    def real(draw: st.DrawFn) -> str:
        index = draw(st.integers(0, 2**16))
        pool = known()
        return pool[index % len(pool)] if pool else ""

    other = st.one_of(
        st.sampled_from(ODD_TEXT),
        st.text(max_size=min(limit, 20)),
        st.text(min_size=limit, max_size=limit),
        st.text(alphabet="x", min_size=limit, max_size=limit),
        st.text(alphabet="\U0001f0a1", min_size=limit, max_size=limit),
        st.text(min_size=limit + 1, max_size=limit + 2),
        st.sampled_from(["x" * (10 * limit + 10), "\x00" * (limit + 1)]),
    )
    # mostly real names, so that most requests get past the edge into the service
    return st.one_of(real(), real(), real(), st.text(alphabet="abcdefgh P", max_size=12), other)


def integers(field: FieldDescriptor) -> st.SearchStrategy[int]:
    bounds = (
        INT64 if field.type in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64) else INT32
    )
    return st.one_of(
        st.integers(-2, 8),
        st.integers(-2, 400),
        st.sampled_from([bounds[0], bounds[1], 100, 101, 500, 501, 2**31 - 1]),
        st.integers(*bounds),
    )


def doubles() -> st.SearchStrategy[float]:
    # ClaimTurn waits up to wait_seconds: keep the valid waits short so the campaign moves on.
    return st.one_of(
        st.just(0.0),
        st.floats(0, 0.05),
        st.sampled_from([-1.0, 60.0, 60.000001, 1e300, -1e300]),
        st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not 0.05 < x <= 60),
    )


def enums(enum: EnumDescriptor) -> st.SearchStrategy[int]:
    numbers = [value.number for value in enum.values]
    return st.one_of(st.sampled_from(numbers), st.integers(-3, max(numbers) + 3))


class MessageStrategies:
    """Strategies for every message type, from descriptors, drawing names from ``known``."""

    def __init__(self, known: Known) -> None:
        self.known = known
        # built once each: making a strategy costs far more than drawing from it
        self._messages: dict[tuple[str, int], st.SearchStrategy[Message]] = {}
        self._scalars: dict[tuple[str, str, str], st.SearchStrategy[Any]] = {}

    def for_message(self, descriptor: Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
        key = (descriptor.full_name, depth)
        if key not in self._messages:
            self._messages[key] = self._for_message(descriptor, depth)
        return self._messages[key]

    def _for_message(self, descriptor: Descriptor, depth: int) -> st.SearchStrategy[Message]:
        message_class = message_factory.GetMessageClass(descriptor)
        plain = [f for f in descriptor.fields if f.containing_oneof is None]
        oneofs = list(descriptor.oneofs)

        @st.composite
        def build(draw: st.DrawFn) -> Message:
            message = message_class()
            for item in plain:
                if draw(st.integers(0, 4)):  # each field set four times in five
                    self._set(message, item, draw, depth)
            for oneof in oneofs:
                choice = draw(st.sampled_from([None, *oneof.fields]))
                if choice is not None:
                    self._set(message, choice, draw, depth)
            return message

        return build()

    def _set(self, message: Message, item: FieldDescriptor, draw: st.DrawFn, depth: int) -> None:
        if item.message_type is not None and item.message_type.GetOptions().map_entry:
            self._fill_map(message, item, draw)
        elif item.is_repeated:
            limit = LIMITS.get(item.full_name, 4)
            count = draw(st.one_of(st.integers(0, 3), st.sampled_from([limit, limit + 1])))
            target = getattr(message, item.name)
            for _ in range(count):
                if item.type == FieldDescriptor.TYPE_MESSAGE:
                    target.add().CopyFrom(draw(self.for_message(item.message_type, depth + 1)))
                else:
                    target.append(draw(self.scalar(item, f"{item.full_name}.item")))
        elif item.type == FieldDescriptor.TYPE_MESSAGE:
            if depth < 3:
                getattr(message, item.name).CopyFrom(
                    draw(self.for_message(item.message_type, depth + 1))
                )
        else:
            setattr(message, item.name, draw(self.scalar(item)))

    def _fill_map(self, message: Message, item: FieldDescriptor, draw: st.DrawFn) -> None:
        entry = item.message_type
        limit = LIMITS.get(item.full_name, 4)
        count = draw(st.one_of(st.integers(0, 3), st.sampled_from([limit, limit + 1])))
        key_field, value_field = entry.fields_by_name["key"], entry.fields_by_name["value"]
        target = getattr(message, item.name)
        for _ in range(count):
            key = draw(self.scalar(key_field, name="option"))
            target[key] = draw(self.scalar(value_field, name="option_value"))

    def scalar(
        self, item: FieldDescriptor, limit_name: str = "", name: str = ""
    ) -> st.SearchStrategy[Any]:
        key = (item.full_name, limit_name, name)
        if key not in self._scalars:
            self._scalars[key] = self._scalar(item, limit_name, name)
        return self._scalars[key]

    def _scalar(self, item: FieldDescriptor, limit_name: str, name: str) -> st.SearchStrategy[Any]:
        kind = item.type
        if kind == FieldDescriptor.TYPE_STRING:
            limit = LIMITS.get(limit_name or item.full_name, 64)
            pool_name = name or item.name
            if item.full_name == "parlour.v1.Action.text":
                pool_name = "action_text"
            return text(limit, lambda: self.known.pool(pool_name))
        if kind == FieldDescriptor.TYPE_BOOL:
            return st.booleans()
        if kind == FieldDescriptor.TYPE_ENUM:
            return enums(item.enum_type)
        if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
            return doubles()
        if kind == FieldDescriptor.TYPE_BYTES:
            return st.binary(max_size=64)
        return integers(item)
