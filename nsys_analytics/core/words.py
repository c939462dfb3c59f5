"""Counts in sentences: "1 rank", "2 ranks", "wrote 1 row"."""

from __future__ import annotations


def plural(n: int, noun: str, many: str | None = None, sep: str = "") -> str:
    """`n` and `noun`, the noun plural unless n is 1 (`many`: an irregular plural; `sep=","`: 1,234)."""
    return f"{n:{sep}} {noun if n == 1 else (many or noun + 's')}"
