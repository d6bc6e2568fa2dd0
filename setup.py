"""Build hook: the game engines and the expert play-outs compiled with mypyc.

Everything else about the package is in pyproject.toml. The compiled modules
stay plain, typed Python and behave the same, only faster: the four engines
(every move the service validates, every view it answers, every event a
replay folds; Hearts also the inner loop of ``bench/engine.py``) and the expert
opponents' play-outs for Hearts, Wizard and Crazy 8s (more deals per decision
in the same time). The build falls back to pure Python when mypyc is not
installed in the build environment (for instance a build without isolation, as
in deploy/Dockerfile), when there is no C compiler, or when
``PARLOUR_PURE_PYTHON=1`` is set.
"""

from __future__ import annotations

import os
from typing import Any

from setuptools import setup

#: Each compiled on its own (``separate``), so every module's runtime library sits
#: beside it in its package, where an editable install finds it.
COMPILED = [
    "services/parlour/engine/hearts.py",
    "services/parlour/engine/wizard.py",
    "services/parlour/engine/kaiser.py",
    "services/parlour/engine/crazy8s.py",
    "services/parlour/ai/hearts_search.py",
    "services/parlour/ai/wizard_search.py",
    "services/parlour/ai/crazy8s_search.py",
]


def extensions() -> list[Any]:
    if os.environ.get("PARLOUR_PURE_PYTHON") == "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    built = list(mypycify(COMPILED, opt_level="3", separate=True))
    for extension in built:
        extension.optional = True  # no C compiler: the module stays plain Python
    return built


setup(ext_modules=extensions())
