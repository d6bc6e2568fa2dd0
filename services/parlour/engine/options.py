"""Typed table options: the schema every game publishes for its toggles."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from parlour.engine.errors import InvalidOptions

OptionValue = bool | int | str


class OptionType(Enum):
    BOOL = "bool"
    INT = "int"
    CHOICE = "choice"


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One toggle: its name, type, allowed values, default and description."""

    name: str
    type: OptionType
    default: OptionValue
    allowed: tuple[OptionValue, ...]
    description: str

    def coerce(self, value: object) -> OptionValue:
        """Check ``value`` against the schema (accepting its text form too)."""
        converted: object = value
        if isinstance(value, str) and self.type is OptionType.BOOL:
            lowered = value.strip().lower()
            converted = {"true": True, "on": True, "1": True, "yes": True}.get(
                lowered, False if lowered in ("false", "off", "0", "no") else value
            )
        elif isinstance(value, str) and self.type is OptionType.INT:
            try:
                converted = int(value)
            except ValueError:
                converted = value
        elif isinstance(value, bool) and self.type is OptionType.INT:
            converted = value  # bool is an int in Python: refuse below
        if self.type is OptionType.BOOL and not isinstance(converted, bool):
            raise InvalidOptions(self.name, f"{value!r} is not true or false")
        if self.type is OptionType.INT and (
            isinstance(converted, bool) or not isinstance(converted, int)
        ):
            raise InvalidOptions(self.name, f"{value!r} is not a whole number")
        if self.type is OptionType.CHOICE:
            converted = str(converted)
        if converted not in self.allowed:
            allowed = ", ".join(str(a) for a in self.allowed)
            raise InvalidOptions(self.name, f"{value!r} is not allowed (choose from {allowed})")
        assert isinstance(converted, bool | int | str)
        return converted


def resolve_options(
    specs: tuple[OptionSpec, ...], given: Mapping[str, object] | None
) -> dict[str, OptionValue]:
    """Fill defaults and validate ``given`` against ``specs``; unknown names are refused."""
    given = dict(given or {})
    known = {spec.name for spec in specs}
    unknown = sorted(set(given) - known)
    if unknown:
        raise InvalidOptions(
            "table options", f"unknown option {unknown[0]!r} (known: {', '.join(sorted(known))})"
        )
    return {
        spec.name: spec.coerce(given[spec.name]) if spec.name in given else spec.default
        for spec in specs
    }
