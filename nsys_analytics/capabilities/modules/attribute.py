"""Each kernel group to a module (or op) and a direction, by the best source the profile has:

- `module ranges` (instrument(model, layers=True)): the innermost module range on the launching thread;
  `bwd:<path>` (autograd's thread) is backward;
- `nested ranges` (a model's own plain ranges, `block_2 > mlp`, with `bwd:<name>` ranges): as module ranges, but the
  module is the path of the ranges around the kernel (`block_2.mlp`), as plain names do not carry their parent's;
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
NESTED_RANGES = "nested ranges"
BY_RANGES = (MODULE_RANGES, NESTED_RANGES)  # sources read from module ranges alone (no forward ops)
BWD = "bwd:"
CHAIN = " > "  # how the SQL joins the module ranges around a kernel, outermost first
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
    """The best source the kernels' ranges allow, or None. A model's module ranges are known by their `bwd:`
    ranges: plain ranges of one word (`final_matmul`) alone are a user's, not a model's modules."""
    chains = [g.module for g in groups if g.module]
    if any(_innermost(c).startswith(BWD) for c in chains):
        return MODULE_RANGES if _path_named(groups) else NESTED_RANGES
    if any(g.op for g in groups):
        return EMIT_NVTX if chains else EMIT_NVTX_OPS
    return None


def attribute(groups: list[KernelGroup], source: str, forward: dict[tuple[int, int], ForwardOp]) -> Attributed:
    out = Attributed(source)
    path = _innermost_path if _path_named(groups) else _nested_path
    for g in groups:
        if source in BY_RANGES:
            _by_module_range(out, g, path)
        else:
            _by_seq(out, g, forward, path)
    return out


def _path_named(groups: list[KernelGroup]) -> bool:
    """Whether the module ranges are named by module path, as instrument's are: somewhere a range inside another
    extends its name (`blocks.2 > blocks.2.mlp`). Then the innermost range names the module, whatever plain range
    of a user's is around it."""
    return any(_extends(g.module.split(CHAIN)) for g in groups if g.module and CHAIN in g.module)


def _extends(chain: list[str]) -> bool:
    names = [n.removeprefix(BWD) for n in chain]
    return any(inner.startswith(outer + ".") for outer, inner in zip(names, names[1:]))


def _innermost(chain: str) -> str:
    return chain.rsplit(CHAIN, 1)[-1]


def _innermost_path(chain: str) -> str:
    return _innermost(chain).removeprefix(BWD)


def _nested_path(chain: str) -> str:
    """'block_2 > mlp' -> 'block_2.mlp'; 'bwd:block_3' -> 'block_3'; a name that already extends the path
    (`blocks.2 > blocks.2.mlp`) or repeats it (a forward recomputed inside `bwd:block_2`) is not appended."""
    path = ""
    for name in (n.removeprefix(BWD) for n in chain.split(CHAIN)):
        path = name if not path or name == path or name.startswith(path + ".") else f"{path}.{name}"
    return path


def _by_module_range(out: Attributed, g: KernelGroup, path) -> None:
    if g.module is None:
        out.add(None, "forward", g)
        return
    direction = "backward" if _innermost(g.module).startswith(BWD) else "forward"
    out.add(path(g.module), direction, g)


def _by_seq(out: Attributed, g: KernelGroup, forward: dict[tuple[int, int], ForwardOp], path) -> None:
    found = _SEQ.search(g.op) if g.op else None
    op = forward.get((g.pid, int(found.group(1)))) if found else None
    module = path(g.module) if g.module else None
    if op is None:  # in no op range: forward kernels still have their module range
        out.add(module if out.source == EMIT_NVTX else None, "forward", g)
        return
    seq = (g.pid, int(found.group(1))) if op_flops(op.op) else None
    direction = "forward" if g.op_tid == op.tid else "backward"
    if out.source == EMIT_NVTX_OPS:
        out.add(op_name(op.op), direction, g, seq)
    else:
        own = module if direction == "forward" and module else (path(op.module) if op.module else None)
        out.add(own, direction, g, seq)

