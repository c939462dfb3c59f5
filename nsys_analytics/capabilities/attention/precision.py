"""The data type attention ran in, read from its kernels' names (docs/attention.md, "Data type and ridge point").

A name's narrowest type wins: `sm80_xmma_gemm_bf16bf16_bf16f32_f32` reads bf16 and accumulates in fp32, and the
bytes moved are the bf16 inputs and outputs. cuDNN's generated names say `f16` for fp16 and bf16 alike, so a bare
`f16` means "a 16-bit float"; both are 2 bytes with the same tensor-core peak. Pure text, no database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .data import KernelTime

# Narrowest first. Not `h`/`v` alone: nvjet's `_h_`/`_v_` name a tile order, not a type.
_HINTS = (
    ("fp8", re.compile(r"e4m3|e5m2|fp8")),
    ("bf16", re.compile(r"bf16|bfloat16")),
    ("fp16", re.compile(r"fp16|half|(?<![a-z])h\d{3,5}gemm|(?<![a-z])f16f16")),
    ("fp16/bf16", re.compile(r"(?<![a-z])f16")),
    ("tf32", re.compile(r"tf32")),
    ("fp32", re.compile(r"(?<![a-z])f32|fp32|\bfloat\b|sgemm|ffma")),
)
_SIXTEEN = {"bf16", "fp16", "fp16/bf16"}


def name_dtype(name: str) -> tuple[str, str] | None:
    """(data type, the text in `name` that says so) for one kernel name, or None when it names no type."""
    low = name.lower()
    for dtype, pattern in _HINTS:
        if found := pattern.search(low):
            return dtype, found.group(0)
    return None


@dataclass(frozen=True)
class DtypeGuess:
    """The data type the kernels agree on (None: no hint, or they disagree) and a sentence saying why."""

    dtype: str | None
    because: str


def infer_dtype(kernels: list[KernelTime]) -> DtypeGuess:
    """The data type of `kernels` (the attention kernels counted), from their names."""
    seen: dict[str, list[tuple[KernelTime, str]]] = {}
    for k in kernels:
        if hint := name_dtype(k.name):
            seen.setdefault(hint[0], []).append((k, hint[1]))
    if not seen:
        return DtypeGuess(None, f"none of the {len(kernels)} attention kernel name(s) names a data type")
    dtype = _agreed(set(seen))
    listed = "; ".join(_evidence(d, found) for d, found in sorted(seen.items(), key=lambda x: -_ns(x[1])))
    if dtype is None:
        return DtypeGuess(None, f"the attention kernel names disagree: {listed}")
    return DtypeGuess(dtype, f"inferred from the attention kernel names: {listed}")


def _agreed(dtypes: set[str]) -> str | None:
    """One type, or a 16-bit family where an explicit bf16 or fp16 settles cuDNN's bare f16."""
    if len(dtypes) == 1:
        return next(iter(dtypes))
    explicit = dtypes - {"fp16/bf16"}
    return next(iter(explicit)) if dtypes <= _SIXTEEN and len(explicit) == 1 else None


def _ns(found: list[tuple[KernelTime, str]]) -> int:
    return sum(k.total_ns for k, _ in found)


def _evidence(dtype: str, found: list[tuple[KernelTime, str]]) -> str:
    """"bf16 in 2 name(s) (70.2 us), e.g. 'bf16' in NAME": how many names say `dtype`, their time, the heaviest."""
    heaviest, text = max(found, key=lambda f: f[0].total_ns)
    return f"{dtype} in {len(found)} name(s) ({_time(_ns(found))}), e.g. {text!r} in {_short(heaviest.name)}"


def _time(ns: int) -> str:
    return f"{ns / 1e6:,.2f} ms" if ns >= 1e6 else f"{ns / 1e3:.1f} us"


def _short(name: str, width: int = 90) -> str:
    return name if len(name) <= width else name[:width - 1] + "…"
