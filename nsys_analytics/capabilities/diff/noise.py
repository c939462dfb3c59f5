"""The run-to-run noise model of `diff`'s headline: is a change of the step time or of the GPU kernel time per step
beyond what repeated runs of the same code show?

The steps of one process are not independent samples of the code's speed: a whole process runs faster or slower
(clocks, CPU-side launch speed, memory placement), so a step-by-step test calls run-to-run noise a change (two runs
of identical code at p = 7.6e-05). Here each run is one sample, its mean per step: with at least two runs on each
side, Welch's t-test on the run means; with one run on a side, no variance across runs can be estimated, so a change
counts as beyond noise only when it is at least the minimum effect measured between identical runs (MIN_EFFECT_PCT,
docs/diff.md). Pure Python, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Smallest change (percent) that one run per side may call beyond noise, per metric: above the largest spread
# between repeated runs of identical code (docs/diff.md, "The noise model"; fixtures/diff: 7 runs on an H100 host
# shared with other jobs, the step time moved by up to 41.6 % between identical runs, the kernel time per step by
# at most 0.16 %). `diff --min-effect step=PCT` sets it for a quieter machine. The step's is the default where its
# kernel time is unknown (no steady state); else step_min_effect_pct.
MIN_EFFECT_PCT = {"step": 45.0, "kernel": 1.0}
# How far a step's time outside GPU kernels (Python, launches, synchronization) moved between identical runs: up to
# 51.8 % (fixtures/diff gpt_aa, a launch-bound step on a shared host: 10.3 to 15.7 ms), while the kernel time moved
# by at most 0.16 % there and 0.01 % in GPU-bound runs (gpt_big_aa; fsdp2_aa, 2 ranks: the step by 0.84 %).
OUTSIDE_KERNELS_PCT = 55.0


@dataclass(frozen=True)
class Judgement:
    """One metric, base runs against new runs."""

    metric: str  # 'step' | 'kernel'
    base_ns: float  # mean over the base runs of each run's mean per step
    new_ns: float
    change_pct: float | None
    runs: tuple[int, int]  # runs per side
    p_value: float | None  # Welch's t-test on the run means; None with one run on a side
    min_effect_pct: float  # the threshold used with one run on a side
    beyond: bool

    @property
    def test(self) -> str:
        return "welch" if self.p_value is not None else "min-effect"


def judge(metric: str, base: list[float], new: list[float], alpha: float,
          min_effect_pct: float | None = None) -> Judgement:
    """Base and new run values (each run's mean per step) -> a judgement: Welch's t-test (p < alpha) with at
    least two runs per side, else |change| >= the minimum effect (no change is never beyond noise, whatever the
    minimum)."""
    threshold = MIN_EFFECT_PCT[metric] if min_effect_pct is None else min_effect_pct
    b, n = sum(base) / len(base), sum(new) / len(new)
    change = 100.0 * (n - b) / b if b else None
    if len(base) >= 2 and len(new) >= 2:
        p = welch_p(base, new)
        return Judgement(metric, b, n, change, (len(base), len(new)), p, threshold, p < alpha)
    return Judgement(metric, b, n, change, (len(base), len(new)), None, threshold,
                     bool(change) and abs(change) >= threshold)


def step_min_effect_pct(step_ns: float, kernel_ns: float) -> float:
    """The smallest step-time change (percent of this step) that one run per side may call beyond noise: the step's
    time outside its GPU kernels may move by OUTSIDE_KERNELS_PCT, the time in them by the kernel time's minimum
    effect. A launch-bound step (gpt_aa: 2.6 ms of kernels in 12.9 ms) needs 44 %, a GPU-bound one 2-3 %.
    `kernel_ns`: one GPU's kernel time per step, summed (overlapping streams may take it past the step: clipped)."""
    if step_ns <= 0:
        return MIN_EFFECT_PCT["step"]
    inside = min(max(kernel_ns, 0.0), step_ns)
    spread_ns = OUTSIDE_KERNELS_PCT * (step_ns - inside) + MIN_EFFECT_PCT["kernel"] * inside  # percent x ns
    return round(spread_ns / step_ns, 1)


def welch_p(a: list[float], b: list[float]) -> float:
    """Two-sided p-value of Welch's unequal-variance t-test (as scipy.stats.ttest_ind(equal_var=False)). Both
    samples without spread: 1 when their means are equal, else 0."""
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1)
    se2 = va / len(a) + vb / len(b)
    if se2 == 0:
        return 1.0 if ma == mb else 0.0
    t = (mb - ma) / math.sqrt(se2)
    df = se2 ** 2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
    return student_t_sf2(abs(t), df)


def student_t_sf2(t: float, df: float) -> float:
    """P(|T| >= t) for Student's t with `df` degrees of freedom: I_x(df/2, 1/2) with x = df / (df + t²)."""
    return _betainc(df / 2.0, 0.5, df / (df + t * t))


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (continued fraction, Numerical Recipes' betacf)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def _betacf(a: float, b: float, x: float) -> float:
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h
