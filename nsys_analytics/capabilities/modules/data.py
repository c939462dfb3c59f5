"""The rows `modules` reads: the window's kernels by innermost module and op range, emit_nvtx's forward ops by
sequence number, and the span of the capture's kernels (sql/modules/)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..nvtx.steady import Steady
    from ...data.profile import Profile

# Range names that are steps or phases of a training loop, never modules (the step ranges are the steady state's).
PHASES = ["warmup", "forward", "backward", "optimizer_step", "optimizer", "loss", "step"]
# Names of numbered steps (iteration0, iter_3, batch_12, step7): a loop's ranges, never modules, whatever --step-range
STEP_LIKE = r"(?i)(step|iter|iteration|batch|epoch)_?[0-9]+"


@dataclass(frozen=True)
class KernelGroup:
    """Kernels of one name that share their innermost module range and op range."""

    pid: int
    module: str | None  # the module ranges around them, outermost first: 'blocks.2 > blocks.2.mlp', 'bwd:block_3'
    op: str | None      # emit_nvtx's full text: 'aten::mm, seq = 77, op_id = 201, sizes = [[..]]'
    op_tid: int | None
    kernel: str
    total_ns: int
    kernels: int


@dataclass(frozen=True)
class ForwardOp:
    """The forward op that a sequence number names, and the module range around it."""

    tid: int
    op: str
    module: str | None  # the module ranges around the op, outermost first, as KernelGroup.module


def kernel_groups(profile: Profile, steady: Steady, step_glob: str) -> list[KernelGroup]:
    params = {"not_modules": PHASES, "step_glob": step_glob, "step_like": STEP_LIKE, **steady.ops_params()}
    return [KernelGroup(*row) for row in profile.run_file("modules", "modules_kernels", params).rows]


def kernel_span_ns(profile: Profile) -> int:
    """The whole capture's wall time as `modules` divides by it: the first kernel's start to the last one's end."""
    start, end = profile.run_file("modules", "modules_kernel_span").rows[0]
    return end - start if start is not None else 0


def forward_ops(profile: Profile, step_glob: str) -> dict[tuple[int, int], ForwardOp]:
    """{(pid, seq): its forward op}."""
    params = {"not_modules": PHASES, "step_glob": step_glob, "step_like": STEP_LIKE}
    rows = profile.run_file("modules", "modules_forward_ops", params).rows
    return {(pid, seq): ForwardOp(tid, op, module) for pid, seq, tid, op, module in rows}
