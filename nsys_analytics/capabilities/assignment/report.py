"""`report`: the assignment-style answers (a)-(f) from a forward-only profile and a training profile.

(a) forward-pass time from NVTX ranges (vs a Python timer), (b) the heaviest kernel of the forward pass and of the
training step, (c) the non-matmul kernels of the forward pass, (d) category shares from inference to training,
(e) softmax vs matmul in attention (attention/report.py), (f) GPU time per model module, forward and backward
(modules/). Each section is built alone: a missing input turns
that section into a message naming the nsys command or option that fixes it. Builds a TextReport; no I/O but the
timer CSV. See docs/attention.md.
"""

from __future__ import annotations

import csv
import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..attention.data import (
    NO_KERNELS_FIX,
    NO_NVTX_FIX,
    OP_RANGES,
    KernelTime,
    Warmup,
    attributed_ops,
    has_kernels,
    kernel_times,
    matches,
    no_range,
    range_instances,
    range_names,
    resolve_warmup,
)
from ..attention.report import DEFAULT_RANGES, AttentionOptions, analyze_attention
from ..breakdown.report import LOG_SOFTMAX_NOTE, LOG_SOFTMAX_RULE, category_notes, category_times, summarize
from ..categories.rules import MATMUL, RuleSet, load_rules
from ...core.errors import MissingDataError, UsageError
from ..nvtx.steady import Steady, steady_state
from ...core.result import Result
from ...data.sql_files import Relation
from ...output.textreport import ReportSection, Table, TextReport

if TYPE_CHECKING:
    from ...data.profile import Profile

# The report's tables (`--format csv --table NAME`; the first is the default) and the section of each.
TABLES = {"times": "a", "heaviest": "b", "non_matmul": "c", "categories": "d", "attention": "e", "modules": "f"}
MODULE_DEPTH = 2      # (f) lists the modules this deep (blocks, blocks.0); its sentences name the deepest ones
AGREE_PCT = 5.0       # timer and NVTX means closer than this (%) "agree"
TRIVIAL_PCT = 1.0     # non-matmul kernels under this share of forward time are not listed in (c)
NO_TRAIN_FIX = ("no training profile: give --train T.sqlite, made with "
                "`nsys profile --trace=cuda,nvtx -o train python your_train.py` (forward, backward, optimizer step)")


@dataclass(frozen=True)
class ReportOptions:
    """The `report` options beyond the two profiles."""

    attention: AttentionOptions = AttentionOptions()  # noqa: RUF009 - frozen, so one shared default is safe
    forward_range: str = "forward"
    step_range: str = "step_*"
    top: int = 8
    timeit: Path | None = None


@dataclass
class _Input:
    """One opened profile with what the sections need from it, computed once."""

    label: str
    profile: Profile | None
    names: dict[str, int]
    warmup: Warmup | None
    kernels: tuple[list[KernelTime], str] | None = None  # forward_kernels' answer, which (b) and (c) share
    # The ranges whose NVTX attribution the sections read from this profile, attributed once into a temp table
    # (attributed_ops) on first use; None: each section reads _op_ranges itself.
    shared: list[str] | None = None
    ops: str | None = None  # that table, once made


def _ops(inp: _Input, options: ReportOptions) -> str:
    """The attribution the sections of this profile read: its shared table (made now if not yet), or _op_ranges."""
    if inp.shared is None:
        return OP_RANGES
    if inp.ops is None:
        inp.ops = attributed_ops(inp.profile, options.attention.attribution, inp.shared)
    return inp.ops


def build_report(forward: Profile, train: Profile | None, options: ReportOptions | None = None) -> TextReport:
    """The five sections for `forward` (and `train`, which may be None)."""
    options = options or ReportOptions()
    fwd, trn = _input("forward", forward, options), _input("training", train, options)
    _check_named_ranges([fwd, trn], options)
    fwd.shared = _forward_ranges(fwd, trn, options)
    rules = load_rules()
    builders: list[tuple[str, str, Callable[[], ReportSection]]] = [
        ("a", "(a) Forward-pass time", lambda: _section_a(fwd, trn, options)),
        ("b", "(b) Kernel with the most GPU time", lambda: _section_b(fwd, trn, options)),
        ("c", "(c) Non-matmul kernels in the forward pass", lambda: _section_c(fwd, options, rules)),
        ("d", "(d) Kernel categories: inference vs training", lambda: _section_d(fwd, trn, options, rules)),
        ("e", "(e) Attention: softmax vs matmul", lambda: _section_e(fwd, trn, options)),
        ("f", "(f) GPU time per module, forward and backward", lambda: _section_f(fwd, trn, options)),
    ]
    try:
        sections = [_guarded(key, title, build) for key, title, build in builders]
    finally:
        if fwd.ops is not None:  # the shared attribution: dropped, so that reports made in turn do not pile up
            forward.sql(f'DROP TABLE IF EXISTS "{fwd.ops}"')
    inputs = [f"forward profile: {forward.path}", f"training profile: {train.path if train else '(none)'}"]
    if options.timeit:
        inputs.append(f"Python timer: {options.timeit}")
    return TextReport("nsys-analytics report", inputs, sections, TABLES)


def _check_named_ranges(inputs: list[_Input], options: ReportOptions) -> None:
    """A range name the user chose that no profile has: a usage error (exit 2) listing the closest names, before
    any section (a default name missing makes its sections say what to add)."""
    default, a, d = ReportOptions(), options.attention.ranges, DEFAULT_RANGES
    named = [(options.forward_range, default.forward_range, "--forward-range"),
             (options.step_range, default.step_range, "--step-range"),
             (a.attention, d.attention, "--attention-range"), (a.scores, d.scores, "--scores-range"),
             (a.softmax, d.softmax, "--softmax-range"), (a.output, d.output, "--output-range")]
    with_ranges = [inp for inp in inputs if inp.names]
    for name, usual, option in named:
        if with_ranges and name != usual and not any(matches(inp.names, name) for inp in with_ranges):
            names = {k: v for inp in with_ranges for k, v in inp.names.items()}
            raise no_range("", names, name, option, usual, "")


def _forward_ranges(fwd: _Input, trn: _Input, options: ReportOptions) -> list[str] | None:
    """The ranges of the forward profile whose attribution (a), (b)/(c) and (e) read: attributed once for the three.
    The training profile's is read by (b) alone (and by (e) only when the forward profile has no attention range),
    so it is not stored: its step ranges hold most of its operations."""
    if fwd.warmup is None:
        return None
    a = options.attention
    ranges = [options.forward_range] + ([fwd.warmup.range] if fwd.warmup.range else [])
    if _attention_input(fwd, trn, options) is fwd:
        ranges += [a.ranges.attention, a.ranges.scores, a.ranges.softmax, a.ranges.output]
    return ranges


def _guarded(key: str, title: str, build: Callable[[], ReportSection]) -> ReportSection:
    """The section, or the section saying what is missing."""
    try:
        section = build()
    except MissingDataError as e:
        return ReportSection(key, title, missing=str(e))
    section.key, section.title = key, title
    return section


def _input(label: str, profile: Profile | None, options: ReportOptions) -> _Input:
    if profile is None:
        return _Input(label, None, {}, None)
    names = range_names(profile)
    if not names:
        return _Input(label, profile, names, None)
    a = options.attention
    cutoff = options.step_range if matches(names, options.step_range) else options.forward_range
    return _Input(label, profile, names, resolve_warmup(profile, names, a.warmup_range, a.warmup_steps, cutoff))


def _need_nvtx(inp: _Input) -> Warmup:
    if inp.warmup is None:
        raise MissingDataError(f"the {inp.label} profile {inp.profile.path} has no NVTX ranges; {NO_NVTX_FIX}")
    return inp.warmup


def _need_range(inp: _Input, name: str, option: str) -> None:
    if not matches(inp.names, name):
        raise MissingDataError(
            f"the {inp.label} profile has no NVTX range named {name!r}; wrap that code in `nvtx.annotate({name!r})`"
            f" and profile with `nsys profile --trace=cuda,nvtx`, or name your range with {option}")


# -- (a) -------------------------------------------------------------------------------------------------------

_TIME_COLUMNS = ["source", "what", "count", "mean_us", "std_us", "min_us", "max_us"]
_TIME_HEADERS = ["Source", "What", "Count", "Mean (us)", "Std (us)", "Min (us)", "Max (us)"]


def _section_a(fwd: _Input, trn: _Input, options: ReportOptions) -> ReportSection:
    warmup = _need_nvtx(fwd)
    _need_range(fwd, options.forward_range, "--forward-range")
    rows, lines, name = [], [], f"NVTX {options.forward_range!r}"
    times = _forward_times(fwd, options, warmup)
    fwd_ms, gpu_ms, end_ms = times["range_ns"], times["gpu_projection_ns"], times["to_gpu_end_ns"]
    rows.append(_time_row(name, "forward profile", fwd_ms))
    rows.append(_time_row(f"{name} on the GPU", "forward profile", gpu_ms))
    rows.append(_time_row(f"{name} to GPU end", "forward profile", end_ms))
    lines += _forward_sentences(name, fwd_ms, gpu_ms, end_ms)
    step_ms = _range_ms(fwd, options.step_range, warmup) if matches(fwd.names, options.step_range) else []
    if step_ms:
        rows.append(_time_row(f"NVTX {options.step_range!r}", "forward profile", step_ms))
    if trn.warmup is not None and matches(trn.names, options.forward_range):
        rows.append(_time_row(name, "training profile", _range_ms(trn, options.forward_range, trn.warmup)))
    timer = read_timeit(options.timeit) if options.timeit else {}
    for mode, values in timer.items():
        rows.append(_time_row("Python timer", f"{options.timeit.name} ({mode or 'steps'})", values))
    lines += _timer_sentences(timer, end_ms, step_ms, trn, options)
    projection = (f"{name} on the GPU: from the GPU start of the first kernel, copy or memset launched inside it "
                  f"to the GPU end of the last one (= nsys stats nvtx_gpu_proj_sum; attribution "
                  f"{options.attention.attribution}). {name} to GPU end: from the range's start to that GPU end.")
    notes = [warmup.text, projection, "Std is the sample standard deviation over the instances counted."]
    table = Table("Step and forward times", Result(_TIME_COLUMNS, rows, [], _TIME_HEADERS), "times")
    return ReportSection("a", "", lines, [table], notes)


def _forward_times(inp: _Input, options: ReportOptions, warmup: Warmup) -> dict[str, list[float]]:
    """{'range_ns' | 'gpu_projection_ns' | 'to_gpu_end_ns': ms per counted forward range}."""
    params = {"range": options.forward_range, "attribution": options.attention.attribution,
              "ops": Relation(_ops(inp, options)), **warmup.params()}
    records = [r for r in inp.profile.run_file("assignment", "range_gpu_times", params).to_records()
               if not r["in_warmup"]]
    if not records:
        raise MissingDataError(f"every {options.forward_range!r} range of the {inp.label} profile is warm-up; "
                               "nothing to time")
    if any(r["gpu_ops"] == 0 for r in records):
        raise MissingDataError(f"a {options.forward_range!r} range of the {inp.label} profile launched no GPU work; "
                               "check --forward-range and --attribution")
    return {k: [r[k] / 1e6 for r in records] for k in ("range_ns", "gpu_projection_ns", "to_gpu_end_ns")}


def _forward_sentences(name: str, fwd_ms: list[float], gpu_ms: list[float], end_ms: list[float]) -> list[str]:
    end, cpu, gpu = statistics.fmean(end_ms), statistics.fmean(fwd_ms), statistics.fmean(gpu_ms)
    answer = (f"The time of the forward pass is {end:.3f} ms (mean over {len(end_ms)}, std {_std(end_ms):.3f} ms): "
              f"from the start of the {name} range to the end of the last GPU operation it launched. That is what a "
              "timer around the pass measures when it calls torch.cuda.synchronize() before reading the clock.")
    closes = ", and closes before the GPU is done" if end > cpu * 1.001 else ""
    why = (f"The range itself lasts {cpu:.3f} ms: CUDA calls return once the work is queued, so it measures the "
           f"CPU issuing the pass{closes}. Its GPU projection, {gpu:.3f} ms, runs from the first kernel's start to "
           "the last one's end, so it leaves out the launch of the first kernel and any time the GPU waits for the "
           "CPU before it.")
    return [answer, why]


def _range_ms(inp: _Input, name: str, warmup: Warmup) -> list[float]:
    rows = range_instances(inp.profile, name, warmup)
    values = [duration / 1e6 for _, _, _, duration, in_warmup in rows if not in_warmup]
    if not values:
        raise MissingDataError(f"every {name!r} range of the {inp.label} profile is warm-up; nothing to time")
    return values


def _time_row(source: str, what: str, ms: list[float]) -> tuple:
    us = [v * 1e3 for v in ms]
    return (source, what, len(us), statistics.fmean(us), _std(us), min(us), max(us))


def _std(values: list[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def read_timeit(path: Path) -> dict[str, list[float]]:
    """{mode: step times in ms} from a timer CSV with a `seconds` column (and optionally `mode`; '' when absent)."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise UsageError(f"--timeit {path}: cannot be read ({e.strerror})") from None
    if not rows or "seconds" not in rows[0]:
        raise UsageError(f"--timeit {path}: expected a CSV with a header and a `seconds` column (mode,step,seconds)")
    out: dict[str, list[float]] = {}
    for row in rows:
        try:
            out.setdefault(row.get("mode") or "", []).append(float(row["seconds"]) * 1e3)
        except ValueError:
            raise UsageError(f"--timeit {path}: {row['seconds']!r} is not a number of seconds") from None
    return out


def _timer_sentences(timer: dict[str, list[float]], end_ms: list[float], step_ms: list[float], trn: _Input,
                     options: ReportOptions) -> list[str]:
    if not timer:
        return ["No Python-timer measurements given (--timeit CSV with mode,step,seconds) to compare with."]
    out = []
    for mode, values in timer.items():
        if mode == "train":
            if trn.warmup is None or not matches(trn.names, options.step_range):
                out.append("The timer rows of mode 'train' need the training profile's step ranges to compare with.")
                continue
            out.append(_compare("training-step", values, _range_ms(trn, options.step_range, trn.warmup),
                                f"NVTX {options.step_range!r} ranges of the training profile"))
        else:
            if step_ms:
                out.append(_compare("forward-step", values, step_ms, f"NVTX {options.step_range!r} ranges"))
            out.append(_compare("forward", values, end_ms, f"NVTX {options.forward_range!r} ranges, start to GPU end,"))
    out.append("Why they may differ: the timer runs around torch.cuda.synchronize() and includes Python overhead, "
               "while an NVTX range measures the CPU time between its push and pop; without a synchronize inside "
               "it, GPU work still queued when the range ends is not in it. Under the profiler every CUDA API "
               "call is also a little slower (tracing overhead), which both measurements then include.")
    return out


def _compare(what: str, timer: list[float], nvtx: list[float], nvtx_what: str) -> str:
    t, n = statistics.fmean(timer), statistics.fmean(nvtx)
    diff = 100.0 * (n - t) / t if t else 0.0
    agree = f"agree within {AGREE_PCT:g} %" if abs(diff) <= AGREE_PCT else f"differ by more than {AGREE_PCT:g} %"
    return (f"The Python timer ({what}, mean {t:.3f} ms over {len(timer)}) and the {nvtx_what} (mean {n:.3f} ms "
            f"over {len(nvtx)}) {agree}: the NVTX mean is {diff:+.1f} % off the timer.")


# -- (b) -------------------------------------------------------------------------------------------------------

_TOP_COLUMNS = ["pass", "kernel", "total_time_ns", "calls", "avg_ns", "time_pct"]
_TOP_HEADERS = ["Pass", "Kernel", "Total Time (ns)", "Calls", "Avg (ns)", "Time (%)"]


def forward_kernels(inp: _Input, options: ReportOptions) -> tuple[list[KernelTime], str]:
    """Kernels of the forward pass (launched inside the forward ranges, warm-up excluded) and where they came from;
    without NVTX, every kernel of the forward profile."""
    if inp.kernels is None:
        inp.kernels = _forward_kernels(inp, options)
    return inp.kernels


def _forward_kernels(inp: _Input, options: ReportOptions) -> tuple[list[KernelTime], str]:
    attribution = options.attention.attribution
    if not has_kernels(inp.profile):
        raise MissingDataError(f"the {inp.label} profile {inp.profile.path} has no CUDA kernels; {NO_KERNELS_FIX}")
    if inp.warmup is None:
        return kernel_times(inp.profile, None, Warmup(None, None, ""), attribution), (
            f"every kernel of the {inp.label} profile (it has no NVTX ranges, so warm-up cannot be excluded; "
            f"{NO_NVTX_FIX})")
    _need_range(inp, options.forward_range, "--forward-range")
    return kernel_times(inp.profile, options.forward_range, inp.warmup, attribution, _ops(inp, options)), (
        f"kernels launched inside the NVTX {options.forward_range!r} ranges of the {inp.label} profile "
        f"(attribution {attribution}), warm-up excluded")


def step_kernels(inp: _Input, options: ReportOptions) -> tuple[list[KernelTime], str]:
    """Kernels of the measured training steps: launched inside the step ranges (process attribution by default, so
    autograd's backward kernels count), or every kernel but the warm-up when there is no step range."""
    attribution = options.attention.attribution
    if inp.profile is None:
        raise MissingDataError(NO_TRAIN_FIX)
    if not has_kernels(inp.profile):
        raise MissingDataError(f"the training profile {inp.profile.path} has no CUDA kernels; {NO_KERNELS_FIX}")
    if inp.warmup is None:
        return kernel_times(inp.profile, None, Warmup(None, None, ""), attribution), (
            "every kernel of the training profile (no NVTX ranges: warm-up included; " + NO_NVTX_FIX + ")")
    if matches(inp.names, options.step_range):
        return kernel_times(inp.profile, options.step_range, inp.warmup, attribution), (
            f"kernels launched inside the NVTX {options.step_range!r} ranges of the training profile "
            f"(attribution {attribution}), warm-up excluded")
    return kernel_times(inp.profile, None, inp.warmup, attribution), (
        f"every kernel of the training profile but the warm-up (no range matches {options.step_range!r}; "
        "--step-range names yours)")


def _section_b(fwd: _Input, trn: _Input, options: ReportOptions) -> ReportSection:
    f_rows, f_src = forward_kernels(fwd, options)
    rows = [_top_row("forward", f_rows)]
    lines = [_top_sentence("forward pass", f_rows, f_src)]
    notes = []
    try:
        t_rows, t_src = step_kernels(trn, options)
    except MissingDataError as e:
        notes.append(f"Training step not available: {e}")
    else:
        rows.append(_top_row("training step", t_rows))
        lines.append(_top_sentence("full training step", t_rows, t_src))
        same = f_rows[0].name == t_rows[0].name
        lines.append("It is the same kernel in both." if same else "They are different kernels.")
    table = Table("Heaviest kernel", Result(_TOP_COLUMNS, rows, [], _TOP_HEADERS), "heaviest")
    return ReportSection("b", "", lines, [table], notes)


def _nonempty(rows: list[KernelTime], what: str) -> list[KernelTime]:
    if not rows:
        raise MissingDataError(f"no kernel was launched inside the {what}; check the range names and --attribution")
    return rows


def _top_row(label: str, rows: list[KernelTime]) -> tuple:
    top = _nonempty(rows, label)[0]
    total = sum(r.total_ns for r in rows)
    return (label, top.name, top.total_ns, top.instances, top.avg_ns, 100.0 * top.total_ns / total)


def _top_sentence(what: str, rows: list[KernelTime], source: str) -> str:
    top = rows[0]
    total = sum(r.total_ns for r in rows)
    return (f"{what.capitalize()}: {top.name} has the most GPU time, {top.total_ns / 1e3:.1f} us in "
            f"{top.instances} calls (avg {top.avg_ns / 1e3:.2f} us), {100.0 * top.total_ns / total:.1f} % of "
            f"{total / 1e3:.1f} us; from {source}.")


# -- (c) -------------------------------------------------------------------------------------------------------

_NONMM_COLUMNS = ["category", "kernel", "total_time_ns", "calls", "avg_ns", "time_pct"]
_NONMM_HEADERS = ["Category", "Kernel", "Total Time (ns)", "Calls", "Avg (ns)", "Time (%)"]


def _section_c(fwd: _Input, options: ReportOptions, rules: RuleSet) -> ReportSection:
    rows, source = forward_kernels(fwd, options)
    total = sum(r.total_ns for r in _nonempty(rows, "forward ranges"))
    matched = [(rules.classify(r.name), r) for r in rows]
    nonmm = [(m.category, r) for m, r in matched if rules.group_of(m.category) != MATMUL]
    listed = [(c, r) for c, r in nonmm if 100.0 * r.total_ns / total >= TRIVIAL_PCT][: options.top]
    table = [(c, r.name, r.total_ns, r.instances, r.avg_ns, 100.0 * r.total_ns / total) for c, r in listed]
    share = 100.0 * sum(r.total_ns for _, r in nonmm) / total
    lines = [(f"Non-matmul kernels take {share:.1f} % of the forward pass's kernel time ({total / 1e3:.1f} us); "
             f"the {len(listed)} with at least {TRIVIAL_PCT:g} % each are listed (at most --top {options.top}).")]
    notes = [(f"Kernels: {source}. Categories from the built-in rules (docs/categories.md); Time (%) is of all "
             "forward-pass kernel time.")]
    notes += [LOG_SOFTMAX_NOTE] if any(m.rule == LOG_SOFTMAX_RULE for m, _ in matched) else []
    return ReportSection("c", "", lines, [Table("Non-matmul kernels", Result(_NONMM_COLUMNS, table, [], _NONMM_HEADERS),
                                                   "non_matmul")], notes)


# -- (d) -------------------------------------------------------------------------------------------------------

_CAT_COLUMNS = ["category", "forward_ns", "forward_pct", "train_ns", "train_pct", "change_pp"]
_CAT_HEADERS = ["Category", "Forward (ns)", "Forward (%)", "Training (ns)", "Training (%)", "Change (pp)"]


def category_shares(profile: Profile, steady: Steady, rules: RuleSet) -> tuple[dict[str, float], float, list[str]]:
    """GPU time per category, and per group under 'group:matmul' / 'group:non-matmul', of the steady state of
    `profile` (kernels, copies and memsets, as `breakdown` counts it: one implementation), the total, and
    breakdown's notes on what the categories hold."""
    column = summarize(profile, rules, steady=steady)
    out: dict[str, float] = {}
    for c in category_times(column, rules):
        out[c.category] = c.time_ns
        out[f"group:{c.group}"] = out.get(f"group:{c.group}", 0.0) + c.time_ns
    return out, column.basis.total_ns, category_notes([column])


def _steady(inp: _Input, options: ReportOptions) -> Steady:
    """The steady state of one profile: its step ranges (else its forward ranges) after the warm-up."""
    if inp.profile is None:
        raise MissingDataError(NO_TRAIN_FIX)
    if not has_kernels(inp.profile):
        raise MissingDataError(f"the {inp.label} profile {inp.profile.path} has no CUDA kernels; {NO_KERNELS_FIX}")
    a = options.attention
    steps = options.step_range if matches(inp.names, options.step_range) else options.forward_range
    return steady_state(inp.profile, "steady", steps, a.warmup_range, a.warmup_steps, inp.names)


def _section_d(fwd: _Input, trn: _Input, options: ReportOptions, rules: RuleSet) -> ReportSection:
    f_steady, t_steady = _steady(fwd, options), _steady(trn, options)
    (f, f_total, f_notes), (t, t_total, t_notes) = category_shares(fwd.profile, f_steady, rules), \
        category_shares(trn.profile, t_steady, rules)
    keys = [f"group:{g}" for g in ("matmul", "non-matmul")] + [c for c in rules.category_names
                                                                if (c in f or c in t) and rules.group_of(c) != MATMUL]
    rows = []
    for k in keys:
        fp, tp = 100.0 * f.get(k, 0) / f_total, 100.0 * t.get(k, 0) / t_total
        rows.append((k.replace("group:", "all ") if k.startswith("group:") else k, round(f.get(k, 0)), fp,
                     round(t.get(k, 0)), tp, tp - fp))
    mm_f, mm_t = rows[0][2], rows[0][4]
    lines = [(f"Matmul share of GPU time: {mm_f:.1f} % in the forward pass, {mm_t:.1f} % in the training step "
             f"({mm_t - mm_f:+.1f} percentage points).")]
    biggest = max(rows[2:], key=lambda r: abs(r[5]), default=None)
    if biggest:
        lines.append(f"The largest change among the categories: {biggest[0]} ({biggest[5]:+.1f} pp).")
    counted = ("Kernels, copies and memsets launched in that window (process attribution), as `breakdown FORWARD "
               "TRAIN` counts them by default; percentages are of each profile's summed GPU time; categories from "
               "the built-in rules.")
    notes = [f"Forward: {f_steady.text}.", f"Training: {t_steady.text}.", counted]
    notes += list(dict.fromkeys(f_notes + t_notes))
    table = Table("GPU time by category", Result(_CAT_COLUMNS, rows, [], _CAT_HEADERS), "categories")
    return ReportSection("d", "", lines, [table], notes)


# -- (e) -------------------------------------------------------------------------------------------------------

def _attention_input(fwd: _Input, trn: _Input, options: ReportOptions) -> _Input:
    """The profile (e) reads: the forward one, unless only the training one has the attention range."""
    attention = options.attention.ranges.attention
    if (fwd.warmup is None or not matches(fwd.names, attention)) and trn.warmup is not None \
            and matches(trn.names, attention):
        return trn
    return fwd


def _section_e(fwd: _Input, trn: _Input, options: ReportOptions) -> ReportSection:
    inp = _attention_input(fwd, trn, options)
    if inp.warmup is None:
        raise MissingDataError(f"the {inp.label} profile has no NVTX ranges; {NO_NVTX_FIX}")
    a = analyze_attention(inp.profile, _with_step_range(options, inp), _ops(inp, options), inp.names)
    lines = [f"From the {inp.label} profile ({inp.profile.path})."] + a.findings
    return ReportSection("e", "", lines, [Table("Attention pieces", a.totals, "attention")], a.notes)


def _with_step_range(options: ReportOptions, inp: _Input) -> AttentionOptions:
    cutoff = options.step_range if matches(inp.names, options.step_range) else options.forward_range
    return replace(options.attention, step_range=cutoff)


# -- (f) -------------------------------------------------------------------------------------------------------

def _section_f(fwd: _Input, trn: _Input, options: ReportOptions) -> ReportSection:
    """From the training profile (backward is there), else the forward one: the module tree to MODULE_DEPTH, and
    the heaviest modules of the whole tree named with their forward and backward time."""
    from ..modules.report import MODULE_COLUMNS, to_depth
    from ..modules.run import modules_report

    inp = trn if trn.profile is not None else fwd
    m = modules_report(inp.profile, top=1, step_range=options.step_range,
                       warmup_range=options.attention.warmup_range)
    col = MODULE_COLUMNS.index
    rows = m.modules.rows
    names = [r[col("module")] for r in rows]
    leaves = [r for r in rows if not any(n.startswith(r[col("module")] + ".") for n in names)]
    leaves.sort(key=lambda r: -(r[col("forward_ms")] + (r[col("backward_ms")] or 0)))  # None: in its parent's
    lines = [f"From the {inp.label} profile ({inp.profile.path}), by {m.source}."]
    if leaves:
        top = leaves[0]
        ratio = f", {top[col('bwd_fwd_ratio')]:.1f}x its forward" if top[col("bwd_fwd_ratio")] else ""
        bwd = top[col("backward_ms")]
        times = (f"{top[col('forward_ms')]:.2f} ms forward and {bwd:.2f} ms backward per step" if bwd is not None
                 else f"{top[col('forward_ms')]:.2f} ms forward per step (its backward is timed with its parent's)")
        lines.append(f"The heaviest module is {top[col('module')]}: {times}{ratio}, {top[col('step_pct')]:.1f} % of "
                     "the step's wall time.")
        if len(leaves) > 1:
            rest = ", ".join(f"{r[col('module')]} ({r[col('step_pct')]:.1f} %)" for r in leaves[1:4])
            lines.append(f"Next: {rest}.")
    shallow = to_depth(m, MODULE_DEPTH).modules.rows
    table = Table(f"GPU time per module (ms per step, to depth {MODULE_DEPTH})",
                  Result(MODULE_COLUMNS, shallow, []), "modules")
    notes = [*m.modules.notes, f"`nsys-analytics modules {inp.profile.path}` lists every module and its kernels."]
    return ReportSection("f", "", lines, [table], notes)
