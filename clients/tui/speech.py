"""The terminal client's language: English or Polish, from the system's locale or
``parlour play --lang``, switched with a key (l).

Every word the client shows comes from the phrasebook's catalogue: its own
(``tui.*`` entries, :func:`t`), the server's (labels and events, asked for in
the same language through ``accept-language``) and the refusal reasons.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from parlour.client import ParlourError
from parlour.words import (
    LANGUAGES,
    current,
    negotiate,
    phrase,
    say,
    say_phrase,
    set_process_language,
)
from parlour.words.catalogue import has


def system_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the system's locale (LC_ALL, LC_MESSAGES, LANG): "pl" or "en"."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value and value not in ("C", "POSIX") and not value.startswith("C."):
            return negotiate(value)
    return negotiate(None)


def use(language: str) -> str:
    """Speak ``language`` from now on (every screen); returns the language set."""
    return set_process_language(language)


def language() -> str:
    return current()


def next_language() -> str:
    """The language after the current one (the switch key cycles through them)."""
    index = LANGUAGES.index(current()) if current() in LANGUAGES else 0
    return LANGUAGES[(index + 1) % len(LANGUAGES)]


def t(key: str, /, **args: object) -> str:
    """The client's own sentence ``tui.<key>`` in the current language."""
    return phrase(f"tui.{key}", None, **args)


def why_not(error: ParlourError, name: Callable[[int], str]) -> str:
    """A refusal in one line, in the player's language: from its reason code where
    the server sent one (seats said by ``name``), else its English message."""
    key = f"reason.{error.reason}"
    if error.reason and has(key):
        return say(say_phrase(key, None, **error.reason_args), name)
    return say(error.message, name)
