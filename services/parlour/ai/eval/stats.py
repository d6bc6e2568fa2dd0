"""The statistics of the self-play reports: means and rates with 95% intervals,
and the paired test that one level scores below another."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Z95 = 1.959963984540054


def mean_ci(values: Sequence[float]) -> dict[str, float]:
    """Mean with a 95% confidence interval (normal approximation)."""
    n = len(values)
    mean = sum(values) / n if n else 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    half = Z95 * math.sqrt(var / n) if n else 0.0
    return {"mean": mean, "ci_low": mean - half, "ci_high": mean + half, "n": n}


def proportion(wins: float, n: int) -> dict[str, float]:
    """A rate with its 95% Wilson interval."""
    if n == 0:
        return {"rate": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 0}
    p = wins / n
    centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
    return {"rate": p, "ci_low": centre - half, "ci_high": centre + half, "n": n}


def paired_test(differences: Sequence[float]) -> dict[str, Any]:
    """Is the mean difference below zero? Paired z-test, two-sided p (normal approximation)."""
    stats = mean_ci(differences)
    n = len(differences)
    sd = math.sqrt(sum((d - stats["mean"]) ** 2 for d in differences) / (n - 1)) if n > 1 else 0.0
    z = stats["mean"] / (sd / math.sqrt(n)) if sd > 0 else 0.0
    p = math.erfc(abs(z) / math.sqrt(2))
    return {**stats, "z": z, "p": p, "significant": bool(z < -Z95)}
