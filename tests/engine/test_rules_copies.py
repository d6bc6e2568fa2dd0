"""The catalogue's rules text is the project's rules documents, word for word."""

from __future__ import annotations

from pathlib import Path

import pytest

from parlour.engine.registry import all_games

PACKAGED = Path(__file__).resolve().parents[2] / "services/parlour/engine/rules"
SHARED = Path(__file__).resolve().parents[3] / "shared/rules"


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/rules is not beside this checkout")
@pytest.mark.parametrize("name", sorted(p.name for p in PACKAGED.glob("*.md")))
def test_packaged_rules_match_the_shared_documents(name: str) -> None:
    assert (PACKAGED / name).read_text() == (SHARED / name).read_text()


def test_every_game_publishes_its_rules_text() -> None:
    for info in all_games():
        assert info.rules_text.strip(), info.id
        assert info.options is not None
