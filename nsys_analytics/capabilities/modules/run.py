"""`modules` from one open profile: the window, the source, the attribution, the tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .attribute import BY_RANGES, attribute, pick_source
from .data import forward_ops, kernel_groups, kernel_span_ns
from .memo import Inputs, remembered
from .report import DEFAULT_TOP, ModulesReport, build
from ..nvtx.steady import STEP_RANGE, WARMUP_RANGE, steady_state
from ...core.errors import MissingDataError

if TYPE_CHECKING:
    from ...data.profile import Profile

NEITHER = ("no module ranges and no emit_nvtx op ranges hold the kernels: profile with "
           "nsys_analytics.torch.instrument(model, layers=True) or under "
           "torch.autograd.profiler.emit_nvtx(record_shapes=True)")


def modules_report(profile: Profile, depth: int | None = None, top: int = DEFAULT_TOP, window: str = "steady",
                   step_range: str = STEP_RANGE, warmup_range: str | None = WARMUP_RANGE) -> ModulesReport:
    inputs = remembered(profile.sqlite_path, (window, step_range, warmup_range),
                        lambda: read_inputs(profile, window, step_range, warmup_range))
    attributed = attribute(inputs.groups, inputs.source, inputs.forward)
    wall = (inputs.wall_ns, f"the span of the {inputs.steps} step(s) / {inputs.steps}" if inputs.steps else
            "the first kernel's start to the last one's end")
    return build(attributed, inputs.forward, max(inputs.steps, 1), depth, top, inputs.window, wall)


def read_inputs(profile: Profile, window: str, step_range: str, warmup_range: str | None) -> Inputs:
    """The window's kernel groups, its wall time (the steps' span, as `breakdown --basis wall` takes it; without
    steps the capture's kernels' span) and, for emit_nvtx, the forward ops (exit 1 with one line where neither
    source holds the kernels)."""
    if not profile.has_table("NVTX_EVENTS") or not any(profile.run_file("modules", "modules_sources").rows[0]):
        raise MissingDataError(NEITHER)  # said before the attribution of every kernel (seconds at 1 M kernels)
    steady = steady_state(profile, window, step_range, warmup_range)
    groups = kernel_groups(profile, steady, step_range)
    source = pick_source(groups)
    if source is None:
        raise MissingDataError(NEITHER)
    forward = {} if source in BY_RANGES else forward_ops(profile, step_range)
    wall_ns = steady.to_ns - steady.from_ns if steady.from_ns is not None else kernel_span_ns(profile)
    return Inputs(steady.text, steady.instances, wall_ns, source, groups, forward)
