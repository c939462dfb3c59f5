"""Rounding exactly as `nsys stats` prints: half away from zero on the double's exact decimal value; and as the
`nsys recipe` tables print (recipe_round), which the multi-rank tables follow.

nsys rounds with SQLite's round(): 1888.25 (exact in binary) -> 1888.3, while 32609.05, stored as
32609.04999..., -> 32609.0. Python's round() would give 1888.2; DuckDB's round() would give 32609.1.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

_STEP = {0: Decimal(1), 1: Decimal("0.1"), 2: Decimal("0.01")}


def nsys_round(x: float | int | None, digits: int = 1) -> float | None:
    if x is None:
        return None
    return float(Decimal(x).quantize(_STEP[digits], rounding=ROUND_HALF_UP))


def recipe_round(x: float | int | None, digits: int = 1) -> float | None:
    """Rounding as `nsys recipe` prints (pandas' DataFrame.round, that is numpy's): x * 10**digits in double
    precision, half to even, then / 10**digits. 1220563.25 -> 1220563.2 (nsys_round: .3); 619770.65, stored as
    619770.65000000002..., becomes exactly 6197706.5 once multiplied -> 619770.6 (nsys_round: .7)."""
    if x is None or not math.isfinite(x):
        return x
    scale = 10.0 ** digits
    return round(x * scale) / scale  # round(float): half to even on the product, as numpy's rint
