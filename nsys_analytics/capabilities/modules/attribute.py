"""Each kernel group to a module (or op) and a direction, by the best source the profile has:

- `module ranges` (instrument(model, layers=True)): the innermost module range on the launching thread;
  `bwd:<path>` (autograd's thread) is backward;
- `emit_nvtx`: a kernel's innermost op range gives a sequence number, and the forward op with that number (the
  earliest range carrying it) gives the module range around it, so backward time lands on the forward module;
  an op range on another thread than its forward op's is backward. Without module ranges, by forward op name.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from .data import ForwardOp, KernelGroup
from .flops import op_flops, op_name

MODULE_RANGES, EMIT_NVTX, EMIT_NVTX_OPS = "module ranges", "emit_nvtx", "emit_nvtx ops"
BWD = "bwd:"
_SEQ = re.compile(r", seq = (\d+)")


@dataclass
class Attributed:
    """Exclusive GPU time per (key, direction): each kernel counted once, in its innermost module (or its op)."""

    source: str
    ns: dict = field(default_factory=lambda: defaultdict(int))         # (key, direction) -> ns
    kernels: dict = field(default_factory=lambda: defaultdict(int))    # (key, direction) -> count
    by_kernel: dict = field(default_factory=lambda: defaultdict(int))  # (key, direction, kernel) -> ns
    flop_ops: dict = field(default_factory=lambda: defaultdict(set))   # (key, direction) -> {(pid, seq)}
    total_ns: int = 0                                                  # every kernel of the window
    unattributed_ns: int = 0

    def add(self, key: str | None, direction: str, group: KernelGroup, seq: tuple[int, int] | None = None):
        self.total_ns += group.total_ns
        if key is None:
            self.unattributed_ns += group.total_ns
            return
        self.ns[key, direction] += group.total_ns
        self.kernels[key, direction] += group.kernels
        self.by_kernel[key, direction, group.kernel] += group.total_ns
        if seq is not None:
            self.flop_ops[key, direction].add(seq)


def pick_source(groups: list[KernelGroup]) -> str | None:
    """The best source the kernels' ranges allow, or None. instrument's ranges are known by their `bwd:` ranges:
    plain ranges of one word (`final_matmul`) alone are a user's, not a model's modules."""
    modules = [g.module for g in groups if g.module]
    if any(m.startswith(BWD) for m in modules):
        return MODULE_RANGES
    if any(g.op for g in groups):
        return EMIT_NVTX if modules else EMIT_NVTX_OPS
    return None


def attribute(groups: list[KernelGroup], source: str, forward: dict[tuple[int, int], ForwardOp]) -> Attributed:
    out = Attributed(source)
    for g in groups:
        if source == MODULE_RANGES:
            _by_module_range(out, g)
        else:
            _by_seq(out, g, forward)
    return out


def _by_module_range(out: Attributed, g: KernelGroup) -> None:
    if g.module and g.module.startswith(BWD):
        out.add(g.module[len(BWD):], "backward", g)
    else:
        out.add(g.module, "forward", g)


def _by_seq(out: Attributed, g: KernelGroup, forward: dict[tuple[int, int], ForwardOp]) -> None:
    found = _SEQ.search(g.op) if g.op else None
    op = forward.get((g.pid, int(found.group(1)))) if found else None
    if op is None:  # in no op range: forward kernels still have their module range
        out.add(g.module if out.source == EMIT_NVTX else None, "forward", g)
        return
    seq = (g.pid, int(found.group(1))) if op_flops(op.op) else None
    direction = "forward" if g.op_tid == op.tid else "backward"
    if out.source == EMIT_NVTX_OPS:
        out.add(op_name(op.op), direction, g, seq)
    else:
        out.add(g.module if direction == "forward" and g.module else op.module, direction, g, seq)

