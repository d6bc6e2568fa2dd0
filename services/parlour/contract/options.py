"""A game's table options (their schema) to and from the contract.

An option's values cross as text ("true", "7", "no_passing"); read back, the
option's type says how to parse them.
"""

from __future__ import annotations

from parlour.contract.cards import by_name, inverse
from parlour.engine.options import OptionSpec, OptionType, OptionValue
from parlour.v1 import catalogue_pb2

OPTION_TYPE_TO_PROTO: dict[OptionType | None, catalogue_pb2.OptionType.ValueType] = by_name(
    OptionType, catalogue_pb2.OptionType, "OPTION_TYPE_"
)
_OPTION_TYPE_FROM: dict[catalogue_pb2.OptionType.ValueType, OptionType] = inverse(
    OPTION_TYPE_TO_PROTO
)


def option_text(value: object) -> str:
    """An option value as the contract writes it ("true", "7", "no_passing")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def option_value(kind: OptionType, text: str) -> OptionValue:
    """An option value of type ``kind`` from the contract's text."""
    if kind is OptionType.BOOL:
        return text == "true"
    if kind is OptionType.INT:
        return int(text)
    return text


def option_spec_to_proto(spec: OptionSpec) -> catalogue_pb2.OptionSpec:
    return catalogue_pb2.OptionSpec(
        name=spec.name,
        type=OPTION_TYPE_TO_PROTO[spec.type],
        default_value=option_text(spec.default),
        allowed_values=[option_text(value) for value in spec.allowed],
        description=spec.description,
    )


def option_spec_from_proto(message: catalogue_pb2.OptionSpec) -> OptionSpec:
    kind = _OPTION_TYPE_FROM[message.type]
    return OptionSpec(
        name=message.name,
        type=kind,
        default=option_value(kind, message.default_value),
        allowed=tuple(option_value(kind, text) for text in message.allowed_values),
        description=message.description,
    )
