"""Derived-metric expressions: arithmetic on names is evaluated; anything else is refused, never run."""

from __future__ import annotations

import pandas as pd
import pytest

from nsys_analytics.core.errors import UsageError
from nsys_analytics.capabilities.ncu.expr import MAX_LENGTH, parse_derive


def test_tflops_from_parameters_and_a_dotted_metric_name():
    d = parse_derive("tflops=2*M*N*K/gpu__time_duration.sum/1e3")
    assert d.name == "tflops"
    assert d.names == ("M", "N", "K", "gpu__time_duration.sum")
    assert d.evaluate({"M": 1024, "N": 1024, "K": 1024, "gpu__time_duration.sum": 75264.0}) == pytest.approx(28.53, 1e-3)


def test_evaluates_over_columns():
    d = parse_derive("ratio = (a + b) / -c ** 2 % 7 // 1")
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0], "c": [2.0, 1.0]})
    got = d.evaluate({k: frame[k] for k in frame})
    assert list(got) == [((1 + 3) / -(2 ** 2)) % 7 // 1, ((2 + 4) / -1) % 7 // 1]


def test_integers_are_evaluated_as_floats():
    assert parse_derive("x=7/2").evaluate({}) == 3.5


@pytest.mark.parametrize("spec", [
    "x=__import__('os').system('true')",  # calls
    "x=open('/etc/passwd')",
    "x=(1).__class__",  # attribute access on a value
    "x=a[0]",  # subscripts
    "x=lambda: 1",
    "x='text'",
    "x=a if b else c",
    "x=a < b",
    "x=True + 1",
    "x=[1, 2]",
    "x=f'{a}'",
    "x=a; import os",
    "x=a := 1",
])
def test_refuses_anything_but_arithmetic(spec):
    with pytest.raises(UsageError):
        parse_derive(spec)


@pytest.mark.parametrize("spec", ["tflops", "=1", "2x=1", "x=", "a.b=1"])
def test_needs_name_equals_expression(spec):
    with pytest.raises(UsageError):
        parse_derive(spec)


def test_limits_size():
    with pytest.raises(UsageError, match="longer"):
        parse_derive("x=" + "1+" * MAX_LENGTH + "1")
    with pytest.raises(UsageError, match="parts"):
        parse_derive("x=" + "+".join(["a"] * 150))


def test_arithmetic_errors_are_usage_errors():
    with pytest.raises(UsageError, match="division by zero"):
        parse_derive("x=1/0").evaluate({})
    with pytest.raises(UsageError, match="too large"):
        parse_derive("x=10**10**10").evaluate({})
    with pytest.raises(UsageError, match="not a number"):
        parse_derive("x=a*2").evaluate({"a": None})
