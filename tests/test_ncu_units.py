"""Units: ncu's displayed units back to base units, and the display unit ncu picks for a column."""

from __future__ import annotations

import pytest

from nsys_analytics.capabilities.ncu.units import display_unit, normalize, to_base


@pytest.mark.parametrize("shown,base,factor", [
    ("us", "ns", 1e3), ("ms", "ns", 1e6), ("ns", "ns", 1.0), ("s", "ns", 1e9),
    ("Kbyte", "byte", 1e3), ("Mbyte", "byte", 1e6), ("Gbyte", "byte", 1e9), ("Tbyte", "byte", 1e12),
    ("Ghz", "hz", 1e9), ("Mhz", "hz", 1e6),
    ("Kbyte/block", "byte/block", 1e3), ("Gbyte/s", "byte/s", 1e9), ("Kbyte/cycle", "byte/cycle", 1e3),
    ("sector/ns", "sector/s", 1e9), ("sector/us", "sector/s", 1e6), ("sector/ms", "sector/s", 1e3),
    ("%/Kbyte", "%/byte", 1e3),  # ncu scales the value by the prefix wherever it sits
    ("%", "%", 1.0), ("", "", 1.0), ("inst/cycle", "inst/cycle", 1.0), ("register/thread", "register/thread", 1.0),
    ("usecond", "ns", 1e3), ("cycle/nsecond", "cycle/s", 1e9), ("Gbyte/second", "byte/s", 1e9),
])
def test_to_base(shown, base, factor):
    assert to_base(shown) == (base, factor)


def test_old_unit_names():
    assert normalize("msecond") == "ms"
    assert normalize("byte/second") == "byte/s"


@pytest.mark.parametrize("base,values,shown,divisor", [
    ("ns", [12416, 252448], "us", 1e3),
    ("ns", [999], "ns", 1.0),
    ("ns", [2.5e9], "s", 1e9),
    ("byte/block", [24, 13056, 0, 33792], "Kbyte/block", 1e3),  # the largest value decides
    ("byte", [4_198_066_680], "Gbyte", 1e9),
    ("hz", [1.5e9], "Ghz", 1e9),
    ("byte/s", [2.1e12], "Tbyte/s", 1e12),
    ("sector/s", [5e9], "sector/ns", 1e9),
    ("sector/s", [5e4], "sector/ms", 1e3),
    ("%/byte", [1466], "%/Kbyte", 1e3),
    ("byte/block", [0, 0], "byte/block", 1.0),  # nothing to scale
    ("cycle", [1e9], "cycle", 1.0),  # not a unit ncu prefixes
    ("%", [99.0], "%", 1.0),
])
def test_display_unit(base, values, shown, divisor):
    assert display_unit(base, values) == (shown, divisor)


def test_display_unit_ignores_missing_values():
    assert display_unit("ns", [None, float("nan"), 5000]) == ("us", 1e3)
