"""`modules` from one open profile: the window, the source, the attribution, the tables."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .attribute import MODULE_RANGES, attribute, pick_source
from .data import forward_ops, kernel_groups
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
    if not profile.has_table("NVTX_EVENTS"):
        raise MissingDataError(NEITHER)
    steady = steady_state(profile, window, step_range, warmup_range)
    groups = kernel_groups(profile, steady, step_range)
    source = pick_source(groups)
    if source is None:
        raise MissingDataError(NEITHER)
    forward = {} if source == MODULE_RANGES else forward_ops(profile, step_range)
    attributed = attribute(groups, source, forward)
    return build(attributed, forward, max(steady.instances, 1), depth, top, steady.text)
