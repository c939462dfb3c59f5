"""Nsight Compute units: convert a displayed unit to its base unit, and pick a display unit as ncu does.

Values are stored in base units (`ns`, `byte`, `hz`, `byte/s`, `sector/s`, ...), as a report holds
them and as `ncu --print-units base` prints them. By default ncu prints each column of the raw page
in one unit chosen from the largest value of the column: `us` for durations of 12 to 252 microseconds,
`Kbyte/block`, `Ghz`, `Gbyte/s`, `sector/ns`. The rules here reproduce the unit row of ncu's CSV:

* a duration in `ns` becomes `us`, `ms` or `s`;
* a `byte` or `hz` in the numerator gets an SI prefix (`K`, `M`, `G`, `T`, `P`: powers of 1000);
* otherwise a rate per second becomes per `ms`, `us` or `ns`;
* otherwise a `byte` in the denominator gets the prefix (ncu scales the value the same way:
  `1466 %/byte` is printed `1.466 %/Kbyte`).

Older Nsight Compute versions wrote `nsecond`, `usecond`, `msecond`, `second`; they are read as
`ns`, `us`, `ms`, `s`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

PREFIXES = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
PREFIXABLE = ("byte", "hz", "Hz")
TIME_IN_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
# Dividing by these time units: per ns = 1e9 per second.
PER_TIME = {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}
_OLD_NAMES = {"nsecond": "ns", "usecond": "us", "msecond": "ms", "second": "s"}


def normalize(unit: str) -> str:
    """Spell old unit names the modern way: 'cycle/nsecond' -> 'cycle/ns'."""
    return "/".join(_OLD_NAMES.get(part, part) for part in unit.split("/"))


def to_base(unit: str) -> tuple[str, float]:
    """(base unit, factor) with value_in_base = displayed_value * factor. 'us' -> ('ns', 1000.0)."""
    unit = normalize(unit.strip())
    parts = unit.split("/")
    if len(parts) == 1 and parts[0] in TIME_IN_NS:
        return "ns", TIME_IN_NS[parts[0]]
    if len(parts) == 2 and parts[1] in PER_TIME and parts[1] != "s":
        numerator, factor = _strip_prefix(parts[0])
        return f"{numerator}/s", PER_TIME[parts[1]] * factor
    factor = 1.0
    stripped = []
    for part in parts:
        base, f = _strip_prefix(part)
        stripped.append(base)
        factor *= f
    return "/".join(stripped), factor


def _strip_prefix(token: str) -> tuple[str, float]:
    for name in PREFIXABLE:
        if len(token) == len(name) + 1 and token.endswith(name) and token[0] in PREFIXES and token[0]:
            return name, PREFIXES[token[0]]
    return token, 1.0


def display_unit(base: str, values: Iterable[float | None]) -> tuple[str, float]:
    """(unit ncu prints for a column of `values` in `base` units, divisor). ('ns', [12416]) -> ('us', 1000)."""
    largest = max((abs(v) for v in values if v is not None and not _nan(v)), default=0.0)
    if largest == 0:
        return base, 1.0
    parts = base.split("/")
    if base == "ns":
        name = _pick(largest, [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)])
        return name, TIME_IN_NS[name]
    if parts[0] in PREFIXABLE:
        prefix = _pick(largest, list(PREFIXES.items()))
        return "/".join([prefix + parts[0], *parts[1:]]), PREFIXES[prefix]
    if len(parts) == 2 and parts[1] == "s":
        per = _pick(largest, [("s", 1.0), ("ms", 1e3), ("us", 1e6), ("ns", 1e9)])
        return f"{parts[0]}/{per}", PER_TIME[per]
    if len(parts) == 2 and parts[1] in PREFIXABLE:
        prefix = _pick(largest, list(PREFIXES.items()))
        return f"{parts[0]}/{prefix}{parts[1]}", PREFIXES[prefix]
    return base, 1.0


def _pick(largest: float, scales: list[tuple[str, float]]) -> str:
    """The largest scale that keeps `largest` at 1 or more."""
    chosen = scales[0][0]
    for name, scale in scales:
        if largest >= scale:
            chosen = name
    return chosen


def _nan(v: float) -> bool:
    return isinstance(v, float) and math.isnan(v)
