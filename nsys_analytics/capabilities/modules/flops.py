"""FLOPs of a matrix product from emit_nvtx's `sizes = [[...], ...]` (record_shapes=True): 2·M·N·K per product."""

from __future__ import annotations

import ast
import math
import re

_SIZES = re.compile(r", sizes = (\[.*?\]\])")
MATMULS = ("aten::mm", "aten::addmm", "aten::matmul", "aten::bmm", "aten::linear")


def op_name(text: str) -> str:
    """'aten::mm, seq = 77, ...' -> 'aten::mm'."""
    return text.split(",", 1)[0]


def op_flops(text: str) -> int | None:
    """FLOPs of one forward op, or None where its name or shapes give none."""
    name = op_name(text)
    found = _SIZES.search(text)
    if name not in MATMULS or not found:
        return None
    try:
        sizes = ast.literal_eval(found.group(1))
    except (ValueError, SyntaxError):
        return None
    return _flops(name, [s for s in sizes if isinstance(s, list)])


def _flops(name: str, sizes: list[list[int]]) -> int | None:
    if name == "aten::addmm":  # (bias, a, b)
        sizes = sizes[1:]
    if len(sizes) < 2 or not sizes[0] or not sizes[1]:
        return None
    a, b = sizes[0], sizes[1]
    if name == "aten::linear":  # input [.., K], weight [N, K]
        return 2 * math.prod(a[:-1]) * b[0] * a[-1] if len(b) == 2 and b[1] == a[-1] else None
    if len(b) < 2 or a[-1] != b[-2]:
        return None
    return 2 * math.prod(a[:-1]) * b[-1] * a[-1]  # batch dims of a, M rows; N columns of b; K inner
