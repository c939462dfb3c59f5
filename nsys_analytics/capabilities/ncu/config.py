"""Annotations and configurations from NVTX range names, as nsight-python names its ranges.

A range `matmul[M=1024,N=64,K=512]` is annotation `matmul` with parameters M=1024, N=64, K=512. For
each result the innermost range (of any domain's push/pop stack) that carries parameters is used; a
result without one keeps its innermost range as its annotation and has no parameters. Other naming
schemes are read with a regular expression whose named groups are the parameters (a group `name`,
when present, is the annotation): `--config-regex 'gemm_(?P<M>\\d+)x(?P<N>\\d+)'`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...core.errors import UsageError
from .data import DEFAULT_DOMAIN

if TYPE_CHECKING:
    import pandas as pd

_BRACKETS = re.compile(r"^(?P<name>[^\[\]]*?)\s*\[(?P<params>[^\[\]]*)\]$")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


@dataclass(frozen=True)
class Config:
    annotation: str | None
    params: dict[str, float | int | str] = field(default_factory=dict)


def parse_range(name: str, pattern: re.Pattern | None = None) -> Config | None:
    """The annotation and parameters named by one range, or None when the name carries none."""
    if pattern is not None:
        m = pattern.fullmatch(name)
        if not m:
            return None
        params = {k: _value(v) for k, v in m.groupdict().items() if k != "name" and v is not None}
        annotation = m.groupdict().get("name") or _without_groups(name, m)
        return Config(annotation, params)
    m = _BRACKETS.match(name)
    if not m:
        return None
    params = {}
    for item in filter(None, (p.strip() for p in m.group("params").split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            return None
        params[key.strip()] = _value(value.strip())
    return Config(m.group("name"), params)


def compile_pattern(text: str | None) -> re.Pattern | None:
    if text is None:
        return None
    try:
        pattern = re.compile(text)
    except re.error as e:
        raise UsageError(f"--config-regex {text!r}: not a regular expression ({e})") from e
    if not pattern.groupindex:
        raise UsageError(f"--config-regex {text!r}: name the parameters with groups, e.g. 'gemm_(?P<M>\\d+)'")
    return pattern


def add_configs(frame: pd.DataFrame, nvtx: pd.DataFrame, pattern: re.Pattern | None = None) -> list[str]:
    """Add `annotation` and one column per parameter to `frame` (one row per result, column `id`).

    `nvtx`: ncu_nvtx rows (kernel_id, kind, level, name). Returns the parameter names, in first-seen order.
    """
    stacks: dict[int, list[str]] = {}
    push_pop = nvtx[nvtx["kind"] == "push_pop"].assign(default=nvtx["domain"] == DEFAULT_DOMAIN)
    # other domains first, the default domain last: its innermost range is looked at first
    for row in push_pop.sort_values(["kernel_id", "default", "domain", "level"]).itertuples(index=False):
        stacks.setdefault(int(row.kernel_id), []).append(row.name)
    configs = [_config_of(stacks.get(int(k), []), pattern) for k in frame["id"]]
    frame["annotation"] = [c.annotation for c in configs]
    names = list(dict.fromkeys(key for c in configs for key in c.params))
    for name in names:
        frame[name] = _column([c.params.get(name) for c in configs])
    return names


def _column(values: list):
    """Integers as a nullable integer column, other numbers as floats, anything else as it is."""
    import pandas as pd

    present = [v for v in values if v is not None]
    if all(isinstance(v, int) for v in present):
        return pd.array(values, dtype="Int64")
    if all(isinstance(v, (int, float)) for v in present):
        return pd.array([float("nan") if v is None else float(v) for v in values], dtype="float64")
    return pd.array(values, dtype=object)


def _config_of(stack: list[str], pattern: re.Pattern | None) -> Config:
    for name in reversed(stack):
        config = parse_range(name, pattern)
        if config is not None:
            return config
    return Config(stack[-1] if stack else None)


def _value(text: str) -> float | int | str:
    if _NUMBER.fullmatch(text):
        number = float(text)
        return int(number) if number.is_integer() and not any(c in text for c in ".eE") else number
    return text


def _without_groups(name: str, m: re.Match) -> str:
    """The range name with the text of every named group cut out: 'gemm_64x32' -> 'gemm_x'."""
    spans = sorted(m.span(g) for g in m.groupdict() if m.group(g) is not None)
    out, last = [], 0
    for start, end in spans:
        out.append(name[last:start])
        last = max(last, end)
    return "".join(out) + name[last:]
