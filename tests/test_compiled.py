"""The modules setup.py compiles with mypyc: the compiled code is the current source.

An editable install (``make install``) builds them in place, beside their
``.py`` files, and Python then imports the compiled module: after an edit of
the source it must be rebuilt (``make install`` does that when the file is
newer), or every test would check the old code. Without mypyc the package is
plain Python and there is nothing to check.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPILED = (
    "parlour.engine.hearts",
    "parlour.ai.hearts_search",
    "parlour.ai.wizard_search",
    "parlour.ai.crazy8s_search",
)


@pytest.mark.parametrize("name", COMPILED)
def test_a_compiled_module_is_not_older_than_its_source(name: str) -> None:
    module = importlib.import_module(name)
    built = Path(module.__file__ or "")
    source = built.parent / (name.rsplit(".", 1)[1] + ".py")
    assert source.exists(), source
    if built.suffix != ".so":
        return  # plain Python: the source itself
    assert built.stat().st_mtime >= source.stat().st_mtime, (
        f"{built.name} was compiled before {source.name} last changed: run `make install`"
    )


def test_setup_compiles_the_modules_checked_here() -> None:
    text = (ROOT / "setup.py").read_text()
    for name in COMPILED:
        assert "services/" + name.replace(".", "/") + ".py" in text
