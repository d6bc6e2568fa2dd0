"""The phrasebook's catalogues: every key in both languages, plurals by CLDR, and
every refusal reason the engine and the service can raise said in both.

The reasons are read from the code itself: each ``raise`` of an engine error
in ``services/parlour/engine`` (its ``reason=`` and keyword arguments, by
``ast``), each error class's ``REASON``, and the list in ``common.proto``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from parlour.engine import errors as engine_errors
from parlour.service.domain import errors as service_errors
from parlour.service.grpc.limits import LimitExceeded
from parlour.service.grpc.status import refusal_for
from parlour.words import LANGUAGES, phrase, plural_form, say_phrase
from parlour.words.catalogue import PLURAL_CATEGORIES, catalogue, placeholders

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "services/parlour/engine"
ENGINE_ERRORS = {"IllegalAction", "NotYourTurn", "GameOver"}


def test_every_key_is_in_both_languages_with_the_same_placeholders() -> None:
    english, polish = catalogue("en"), catalogue("pl")
    assert set(english) == set(polish), set(english) ^ set(polish)
    for key in english:
        assert placeholders(english[key]) == placeholders(polish[key]), key


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_counted_entry_has_every_plural_form_its_language_uses(language: str) -> None:
    used = {plural_form(language, n) for n in range(200)}
    for key, entry in catalogue(language).items():
        if isinstance(entry, dict):
            assert set(entry) <= set(PLURAL_CATEGORIES), key
            assert used <= set(entry), f"{language} {key} lacks {used - set(entry)}"


def test_polish_plurals_follow_cldr() -> None:
    said = [phrase("cards.count", "pl", count=n) for n in (1, 2, 5, 12, 22, 25)]
    assert said == ["1 karta", "2 karty", "5 kart", "12 kart", "22 karty", "25 kart"]
    tricks = [phrase("tricks.count", "pl", count=n) for n in (1, 2, 5, 12, 22, 25)]
    assert tricks == ["1 lewa", "2 lewy", "5 lew", "12 lew", "22 lewy", "25 lew"]
    assert [phrase("cards.count", "en", count=n) for n in (1, 2)] == ["1 card", "2 cards"]


def _engine_raises() -> list[tuple[str, str, str, set[str]]]:
    """(where, error class, reason, keyword arguments) of every engine raise."""
    found = []
    for path in sorted(ENGINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            called = node.exc.func
            name = called.id if isinstance(called, ast.Name) else ""
            if not hasattr(engine_errors, name):
                continue
            keywords = {k.arg: k.value for k in node.exc.keywords if k.arg}
            where = f"{path.name}:{node.lineno}"
            reason_node = keywords.pop("reason", None)
            if reason_node is None:
                reasons = [getattr(engine_errors, name).REASON]
            else:
                reasons = [
                    c.value
                    for c in ast.walk(reason_node)
                    if isinstance(c, ast.Constant)
                    and isinstance(c.value, str)
                    and re.fullmatch(r"[A-Z][A-Z0-9_]+", c.value)
                ]
            found += [(where, name, reason, set(keywords)) for reason in reasons]
    return found


def test_every_refusal_of_a_move_names_its_own_reason() -> None:
    raises = _engine_raises()
    assert len(raises) > 40
    for where, name, reason, _ in raises:
        if name in ENGINE_ERRORS:
            assert reason != engine_errors.EngineError.REASON, f"{where}: no reason= given"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_engine_reason_is_said_with_the_arguments_its_raise_gives(language: str) -> None:
    for where, _, reason, given in _engine_raises():
        entry = catalogue(language).get(f"reason.{reason}")
        assert entry is not None, f"{where}: reason.{reason} missing in {language}"
        missing = placeholders(entry) - given
        assert not missing, f"{where}: reason.{reason} needs {missing}"


def _error_classes() -> list[type[BaseException]]:
    classes: list[type[BaseException]] = [LimitExceeded]
    for module in (engine_errors, service_errors):
        classes += [
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, Exception)
        ]
    return classes


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_error_class_maps_to_a_reason_said_in_both_languages(language: str) -> None:
    for kind in _error_classes():
        error = kind("rule", "detail") if issubclass(kind, engine_errors.EngineError) else kind("m")
        reason, _ = refusal_for(error)
        assert reason == kind.REASON, kind  # type: ignore[attr-defined]
        assert f"reason.{reason}" in catalogue(language), (kind, language)
    for other in ("TABLE_NOT_FOUND", "CONFLICT", "UNAVAILABLE", "INTERNAL"):
        assert f"reason.{other}" in catalogue(language)


def test_the_contract_lists_exactly_the_reasons_the_catalogue_says() -> None:
    proto = (ROOT / "proto/parlour/v1/common.proto").read_text("utf-8")
    listed = set(re.findall(r"^//   ([A-Z][A-Z0-9_]+)\b(?:  \{|$)", proto, re.MULTILINE))
    said = {key.removeprefix("reason.") for key in catalogue("en") if key.startswith("reason.")}
    assert listed == said, listed ^ said
    raised = {reason for _, _, reason, _ in _engine_raises()}
    assert raised <= said


def test_a_reason_is_said_with_cards_suits_and_seats_in_each_language() -> None:
    args = {"seat": "1", "card": "QS", "led": "H"}
    assert say_phrase("reason.MUST_FOLLOW_SUIT", "en", **args) == (
        "You must follow suit (hearts): Q♠ cannot be played now."
    )
    assert say_phrase("reason.MUST_FOLLOW_SUIT", "pl", **args) == (
        "Musisz dołożyć do koloru (kier): nie możesz teraz zagrać D♠."
    )
    assert say_phrase("event.play", "pl", seat=2, card="W1") == "Seat 2 zagrywa czarownik"
    assert say_phrase("reason.BID_TOO_LOW", "pl", holder=0, standing="7NT") == (
        "Każda odzywka musi przebić poprzednią: seat 0 licytuje 7 bez atu."
    )
