"""The browser's word catalogues (clients/web/i18n/en.js and pl.js), read by Node.js
through the page's own i18n.js: every key in both languages, each plural with
the CLDR forms of its language, the same placeholders in both, every key the
page's modules ask for present, and the Polish plurals right for 1, 2, 5, 12,
22 and 25 (1 karta, 2 karty, 5 kart, 12 kart, 22 karty, 25 kart).

Needs Node.js: skipped without it, except under CI=true where that fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
#: The plural forms each language's entries need (CLDR categories for whole numbers, and
#: Polish "other" for fractions).
FORMS = {"en": {"one", "other"}, "pl": {"one", "few", "many", "other"}}

SCRIPT = """
const { CATALOGUES, SERVER_TEXT, t } = await import(process.argv[1]);
const said = {};
for (const n of [1, 2, 5, 12, 22, 25]) said[n] = t("cards.count", { count: n }, "pl");
const tricks = [1, 2, 5].map((n) => t("facts.tricks", { count: n }, "pl"));
const points = [1, 3, 25].map((n) => t("facts.points_this_hand", { count: n }, "pl"));
console.log(JSON.stringify({ catalogues: CATALOGUES, server: SERVER_TEXT, said, tricks, points }));
"""


@cache
def _read() -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true needs Node.js for the catalogue test", pytrace=False)
        pytest.skip("Node.js is not installed")
    done = subprocess.run(
        [node, "--input-type=module", "-e", SCRIPT, (WEB / "i18n.js").as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _placeholders(entry: str | dict[str, str]) -> set[str]:
    texts = entry.values() if isinstance(entry, dict) else [entry]
    return {name for text in texts for name in re.findall(r"\{(\w+)\}", text)}


def test_every_key_is_in_both_languages_with_its_plural_forms() -> None:
    catalogues = _read()["catalogues"]
    en, pl = catalogues["en"], catalogues["pl"]
    assert sorted(set(en) - set(pl)) == [], "keys missing in Polish"
    assert sorted(set(pl) - set(en)) == [], "keys missing in English"
    for code, catalogue in catalogues.items():
        for key, entry in catalogue.items():
            assert entry, f"{code}: {key} is empty"
            if isinstance(entry, dict):
                assert set(entry) == FORMS[code], f"{code}: {key} has the forms {sorted(entry)}"
    for key in en:
        # the whole-number forms share the placeholders of the "other" form
        assert _placeholders(en[key]) <= _placeholders(pl[key]) | {"count"}, key
        assert _placeholders(pl[key]) <= _placeholders(en[key]) | {"count"}, key


def test_every_key_the_page_asks_for_is_in_the_catalogue() -> None:
    en = _read()["catalogues"]["en"]
    asked: set[str] = set()
    for module in WEB.glob("*.js"):
        text = module.read_text(encoding="utf-8")
        asked |= set(re.findall(r"""\b(?:t|say)\(\s*"([a-z0-9_.]+)\"""", text))
        asked |= set(re.findall(r"""(?:key|fail)\(?:? ?"([a-z0-9_]+\.[a-z0-9_.]+)\"""", text))
    # keys built from the contract's values: suits, ranks, phases, directions, bot levels
    asked |= {f"suit.{s}" for s in "CDHS"} | {f"rank.{r}" for r in "AKQJ"}
    asked |= {f"phase.{p}" for p in ("lobby", "deal", "pass", "trump", "bid", "play", "over")}
    asked |= {f"direction.{d}" for d in ("left", "right", "across", "none", "keep")}
    asked |= {f"level.{lv}" for lv in ("random", "easy", "normal", "hard", "expert")}
    assert len(asked) > 150  # the scan found the page's keys
    assert sorted(key for key in asked if key not in en) == []


def test_polish_plurals() -> None:
    read = _read()
    assert read["said"] == {
        "1": "1 karta",
        "2": "2 karty",
        "5": "5 kart",
        "12": "12 kart",
        "22": "22 karty",
        "25": "25 kart",
    }
    assert read["tricks"] == ["1 lewa", "2 lewy", "5 lew"]
    assert read["points"] == ["1 punkt w rozdaniu", "3 punkty w rozdaniu", "25 punktów w rozdaniu"]


def test_polish_game_terms() -> None:
    pl = _read()["catalogues"]["pl"]
    assert [pl[f"suit.{s}"] for s in "HDSC"] == ["kier", "karo", "pik", "trefl"]
    assert pl["chip.trump"] == "atut" and pl["phase.bid"] == "licytacja"
    assert "lewę" in pl["trick.takes"].lower() and "rozdanie" in pl["table.hand_phase"]
    assert _read()["server"]["pl"]["game.hearts.name"] == "Kierki"
