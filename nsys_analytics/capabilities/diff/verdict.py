"""`diff`'s headline (the step time and the GPU kernel time per step of each run, judged against run-to-run noise:
diff/noise.py) and its one-sentence verdict: what moved, beyond noise or not, and where (the story of a
substitution, diff/story.py, else the range, category and kernel that weigh most). No I/O."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ...output.render import sentence_name
from .matching import STEP_WORD, range_families
from .noise import MIN_EFFECT_PCT, OUTSIDE_KERNELS_PCT, Judgement, judge, step_min_effect_pct
from .rank_split import RankChange, RankSplit, rank_split
from .story import Row, Story, substitution
from .summary import COMMUNICATION, ProfileSummary, Stat, run_kernel_ns

# report.py's Side and DiffReport (not imported: report imports this module); read by attribute only
Side = DiffReport = Any

STORY_SHARE = 0.5  # a substitution is the step's change where it holds at least this share of the kernel change
WARMUP_WORD = "warm"  # ranges the verdict does not blame (warm-up is not the step)


def step_family(rb: dict, rn: dict) -> str | None:
    """The range family that looks like a training/inference step (step, iter, batch), on both sides, the one with
    the most time."""
    both = [f for f in rb.keys() & rn.keys() if STEP_WORD.search(f)]
    return max(both, key=lambda f: (rb[f].wall.total_ns, f), default=None)


def run_step_ns(run: list[ProfileSummary], step: str) -> float | None:
    """A run's mean step duration: the instances of the step family in its window, over its ranks."""
    walls = []
    for p in run:
        families = range_families(r.name for r in p.ranges)
        walls += [r.wall for r in p.ranges if families.get(r.name, r.name) == step or r.name == step]
    merged = Stat.merge(walls) if walls else None
    return merged.avg_ns if merged and merged.instances else None


def compute_only(b: Side, n: Side) -> bool:
    """Whether the headline's kernel time leaves NCCL's kernels out: where a side has them and both sides have other
    kernels. A collective's kernels run until the last rank arrives, so their time holds the other ranks' waits:
    identical FSDP runs moved it by up to 72 % (fixtures/ranks/fsdp2_aa), the other kernels by 0.2 %."""
    def has(side: Side, communication: bool) -> bool:
        return any((k.category == COMMUNICATION) == communication and k.stat.total_ns
                   for run in side.runs for p in run for k in p.kernel_stats("demangled"))
    return (has(b, True) or has(n, True)) and has(b, False) and has(n, False)


def headline(b: Side, n: Side, rb: dict, rn: dict, alpha: float, min_effect: dict[str, float]) -> dict[str, Any]:
    """Both metrics judged run by run; the step time leads where both sides have steps, else the kernel time."""
    compute = compute_only(b, n)
    kernel = judge("kernel", [run_kernel_ns(r, b.unit, compute) for r in b.runs],
                   [run_kernel_ns(r, n.unit, compute) for r in n.runs], alpha, min_effect.get("kernel"))
    step_name = step_family(rb, rn)
    step = None
    if step_name is not None:
        sb = [v for v in (run_step_ns(r, step_name) for r in b.runs) if v is not None]
        sn = [v for v in (run_step_ns(r, step_name) for r in n.runs) if v is not None]
        step = judge("step", sb, sn, alpha, _step_min_effect(b, sb, min_effect)) if sb and sn else None
    lead = step or kernel
    moved = {(True, True): "both", (True, False): "step", (False, True): "kernel", (False, False): "none"}[
        (bool(step and step.beyond), kernel.beyond)]
    return {
        "metric": "step" if step else "kernel_time", "range": step_name if step else None, "unit": b.unit,
        "base_ns": lead.base_ns, "new_ns": lead.new_ns, "change_pct": lead.change_pct,
        "base_instances": rb[step_name].wall.instances if step else None,
        "new_instances": rn[step_name].wall.instances if step else None,
        "runs": [len(b.runs), len(n.runs)], "p_value": lead.p_value, "test": lead.test, "min_p": None,
        # a test's answer; None where one run per side leaves it to a threshold (runs gate decides by its own)
        "beyond_noise": lead.beyond if lead.p_value is not None else None,
        "ranks": [max(len(r) for r in b.runs), max(len(r) for r in n.runs)],  # per run, each side
        "step": _judgement(step), "kernel": _judgement(kernel), "moved": moved, "story": None, "story_ns": None,
        "story_kernel_ns": None, "kernel_scope": "compute" if compute else "all",
        "communication": _communication(b, n) if compute else None,
        # the step's minimum effect: 'given' (--min-effect), 'kernels' (from its share in kernels), 'default'
        "step_threshold": "given" if "step" in min_effect else "kernels" if b.unit == "per step" else "default",
        **_split_json(rank_split(b, n)),
    }


def _split_json(split: RankSplit | None) -> dict[str, Any]:
    """Each rank's change (one run a side of several ranks): [rank, compute ns, NCCL ns] per step, and the rank the
    others wait for."""
    if split is None:
        return {"rank_changes": None, "paced_by": None}
    return {"rank_changes": [[c.rank, c.compute_ns, c.nccl_ns] for c in split.changes], "paced_by": split.paced_by}


def _split_of(h: dict) -> RankSplit | None:
    if not h.get("rank_changes"):
        return None
    return RankSplit([RankChange(int(r), c, n) for r, c, n in h["rank_changes"]], h.get("paced_by"))


def _step_min_effect(b: Side, steps_ns: list[float], min_effect: dict[str, float]) -> float | None:
    """The step time's minimum effect for one run per side: the user's, else from the base's share of the step
    spent in kernels (noise.step_min_effect_pct), else (no steady state) the default."""
    if "step" in min_effect:
        return min_effect["step"]
    if b.unit != "per step":
        return None
    # one GPU's compute kernels: NCCL's time waits on the other ranks, so it may move as the time outside kernels
    kernel_ns = sum(run_kernel_ns(r, b.unit, True) / len(r) for r in b.runs) / len(b.runs)
    return step_min_effect_pct(sum(steps_ns) / len(steps_ns), kernel_ns)


def _communication(b: Side, n: Side) -> tuple[float, float]:
    """NCCL's kernel time per step on each side (mean over runs, ranks summed)."""
    def side(s: Side) -> float:
        return sum(run_kernel_ns(r, s.unit) - run_kernel_ns(r, s.unit, True) for r in s.runs) / len(s.runs)
    return side(b), side(n)


def _judgement(j: Judgement | None) -> dict | None:
    if j is None:
        return None
    return {"base_ns": j.base_ns, "new_ns": j.new_ns, "change_pct": j.change_pct, "p_value": j.p_value,
            "test": j.test, "min_effect_pct": j.min_effect_pct, "beyond_noise": j.beyond}


def verdict(report: DiffReport, only: tuple[set[str], set[str]], pace_report: DiffReport | None = None) -> str:
    """One sentence: which of step time and kernel time moved beyond run-to-run noise, then where. `only`: the
    range families found on one side only; `pace_report`: the diff of the rank the others wait for alone, whose
    change leads where it moved the kernel time's way (the waiting ranks' slower kernels add to the ranks' sum)."""
    h = report.headline
    step, kernel, moved = h["step"], h["kernel"], h["moved"]
    unit = h["unit"]
    ranks = _ranks_words(h)  # several ranks: the kernel time is their sum, the step time their mean
    what = "GPU compute kernel time" if h.get("kernel_scope") == "compute" else "GPU kernel time"
    kernel_text = f"{what} {unit}{f' (summed over {ranks})' if ranks else ''} {_from_to(kernel)}"
    step_text = f"step time{f' (mean over {ranks})' if ranks else ''} {_from_to(step)}" if step else None
    tail = f" ({_noise_words(h)})."
    if moved == "none":
        parts = ", ".join(p for p in (step_text, kernel_text) if p)
        return f"No change beyond run-to-run noise: {parts}" + tail
    waits = _communication_words(h)
    split = _split_of(h)
    pace = split.pace() if split else None
    on_pace = f" on rank {pace.rank}, the one the others wait for" if pace else ""
    if moved == "step":
        return (f"{_cap(step_text)} beyond run-to-run noise; kernel time not beyond it ({kernel_text}): the "
                f"difference is outside kernels (CPU, launch, sync){on_pace}{waits}" + tail)
    sign = -1 if (kernel["change_pct"] or 0) < 0 else 1
    by_rank = f"; by rank: {split.words(_signed_ms)}{_slowed_waiters(split, pace)}" if split else ""
    if moved == "both" and _mostly_outside_kernels(h, pace):
        own = f" (its compute kernels {_signed_ms(pace.compute_ns)})" if pace else ""
        text = (f"{_cap(step_text)} beyond run-to-run noise, mostly outside GPU kernels (CPU, data loading, launches, "
                f"waits){on_pace}{own}; {kernel_text} also beyond it")
    elif moved == "both":
        text = f"{_cap(step_text)} and {kernel_text}, both beyond run-to-run noise"
    else:
        text = f"{_cap(kernel_text)} beyond run-to-run noise"
        # with too few runs the threshold, not a test, rules the step change out: say so, not that it is noise
        within = "within it" if step and step["p_value"] is not None else f"under the threshold of {_sides(h)}"
        text += f" (step time {_from_to(step)}: {within})" if step else ""
    story = _story(report, only)
    where = _where(report, sign)
    mostly = "mostly"
    if pace and pace_report is not None and _pace_leads(h, pace, sign) and (own := _where(pace_report, sign)):
        where, mostly = own, f"led by rank {pace.rank}'s"  # "..., led by rank 1's matmul kernels in ..."
    if story is not None:
        step_ns = _story_step_ns(story, h)
        h["story"] = story.sentence(unit, step_ns)
        h["story_ns"], h["story_kernel_ns"] = (step_ns if step_ns is not None else story.kernel_ns), story.kernel_ns
        if where is None or _story_share(story, h) >= STORY_SHARE:
            return f"{text}: {h['story']}{by_rank}{waits}" + tail
        # the substitution holds less than half of the change: what weighs most leads, the substitution after it
        return f"{text}, {mostly} {where}; besides, {h['story']}{by_rank}{waits}" + tail
    return (f"{text}, {mostly} {where}" if where else text) + by_rank + waits + tail


def _pace_leads(h: dict, pace: RankChange, sign: int) -> bool:
    """Whether the rank the others wait for moved the kernel time's way by at least half of a rank's mean change."""
    mean_ns = abs(h["kernel"]["new_ns"] - h["kernel"]["base_ns"]) / max(h.get("ranks") or (1, 1))
    return pace.compute_ns * sign >= mean_ns / 2 > 0


def _slowed_waiters(split: RankSplit, pace: RankChange | None) -> str:
    """Where ranks that wait gained compute kernel time of at least a tenth of the largest change: why that may
    be."""
    largest = max(abs(c.compute_ns) for c in split.changes)
    if pace is None or not any(c.compute_ns >= largest / 10 > 0 for c in split.changes if c.rank != pace.rank):
        return ""
    return " (the kernels of ranks that wait in collectives can run slower beside them)"


def _mostly_outside_kernels(h: dict, pace: RankChange | None) -> bool:
    """Whether one GPU's kernel time moved by less than half the step time, the same way or not: then most of the
    step's change lies outside kernels. The GPU: that of the rank the others wait for, else the ranks' mean."""
    ranks = max(h.get("ranks") or (1, 1))
    kernel_change = pace.compute_ns if pace else (h["kernel"]["new_ns"] - h["kernel"]["base_ns"]) / ranks
    step_change = h["step"]["new_ns"] - h["step"]["base_ns"]
    return kernel_change * step_change <= 0 or abs(kernel_change) < abs(step_change) / 2


def _communication_words(h: dict) -> str:
    """Where the kernel time leaves NCCL's kernels out and theirs moved by at least the kernel time's minimum
    effect: what it moved, and why that may be waiting."""
    if h.get("kernel_scope") != "compute" or not h.get("communication"):
        return ""
    base, new = h["communication"]
    if abs(new - base) < h["kernel"]["min_effect_pct"] / 100 * h["kernel"]["base_ns"]:
        return ""
    return (f"; NCCL's kernels {_signed_ms(new - base)}{' (summed over ranks)' if _ranks_words(h) else ''}: "
            f"{_WAIT_WORDS if new > base else 'less time in collectives, perhaps less waiting for a slower rank'}")


_WAIT_WORDS = ("a collective's kernels run until the last rank arrives, so this may be time spent waiting for a "
               "slower rank, not communication: `nsys-analytics ranks` names the rank and range that held the others")


def _ranks_words(h: dict) -> str:
    """'2 ranks' (or '2 vs 4 ranks') where a run has several ranks; '' where each has one."""
    base, new = h.get("ranks") or (1, 1)
    if max(base, new) <= 1:
        return ""
    return f"{base} ranks" if base == new else f"{base} vs {new} ranks"


def _from_to(j: dict) -> str:
    return f"{_ms(j['base_ns'])} -> {_ms(j['new_ns'])} ({_signed(j['change_pct'])})"


def _noise_words(h: dict) -> str:
    runs = h["runs"]
    counted = h["base_instances"] is not None  # no step family common to both sides: no counts to give
    steps = "rank steps" if _ranks_words(h) else "steps"  # each rank's instances of the step range
    window = ("steady state" + (f": {h['base_instances']} vs {h['new_instances']} {steps}" if counted else "")
              if h["unit"] == "per step" else "whole capture")
    if h.get("kernel_scope") == "compute":
        window += "; NCCL's kernels left out of the kernel time"
    if h["kernel"]["p_value"] is not None:
        ps = [f"{name} p = {h[name]['p_value']:.2g}" for name in ("step", "kernel") if h[name]]
        return f"{window}; Welch's t on {runs[0]} vs {runs[1]} runs: {', '.join(ps)}"
    thresholds = " and ".join(f"{h[name]['min_effect_pct']:g} % for {name} time" for name in ("step", "kernel")
                              if h[name])
    if h["step"] and h.get("step_threshold") == "kernels":
        thresholds = thresholds.replace(
            " for step time", f" for step time ({OUTSIDE_KERNELS_PCT:g} % of its time outside GPU kernels, "
                              f"{MIN_EFFECT_PCT['kernel']:g} % of its time in them)", 1)
    sides = _sides(h) + ("" if runs == [1, 1] else ", too few on a side for Welch's t")
    return (f"{window}; {sides}: beyond noise needs at least {thresholds}, from the spread of identical runs; "
            "more runs per side (diff A1 A2 A3 --vs B1 B2 B3) would tell")


def _sides(h: dict) -> str:
    runs = h["runs"]
    return "one run per side" if list(runs) == [1, 1] else f"{runs[0]} vs {runs[1]} runs"


def _story_share(story: Story, h: dict) -> float:
    """The share of the kernel time's change that the substitution's kernels hold (0 where the kernel time did not
    change, or moved the other way)."""
    change = h["kernel"]["new_ns"] - h["kernel"]["base_ns"]
    return story.kernel_ns / change if change else 0.0


def _story_step_ns(story: Story, h: dict) -> float | None:
    """The step time's change, where the story is what changed: the step moved beyond noise, the same way, and the
    story's kernels carry at least half of the kernel time's change (a launch-bound step gains more than its
    kernels' time). A step change within noise, or under one run per side's threshold, is not booked to it."""
    step, kernel = h["step"], h["kernel"]
    if step is None or not step["beyond_noise"]:
        return None
    kernel_change, step_change = kernel["new_ns"] - kernel["base_ns"], step["new_ns"] - step["base_ns"]
    if kernel_change == 0 or story.kernel_ns / kernel_change < STORY_SHARE or step_change * story.kernel_ns <= 0:
        return None
    return step_change


def _story(report: DiffReport, only: tuple[set[str], set[str]]) -> Story | None:
    c = report.kernels.columns
    i = {k: c.index(k) for k in ("status", "category", "range", "base_total_ns", "new_total_ns", "base_instances",
                                 "new_instances", "name")}
    rows = [Row(r[i["status"]], r[i["category"]], r[i["range"]], r[i["base_total_ns"]], r[i["new_total_ns"]],
                r[i["base_instances"]], r[i["new_instances"]], r[i["name"]]) for r in report.kernels.rows]
    total = report.categories.rows[-1]
    return substitution(rows, only[0], only[1], (total[1], total[2]))


# The status of a moved kernel's rows, followed by ranges (report._moves): where it went, where it came from.
MOVED_TO, MOVED_FROM = "moved to ", "moved from "


def _moved_ns(rows: list[tuple]) -> list[float]:
    """Per kernel row, the part of its change that a move between ranges made, not the kernel, for a kernel that ran
    as often but in other ranges (it has `moved to` / `moved from` rows): all of a `moved to` row's change (the time
    it left behind), and of its other rows the instances gained or lost at the kernel's base mean. What is left, its
    change of speed where it runs, stays the range's."""
    moving = {r[-1] for r in rows if r[0].startswith((MOVED_TO, MOVED_FROM))}
    base_ns: dict[str, float] = defaultdict(float)
    base_count: dict[str, float] = defaultdict(float)
    for r in rows:
        if r[-1] in moving:
            base_ns[r[-1]] += r[3]
            base_count[r[-1]] += r[7]

    def moved(r: tuple) -> float:
        if r[-1] not in moving or not base_count[r[-1]]:
            return 0.0
        if r[0].startswith(MOVED_TO):
            return r[5]
        brought = (r[8] - r[7]) * base_ns[r[-1]] / base_count[r[-1]]
        return brought if abs(r[5] - brought) >= 1 else r[5]  # under 1 ns: the division's rounding, no change

    return [moved(r) for r in rows]


def _where(report: DiffReport, sign: int) -> str | None:
    """The range and category, then the kernel, whose change weighs most in the kernel time's direction."""
    skip = {"total", COMMUNICATION} if report.headline.get("kernel_scope") == "compute" else {"total"}
    # a kernel that moved between ranges changed where its time is, not the time: that part is left out
    rows = [(r, r[5] - m) for r, m in zip(report.kernels.rows, _moved_ns(report.kernels.rows))]
    cell = None
    if report.range_categories is not None:
        moved: dict[tuple, float] = defaultdict(float)
        for r, change in rows:
            moved[(r[2], r[1])] += r[5] - change
        cells = [(*r[:4], r[4] - moved[(r[0], r[1])]) for r in report.range_categories.rows]
        cell = max((r for r in cells if r[4] * sign > 0 and WARMUP_WORD not in r[0].lower() and r[1] not in skip),
                   key=lambda r: abs(r[4]), default=None)
    if cell is None:
        cat = next((r for r in report.categories.rows if r[0] not in skip and r[3] * sign > 0), None)
        if cat is None:
            return None
        place, category, delta = f"{cat[0]} kernels", cat[0], cat[3]
    else:
        place, category, delta = f"{cell[1]} kernels in {cell[0]}", cell[1], cell[4]
    text = f"{place} ({_signed_ms(delta)})"
    candidates = sorted((rc for rc in rows if rc[0][1] == category and rc[1] * sign > 0), key=lambda rc: -abs(rc[1]))
    kernel = next((rc for rc in candidates if cell is None or rc[0][2] == cell[0]), None)
    kernel = kernel or next(iter(candidates), None)
    if kernel is not None:
        text += f": {_kernel_phrase(*kernel)}"
    if category == COMMUNICATION and sign > 0:
        text += "; " + _WAIT_WORDS
    return text


verdict_name = sentence_name  # a kernel name in the verdict, as in every sentence (output/render.py)


def _kernel_phrase(row: tuple, change: float) -> str:
    """A kernel row and its change (a moved kernel's own, `_moved_ns`) for the sentence."""
    status, name = row[0], row[-1]
    if status == "variant":
        old, new = _distinct(*name.split(" -> ", 1))
        return f"{old} -> {new} ({_signed_ms(change)})"
    if status.startswith((MOVED_TO, MOVED_FROM)):  # its change of speed where it runs now
        return f"{verdict_name(name)} ({_signed_ms(change)}; {status})"
    word = {"appeared": "new ", "disappeared": "gone: "}.get(status, "")
    return f"{word}{verdict_name(name)} ({_signed_ms(change)})"


def _distinct(old: str, new: str, context: int = 16) -> tuple[str, str]:
    """Two kernel names short enough for a sentence that still show where they differ (a tile size, say)."""
    a, b = verdict_name(old), verdict_name(new)
    if a != b:
        return a, b
    prefix = next((i for i, (x, y) in enumerate(zip(old, new)) if x != y), min(len(old), len(new)))
    suffix = next((i for i, (x, y) in enumerate(zip(reversed(old), reversed(new))) if x != y),
                  min(len(old), len(new)))

    def cut(name: str) -> str:
        start, end = max(prefix - context, 0), max(len(name) - suffix + context, 0)
        return ("…" if start else "") + name[start:end] + ("…" if end < len(name) else "")

    return cut(old), cut(new)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _ms(ns: float) -> str:
    return f"{ns / 1e6:,.3f} ms" if abs(ns) < 1e7 else f"{ns / 1e6:,.1f} ms"


def _signed_ms(ns: float) -> str:
    return ("+" if ns > 0 else "-" if ns < 0 else "") + _ms(abs(ns))


def _signed(pct: float | None) -> str:
    return "n/a" if pct is None else f"{pct:+.1f} %"
