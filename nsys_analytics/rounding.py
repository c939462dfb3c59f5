"""Rounding exactly as `nsys stats` prints: half away from zero on the double's exact decimal value.

nsys rounds with SQLite's round(): 1888.25 (exact in binary) -> 1888.3, while 32609.05, stored as
32609.04999..., -> 32609.0. Python's round() would give 1888.2; DuckDB's round() would give 32609.1.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

_STEP = {0: Decimal(1), 1: Decimal("0.1"), 2: Decimal("0.01")}


def nsys_round(x: float | int | None, digits: int = 1) -> float | None:
    if x is None:
        return None
    return float(Decimal(x).quantize(_STEP[digits], rounding=ROUND_HALF_UP))
