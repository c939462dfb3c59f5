"""The `modules` tables from exclusive times (attribute.py): each module's time rolled up to its parents by path
prefix (a parent = its own kernels + its children's, each kernel once), per steady step, folded to `--depth`."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace

from .attribute import EMIT_NVTX_OPS, NESTED_RANGES, Attributed
from .data import ForwardOp
from .flops import op_flops
from ...core.result import Result

DIRECTIONS = ("forward", "backward")
DEFAULT_TOP = 3
MODULE_COLUMNS = ["module", "forward_ms", "backward_ms", "bwd_fwd_ratio", "kernels", "step_pct",
                  "forward_tflops", "backward_tflops"]
KERNEL_COLUMNS = ["module", "direction", "kernel", "ms"]
# Milliseconds to the microsecond, as rounded: a layer norm takes 0.1-0.3 ms a step.
MODULE_DECIMALS = {"forward_ms": 3, "backward_ms": 3, "bwd_fwd_ratio": 2}
KERNEL_DECIMALS = {"ms": 3}


@dataclass(frozen=True)
class ModulesReport:
    source: str
    window: str
    steps: int
    step_ms: float    # the step's wall time (the window's, without steps), what step_pct is a share of
    kernel_ms: float  # the summed GPU time of every kernel of the step: more than step_ms where streams overlap
    modules: Result
    kernels: Result


def build(att: Attributed, forward: dict[tuple[int, int], ForwardOp], steps: int, depth: int | None,
          top: int, window: str, wall: tuple[int, str]) -> ModulesReport:
    """`wall`: the window's wall time (ns) and what it is (its steps' span), of which step_pct is a share."""
    tree = att.source != EMIT_NVTX_OPS
    ns, count, flops = defaultdict(int), defaultdict(int), defaultdict(int)
    for (key, direction), value in att.ns.items():
        for name in (_ancestors(key, depth) if tree else [key]):
            ns[name, direction] += value
            count[name, direction] += att.kernels[key, direction]
            flops[name, direction] += _flops(att.flop_ops[key, direction], forward, direction)
    step_ns = wall[0] / steps
    by_time = lambda n: -ns[n, "forward"] - ns[n, "backward"]  # noqa: E731 (ops: heaviest first)
    names = sorted({name for name, _ in ns}, key=_natural if tree else by_time)
    unknown = _unknown_backward(att, ns, names)
    rows = [_row(name, ns, count, flops, steps, step_ns, name not in unknown) for name in names]
    notes = _notes(att, steps, (step_ns, wall[1]), window, any(flops.values()), bool(unknown))
    modules = Result(MODULE_COLUMNS, rows, notes, exact=True, decimals=MODULE_DECIMALS)
    kernels = _top(att, depth if tree else None, tree, steps, top)
    return ModulesReport(att.source, window, steps, step_ns / 1e6, att.total_ns / steps / 1e6, modules, kernels)


def to_depth(report: ModulesReport, depth: int) -> ModulesReport:
    """The report's modules and their kernels no deeper than `depth` (a module's rows are the same whether the tree
    is folded or not); a table by op has no tree and is kept whole."""
    if report.source == EMIT_NVTX_OPS:
        return report
    col = MODULE_COLUMNS.index("module")
    rows = [r for r in report.modules.rows if r[col].count(".") < depth]
    kernels = [r for r in report.kernels.rows if r[0].count(".") < depth]
    return replace(report, modules=Result(MODULE_COLUMNS, rows, report.modules.notes, exact=True,
                                          decimals=MODULE_DECIMALS),
                   kernels=Result(KERNEL_COLUMNS, kernels, report.kernels.notes, exact=True,
                                  decimals=KERNEL_DECIMALS))


def _unknown_backward(att: Attributed, ns: dict, names: list[str]) -> set[str]:
    """Nested plain ranges: the modules that no `bwd:` range names, nor any of their children. Their backward is
    not 0 but inside their parent's (`bwd:block_2` holds block_2.mlp's): left blank, not shown as 0."""
    if att.source != NESTED_RANGES:
        return set()
    return {name for name in names if not ns.get((name, "backward"))}


def _row(name, ns, count, flops, steps, step_ns, backward_known: bool = True) -> tuple:
    fwd, bwd = ns[name, "forward"] / steps, ns[name, "backward"] / steps
    shown = round(bwd / 1e6, 3) if backward_known else None
    return (name, round(fwd / 1e6, 3), shown, round(bwd / fwd, 2) if fwd and backward_known else None,
            _count((count[name, "forward"] + count[name, "backward"]) / steps),
            round(100 * (fwd + bwd) / step_ns, 1) if step_ns else None,
            *(_tflops(flops[name, d], ns[name, d]) for d in DIRECTIONS))


def _count(per_step: float) -> float | int:
    """Kernels per step: a whole number as one (every step launches the same kernels), else one decimal."""
    value = round(per_step, 1)
    return int(value) if value.is_integer() else value


def _tflops(flop: int, ns: int) -> float | None:
    return round(flop / ns / 1e3, 1) if flop and ns else None  # FLOP per ns = GFLOP/s; / 1e3: TFLOP/s


def _flops(seqs: set, forward: dict[tuple[int, int], ForwardOp], direction: str) -> int:
    """The ops' forward FLOPs; a matrix product's backward is two products of the same size (2x)."""
    total = sum(op_flops(forward[seq].op) or 0 for seq in seqs)
    return 2 * total if direction == "backward" else total


def _ancestors(path: str, depth: int | None) -> list[str]:
    """'blocks.2.mlp' -> ['blocks', 'blocks.2', 'blocks.2.mlp'], those no deeper than `depth`."""
    parts = path.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1) if depth is None or i <= depth]


def _natural(path: str) -> list:
    """Sort key: numbers in a name as numbers (blocks.2 before blocks.10, block_2 before block_10)."""
    return [[(0, int(r)) if r.isdigit() else (1, r) for r in re.split(r"(\d+)", p) if r] for p in path.split(".")]


def _top(att: Attributed, depth: int | None, tree: bool, steps: int, top: int) -> Result:
    """The heaviest kernels of each module and direction: those of the module and of every module inside it, the
    kernels its time sums, so that a module lists the same kernels at any --depth."""
    per = defaultdict(int)
    for (key, direction, kernel), value in att.by_kernel.items():
        for name in (_ancestors(key, depth) if tree else [key]):
            per[name, direction, kernel] += value
    ranked = defaultdict(list)
    for (name, direction, kernel), value in per.items():
        ranked[name, direction].append((value, kernel))
    rows = []
    order = lambda kv: (_natural(kv[0][0]), DIRECTIONS.index(kv[0][1]))  # noqa: E731 (module, then direction)
    for (name, direction), items in sorted(ranked.items(), key=order):
        rows += [(name, direction, kernel, round(value / steps / 1e6, 3))
                 for value, kernel in sorted(items, reverse=True)[:top]]
    note = ("ms: GPU time per step of the kernel in the module and every module inside it (the kernels its "
            "forward_ms and backward_ms sum, so a module lists the same kernels at any --depth), the heaviest per "
            "module and direction")
    return Result(KERNEL_COLUMNS, rows, [note], exact=True, decimals=KERNEL_DECIMALS)


def _notes(att: Attributed, steps: int, step: tuple[float, str], window: str, flops: bool,
           unknown: bool) -> list[str]:
    per = f"ms per step over {steps} step(s)" if steps > 1 else "ms over the whole window"
    where = "no op" if att.source == EMIT_NVTX_OPS else "no module"
    step_or_window = "step" if steps > 1 else "window"
    notes = [f"Source: {_SOURCES[att.source]}.", f"Window: {window}; {per}; "
             f"step_pct = the module's GPU time (forward + backward) as a share of the {step_or_window}'s wall time, "
             f"{step[0] / 1e6:.3f} ms ({step[1]}); kernels on several streams (NCCL's among them) overlap, so the "
             f"shares can add up past 100 %. The GPU time of every kernel: {att.total_ns / steps / 1e6:.3f} ms, "
             f"of which {att.unattributed_ns / steps / 1e6:.3f} ms in {where} (the optimizer's, the loss's, NCCL's "
             "kernels outside every module range).",
             _COUNTED[att.source]]
    if unknown:
        notes.append("backward_ms is blank where no 'bwd:<name>' range holds the module's backward: it is inside "
                     "its parent's (block_2.mlp's in bwd:block_2).")
    if flops:
        notes.append("TFLOP/s: FLOPs (2*M*N*K) of aten::mm/addmm/matmul/bmm/linear from their recorded shapes "
                     "over the module's GPU time (all its kernels); backward FLOPs are taken as 2x the forward "
                     "op's.")
    return notes


_COUNTED = {
    "module ranges": "GPU time = the kernels launched inside the range (on its thread), each counted once in its "
                     "innermost module and rolled up to its parents.",
    "nested ranges": "GPU time = the kernels launched inside the ranges (on their thread), each counted once in its "
                     "innermost module and rolled up to its parents.",
    "emit_nvtx": "GPU time = the kernels launched inside the range (on its thread), each counted once in its "
                 "innermost module and rolled up to its parents; backward kernels by their op's seq.",
    "emit_nvtx ops": "GPU time = the kernels launched inside the op's range (on its thread), each counted once in "
                     "its innermost op; backward kernels by their op's seq.",
}
_SOURCES = {
    "module ranges": "module ranges (nsys_analytics.torch.instrument(model, layers=True)): forward ranges by "
                     "module path, backward ranges 'bwd:<path>' on autograd's thread",
    "nested ranges": "nested NVTX ranges, not named by module path: a kernel's module is the path of the ranges "
                     "around it on its thread (block_2 > mlp: block_2.mlp; step and phase ranges left out), "
                     "backward ranges 'bwd:<name>' on autograd's thread",
    "emit_nvtx": "emit_nvtx op ranges: backward kernels mapped to the forward op with the same seq, and to the "
                 "module range around it",
    "emit_nvtx ops": "emit_nvtx op ranges without module ranges: by forward op (backward by seq)",
}
