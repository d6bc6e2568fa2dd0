"""The phrasebook's catalogues: one JSON file per language, whole sentences with names.

``en.json`` and ``pl.json`` beside this module map a key ("suit.H",
"event.play", "reason.MUST_FOLLOW_SUIT", "tui.hand") to a whole sentence with
named placeholders ("{seat} played {card}"), or, where the sentence counts
something, to its CLDR plural forms keyed by category ("one", "few", "many",
"other"), chosen by the ``count`` argument with Babel's plural rules (the
browser reads the same files and chooses with ``Intl.PluralRules``). Nothing
is glued from pieces: a sentence that differs by person or count is its own
entry. The language of a call is :data:`LANGUAGE` (a context variable the
gRPC edge sets from the ``accept-language`` metadata, :func:`negotiate`).
"""

from __future__ import annotations

import json
import string
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from babel.core import Locale, negotiate_locale
from babel.plural import PluralRule

#: the languages with a catalogue, the first the default
LANGUAGES = ("en", "pl")
DEFAULT_LANGUAGE = "en"
#: the language words are said in for the current call or task (the gRPC edge sets it
#: per call); where it is not set, the process's language (:func:`set_process_language`)
LANGUAGE: ContextVar[str] = ContextVar("parlour_language")
_PROCESS = [DEFAULT_LANGUAGE]
#: the CLDR plural categories a counted entry may have ("other" is required)
PLURAL_CATEGORIES = ("zero", "one", "two", "few", "many", "other")

_HERE = Path(__file__).resolve().parent

Entry = str | dict[str, str]


@cache
def catalogue(language: str) -> Mapping[str, Entry]:
    """The catalogue of ``language`` ("en", "pl"), read once from its JSON file."""
    if language not in LANGUAGES:
        raise KeyError(f"no catalogue for language {language!r} (known: {', '.join(LANGUAGES)})")
    loaded: dict[str, Entry] = json.loads((_HERE / f"{language}.json").read_text("utf-8"))
    return loaded


@cache
def _plural(language: str) -> PluralRule:
    # the rule itself: Locale.plural_form looks it up in the locale's data each time
    return Locale.parse(language).plural_form


def plural_form(language: str, count: int) -> str:
    """The CLDR plural category of ``count`` in ``language``: pl 1 "one", 2 "few", 5 "many"."""
    return str(_plural(language)(count))


def negotiate(header: str | None) -> str:
    """The catalogue language best matching an Accept-Language value or a locale
    name ("pl-PL,pl;q=0.9,en;q=0.8", "pl_PL.UTF-8"); English when none matches."""
    if not header:
        return DEFAULT_LANGUAGE
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        tag = tag.split(".")[0].split("@")[0].strip().replace("_", "-").lower()
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if tag and tag != "*" and quality > 0:
            ranked.append((-quality, index, tag))
    preferred = [tag for _, _, tag in sorted(ranked)]
    found = negotiate_locale(preferred, LANGUAGES, sep="-")
    return found if found in LANGUAGES else DEFAULT_LANGUAGE


def current() -> str:
    """The language of the current call (or of the process, outside any call)."""
    return LANGUAGE.get(_PROCESS[0])


def set_process_language(language: str) -> str:
    """Say words in ``language`` wherever no call chose one (a terminal client's
    every screen and task); an unknown language is English. Returns the one set."""
    _PROCESS[0] = language if language in LANGUAGES else DEFAULT_LANGUAGE
    return _PROCESS[0]


@contextmanager
def speaking(language: str) -> Iterator[str]:
    """Say words in ``language`` inside the block (a call, a client's session)."""
    token = LANGUAGE.set(language if language in LANGUAGES else DEFAULT_LANGUAGE)
    try:
        yield current()
    finally:
        LANGUAGE.reset(token)


def placeholders(entry: Entry) -> set[str]:
    """The named placeholders of an entry (of all its plural forms)."""
    texts = entry.values() if isinstance(entry, dict) else (entry,)
    return {
        name
        for text in texts
        for _, name, _, _ in string.Formatter().parse(text)
        if name is not None and name != ""
    }


def phrase(key: str, language: str | None = None, /, **args: object) -> str:
    """The sentence ``key`` in ``language`` (the call's by default), its placeholders
    filled from ``args``; a counted entry takes its form from ``args["count"]``."""
    lang = language or current()
    entry = catalogue(lang).get(key)
    if entry is None:
        entry = catalogue(DEFAULT_LANGUAGE)[key]
        lang = DEFAULT_LANGUAGE
    if isinstance(entry, dict):
        count = args.get("count", 0)
        form = plural_form(lang, count if isinstance(count, int) else 0)
        entry = entry.get(form) or entry["other"]
    return entry.format_map(_Args(args))


class _Args(dict[str, object]):
    """A sentence's arguments; one missing is shown as "?" rather than failing a call."""

    def __missing__(self, key: str) -> str:
        return "?"


def has(key: str, language: str | None = None) -> bool:
    """Whether the catalogue of ``language`` has ``key``."""
    return key in catalogue(language or current())
