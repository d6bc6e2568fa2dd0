"""The footer's words for a screen's keys, in the client's language.

Textual's footer shows each binding's description; a screen lists its actions'
words as phrasebook keys in ``KEY_WORDS`` (action -> ``tui.`` key) and calls
:func:`speak_keys` when it mounts and after a language switch (F2). The
bindings of the class stay as written (in English, for the code's reader);
each screen's own copy is the one said.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from textual.dom import DOMNode

from .speech import t


def speak_keys(node: DOMNode, words: Mapping[str, str] | None = None) -> None:
    """Say ``node``'s bindings in the current language (``words``: its ``KEY_WORDS``)."""
    said = words if words is not None else getattr(type(node), "KEY_WORDS", {})
    bindings = node._bindings.key_to_bindings
    for key, listed in list(bindings.items()):
        bindings[key] = [
            replace(binding, description=t(said[binding.action]))
            if binding.action in said and binding.description
            else binding
            for binding in listed
        ]
    node.refresh_bindings()
