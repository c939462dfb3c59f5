"""`breakdown`: GPU time by kernel category, matmul vs non-matmul, and the top non-matmul kernels.

One profile gives one *column*; two profiles (inference vs training) or the NVTX ranges of one profile
(`summarize_ranges`, see ranges.py) give several, shown side by side. Every table says what its percentages are of (the *basis*):

- kernel   (default) the summed durations of the operations listed (kernels + memcpy/memset);
- gpu-busy the union of the intervals when the GPU ran anything, per device; where operations overlap,
           every instant is shared equally among them, so the categories add up to 100 %;
- wall     the time window (filter, else capture) x devices; the time nothing ran is `idle`.

Builds a `BreakdownReport` (sections of `Result`s); no printing, no plotting here.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import astuple, dataclass, field
from typing import TYPE_CHECKING

from ..categories.data import NameTime, name_times, require_kernels, with_counts
from ..categories.rules import MATMUL, RuleSet
from ...core.errors import UsageError
from ...core.filters import KernelFilter
from ..nvtx.steady import STEP_RANGE, WARMUP_RANGE, Steady, Warmup, steady_state
from ...core.result import Result
from .data import window_ns
from .ranges import check_ranges, heaviest_ranges, range_name_times, range_names

if TYPE_CHECKING:
    from ...data.profile import Profile

BASES = ("kernel", "gpu-busy", "wall")
IDLE = "idle"
DEFAULT_TOP = 8
LOG_SOFTMAX_RULE = "log-softmax"  # the built-in rule (kernel_categories.toml) that puts the loss's log-softmax in loss
LOG_SOFTMAX_NOTE = ("The loss's log-softmax (cross-entropy's LogSoftMax*Epilogue and is_log_softmax kernels) is "
                    "counted in loss, not softmax (rule log-softmax, docs/categories.md).")


@dataclass(frozen=True)
class Basis:
    """What 100 % is for one column."""

    kind: str
    total_ns: float
    text: str


@dataclass
class Column:
    """One profile (or NVTX range) summarized: its names' times on one basis."""

    label: str
    names: list[NameTime]
    basis: Basis
    window: str = ""  # which operations it covers (the steady state or the whole capture), for the notes

    def time_of(self, row: NameTime) -> float:
        """The row's time on this column's basis (summed durations, or share of busy time)."""
        return float(row.total_ns if self.basis.kind == "kernel" else row.busy_ns or 0.0)

    def pct(self, time_ns: float) -> float:
        return 100.0 * time_ns / self.basis.total_ns if self.basis.total_ns else 0.0

    def to_json(self) -> dict:
        """Plain JSON values (memo.py keeps a --by range breakdown's columns in the cache folder)."""
        return {"label": self.label, "names": [astuple(n) for n in self.names], "basis": astuple(self.basis),
                "window": self.window}

    @classmethod
    def from_json(cls, d: dict) -> Column:
        names = [NameTime(category, rule, tuple(tags), *rest) for category, rule, tags, *rest in d["names"]]
        return cls(d["label"], names, Basis(*d["basis"]), d["window"])


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    result: Result


@dataclass
class BreakdownReport:
    """The sections of a breakdown, and each column's category shares (for plots)."""

    title: str
    basis: str
    columns: list[Column]
    sections: list[Section]
    shares: dict[str, dict[str, float]] = field(default_factory=dict)  # label -> category -> %

    def frames(self):
        """{section key: pandas DataFrame}."""
        return {s.key: s.result.to_pandas() for s in self.sections}


@dataclass(frozen=True)
class CategoryTime:
    category: str
    group: str
    time_ns: float
    instances: int


# -- columns --------------------------------------------------------------------------------------------

def summarize(
    profile: Profile, rules: RuleSet, filters: KernelFilter | None = None, basis: str = "kernel",
    memory_ops: bool = True, label: str | None = None, steady: Steady | None = None,
) -> Column:
    """One profile as one column of a breakdown: the operations of `steady` (nvtx/steady.py: the steady state, or
    the whole capture; None: the whole capture) that pass `filters`."""
    check_basis(basis)
    filters = filters or KernelFilter()
    steady = steady or Steady(None, Warmup(None, None, ""))
    memory_ops = memory_ops and not filters.by_range  # NVTX range filters place kernels only
    names = name_times(profile, rules, filters, memory_ops=memory_ops, busy=basis != "kernel",
                       steady=steady.ops_params() if steady.step_range else None)
    window = None
    if basis == "wall":
        start, end = window_ns(profile, filters, names, steady)
        window = (end - start, f"the window {format_ns(start)}..{format_ns(end)}")
    return Column(label or profile.path.stem, names, make_basis(basis, names, memory_ops, window),
                  f"{steady.text}")


def summarize_ranges(
    profile: Profile, rules: RuleSet, filters: KernelFilter | None = None, basis: str = "kernel",
    memory_ops: bool = True, names: list[str] | None = None,
) -> list[Column]:
    """One column per NVTX range (`names`, else the ranges with the most GPU time), operations attributed
    by the process rule (see breakdown/ranges.py)."""
    check_basis(basis)
    require_kernels(profile)
    filters = filters or KernelFilter()
    memory_ops = memory_ops and not filters.by_range  # NVTX range filters place kernels only
    known = range_names(profile)
    chosen = check_ranges(known, names) if names else None
    if chosen is None:  # all ranges on the kernel basis, then the heaviest
        rows = range_name_times(profile, rules, filters, memory_ops, sorted(known), busy=False)
        chosen = heaviest_ranges(known, rows)
    if basis != "kernel" or names:
        rows = range_name_times(profile, rules, filters, memory_ops, chosen, busy=basis != "kernel")
    columns = []
    for name in chosen:
        part = [r for r in rows if r.part == name]
        window = (known[name].open_ns, f"the time {name!r} was open") if basis == "wall" else None
        columns.append(Column(name, part, make_basis(basis, part, memory_ops, window)))
    return columns


def check_basis(basis: str) -> None:
    if basis not in BASES:
        raise UsageError(f"basis {basis!r}: choose one of {', '.join(BASES)}")


def make_basis(kind: str, names: Sequence[NameTime], memory_ops: bool, window: tuple[int, str] | None) -> Basis:
    """The denominator of one column and the sentence that says what it is (`window`: length and words,
    for the wall basis)."""
    kernels = sum(r.instances for r in names if r.rule not in ("memcpy", "memset"))
    memops = sum(r.instances for r in names) - kernels
    ops = f"{kernels:,} kernels" + (f" and {memops:,} memcpy/memset (in memory)" if memory_ops else
                                    " (memcpy/memset left out)")
    if kind == "kernel":
        total = float(sum(r.total_ns for r in names))
        return Basis(kind, total, f"{format_ns(total)} = the summed durations of {ops} (basis kernel)")
    busy = float(sum(r.busy_ns or 0.0 for r in names))
    if kind == "gpu-busy":
        return Basis(kind, busy, f"{format_ns(busy)} = the time the GPU ran any of {ops}, overlaps counted "
                                 "once and shared equally (basis gpu-busy)")
    length, words = window or (0, "no window")
    devices = len({r.device for r in names}) or 1
    total = float(max(length, 0) * devices)
    text = f"{format_ns(total)} = {words} x {devices} device(s), covering {ops}; idle = nothing ran (basis wall)"
    if busy > total:  # operations launched in a range run on after it closes
        text += (f"; they kept the GPU busy {format_ns(busy)}, longer than that (work launched inside ran on after "
                 "it ended), so the shares add up past 100 % and idle reads 0")
    return Basis(kind, total, text)


def category_times(column: Column, rules: RuleSet) -> list[CategoryTime]:
    """Time and instances per category, in the rule set's category order; `idle` last on the wall basis."""
    time: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for row in column.names:
        time[row.category] += column.time_of(row)
        count[row.category] += row.instances
    out = [CategoryTime(c.name, c.group, time[c.name], count[c.name]) for c in rules.categories if c.name in time]
    if column.basis.kind == "wall":
        out.append(CategoryTime(IDLE, IDLE, max(column.basis.total_ns - sum(time.values()), 0.0), 0))
    return out


def group_times(column: Column, rules: RuleSet) -> list[CategoryTime]:
    """The matmul / non-matmul roll-up (and idle on the wall basis)."""
    time: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for c in category_times(column, rules):
        time[c.group] += c.time_ns
        count[c.group] += c.instances
    order = [MATMUL, "non-matmul", IDLE]
    return [CategoryTime(g, g, time[g], count[g]) for g in order if g in time or g != IDLE]


def tagged_time(column: Column, tag: str) -> float:
    return sum(column.time_of(r) for r in column.names if tag in r.tags)


def top_names(column: Column, rules: RuleSet, n: int) -> list[tuple[NameTime, float]]:
    """The `n` heaviest non-matmul names (summed over devices), with their time on the column's basis."""
    merged: dict[tuple[str, str], list] = {}
    for row in column.names:
        if rules.group_of(row.category) == MATMUL:
            continue
        key = (row.name, row.category)
        entry = merged.setdefault(key, [row, 0.0, 0])
        entry[1] += column.time_of(row)
        entry[2] += row.instances
    ranked = sorted(merged.values(), key=lambda e: (-e[1], e[0].name))[:n]
    return [(with_counts(row, count, row.total_ns), time) for row, time, count in ranked]


# -- sections -------------------------------------------------------------------------------------------

def build_report(columns: list[Column], rules: RuleSet, top: int | None = DEFAULT_TOP,
                 title: str = "") -> BreakdownReport:
    """Categories, matmul roll-up and top non-matmul kernels of one column, or side by side for several
    (`top` None: no top-kernel tables)."""
    notes = basis_notes(columns)
    sections = [
        Section("categories", "GPU time by category",
                _matrix(columns, rules, category_times, rules.category_names + [IDLE], "category",
                        notes + category_notes(columns))),
        Section("rollup", "Matmul vs non-matmul", _rollup(columns, rules, notes)),
    ]
    for column in columns if top else []:
        suffix = f": {column.label}" if len(columns) > 1 else ""
        key = "top" if len(columns) == 1 else f"top_{_key(column.label)}"
        sections.append(Section(key, f"Top {top} non-matmul kernels{suffix}", _top(column, rules, top)))
    shares = {c.label: {t.category: c.pct(t.time_ns) for t in category_times(c, rules)} for c in columns}
    basis = columns[0].basis.kind if columns else "kernel"
    return BreakdownReport(title or ", ".join(c.label for c in columns), basis, columns, sections, shares)


def category_notes(columns: Sequence[Column]) -> list[str]:
    """What a category holds that a reader would not guess: the loss's log-softmax is in loss, not softmax."""
    return [LOG_SOFTMAX_NOTE] if any(r.rule == LOG_SOFTMAX_RULE for c in columns for r in c.names) else []


def basis_notes(columns: Sequence[Column]) -> list[str]:
    """The lines under every table: what 100 % is, and which window each column covers."""
    if len(columns) == 1:
        window = [f"Window: {columns[0].window}."] if columns[0].window else []
        return [f"Time (%) is of {columns[0].basis.text}."] + window
    windows = [f"Window of {c.label}: {c.window}." for c in columns if c.window]
    spans = [_SPAN.search(c.window) for c in columns]
    if len(windows) == len(columns) and all(spans) and len({_SPAN.sub("", c.window) for c in columns}) == 1:
        # the same window in every column but its times, each on its own file's clock: said once
        first, last = min(spans, key=lambda m: float(m[1]))[1], max(spans, key=lambda m: float(m[2]))[2]
        span = f", {first}-{last} s over the columns, each on its own file's clock"
        windows = [f"Window of every column: {_SPAN.sub(span, columns[0].window)}."]
    return ["Time (%) is of, per column:"] + [f"{c.label}: {c.basis.text}." for c in columns] + windows


_SPAN = re.compile(r", (\d+\.\d+)-(\d+\.\d+) s")  # a window's time span in its text (nvtx/steady.py)


def _matrix(columns, rules, rows_of, order: list[str], first: str, notes: list[str]) -> Result:
    """One row per category (or group) in `order`, if any column has it; per column time and % (two
    columns, with the change in percentage points) or % only (more columns)."""
    per_column = [{t.category: t for t in rows_of(c, rules)} for c in columns]
    order = [k for k in order if any(k in p for p in per_column)]
    if len(columns) == 1:
        return _single(columns[0], per_column[0], order, first, notes)
    return _side_by_side(columns, per_column, order, first, notes)


def _single(column: Column, times: dict, order: list[str], first: str, notes: list[str]) -> Result:
    columns = [first, "group", "time_ns", "time_pct", "instances"]
    headers = [first.capitalize(), "Group", "Time (ns)", "Time (%)", "Instances"]
    rows = [(k, times[k].group, round(times[k].time_ns), column.pct(times[k].time_ns), times[k].instances)
            for k in order]
    if first == "group":
        columns, headers, rows = columns[:1] + columns[2:], headers[:1] + headers[2:], [r[:1] + r[2:] for r in rows]
    # a narrow terminal keeps the share, what a breakdown is about, longer than the count (output/fit.py)
    return Result(columns, rows, list(notes), headers, key_columns=(first, "time_pct"))


def _side_by_side(cols: list[Column], per_column: list[dict], order: list[str], first: str,
                  notes: list[str]) -> Result:
    keys = _unique_keys([c.label for c in cols])
    columns, headers = [first], [first.capitalize()]
    for key, c in zip(keys, cols):
        if len(cols) == 2:
            columns.append(f"{key}_time_ns")
            headers.append(f"{c.label} (ns)")
        columns.append(f"{key}_time_pct")
        headers.append(f"{c.label} (%)")
    if len(cols) == 2:
        columns.append("change_pct_points")
        headers.append("Change (points)")
    rows = [_side_row(k, cols, per_column) for k in order]
    return Result(columns, rows, list(notes), headers)


def _side_row(key: str, cols: list[Column], per_column: list[dict]) -> tuple:
    row: list = [key]
    pcts = []
    for c, times in zip(cols, per_column):
        t = times[key].time_ns if key in times else 0.0
        row += [round(t), c.pct(t)] if len(cols) == 2 else [c.pct(t)]
        pcts.append(c.pct(t))
    if len(cols) == 2:
        row.append(pcts[1] - pcts[0])
    return tuple(row)


def _rollup(columns: list[Column], rules: RuleSet, notes: list[str]) -> Result:
    result = _matrix(columns, rules, group_times, [MATMUL, "non-matmul", IDLE], "group", notes)
    conv = [(c.label, c.pct(tagged_time(c, "conv"))) for c in columns if tagged_time(c, "conv")]
    if conv:
        parts = ", ".join(f"{label}: {pct:.1f} %" for label, pct in conv)
        result.notes.append(f"Convolutions (rules tagged conv; implicit-GEMM ones are in matmul): {parts}.")
    return result


def _top(column: Column, rules: RuleSet, n: int) -> Result:
    rows = [(i + 1, row.category, round(time), column.pct(time), row.instances, row.name)
            for i, (row, time) in enumerate(top_names(column, rules, n))]
    # "Position", not "Rank": over rank files a list position named Rank read as the GPU rank
    return Result(["position", "category", "time_ns", "time_pct", "instances", "name"], rows, basis_notes([column]),
                  ["Position", "Category", "Time (ns)", "Time (%)", "Instances", "Name"])


def _unique_keys(labels: list[str]) -> list[str]:
    keys, used = [], set()
    for label in labels:
        key = _key(label)
        while key in used:
            key += "_2"
        used.add(key)
        keys.append(key)
    return keys


def _key(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", label).strip("_").lower() or "column"


# -- Python API -----------------------------------------------------------------------------------------

LEVELS = {"category": "categories", "group": "rollup", "kernel": "top"}


def breakdown_report(
    profiles: Sequence[Profile], basis: str = "kernel", rules=None, top: int = DEFAULT_TOP,
    memory_ops: bool = True, by: str | None = None, ranges: list[str] | None = None, window: str = "steady",
    step_range: str = STEP_RANGE, warmup_range: str | None = WARMUP_RANGE, kernel_filter: KernelFilter | None = None,
    **filters,
) -> BreakdownReport:
    """The breakdown of one profile, of several side by side (e.g. inference, training), or with
    `by="range"` of one profile's NVTX ranges side by side (`ranges`: their names; default: the ranges
    open longest).

    `rules`: path(s) of TOML rule files merged over the built-in ones, or a `RuleSet`.
    Filters as in `Profile.kernel_summary` (name_kind, device, stream, pid, start_ns, end_ns, match), or one
    `kernel_filter`. The steady state (window="steady"): the `step_range` ranges after `warmup_range`.
    `nsys-analytics breakdown` is this function.
    """
    from ..categories.rules import load_rules

    ruleset = rules if isinstance(rules, RuleSet) else load_rules(rules)
    kernel_filter = kernel_filter or KernelFilter(**filters)
    if by not in (None, "range"):
        raise UsageError(f"by {by!r}: the only grouping is 'range'")
    if by == "range":
        if len(profiles) != 1:
            raise UsageError("--by range breaks down one profile; give one")
        columns = _ranges_remembered(profiles[0], ruleset, kernel_filter, basis, memory_ops, ranges)
        return build_report(columns, ruleset, None, f"{profiles[0].path.stem} by NVTX range")
    columns = [summarize(p, ruleset, kernel_filter, basis, memory_ops,
                         steady=steady_state(p, window, step_range, warmup_range)) for p in profiles]
    return build_report(columns, ruleset, top)


def _ranges_remembered(profile: Profile, rules: RuleSet, kernel_filter: KernelFilter, basis: str, memory_ops: bool,
                       ranges: list[str] | None) -> list[Column]:
    """summarize_ranges, or its columns remembered for this file's present content and these options (memo.py)."""
    from .memo import remembered_columns

    key = (rules.fingerprint(), kernel_filter, basis, memory_ops, list(ranges or []))
    return remembered_columns(profile.sqlite_path, key, lambda: summarize_ranges(
        profile, rules, kernel_filter, basis, memory_ops, ranges), Column.from_json)


def breakdown_frame(profile: Profile, basis: str = "kernel", level: str = "category", rules=None,
                    top: int | None = None, memory_ops: bool = True, by: str | None = None,
                    ranges: list[str] | None = None, window: str = "steady", **filters):
    """One table of a profile's breakdown as a DataFrame: per `category`, per `group` (matmul vs
    non-matmul), or per `kernel` (the heaviest non-matmul kernels, `top` of them, all by default).
    With `by="range"`: one time/percent column pair per NVTX range (category and group levels)."""
    if level not in LEVELS or (by == "range" and level == "kernel"):
        raise UsageError(f"level {level!r}: choose one of category, group" + ("" if by else ", kernel"))
    report = breakdown_report([profile], basis, rules, top or 1_000_000, memory_ops, by, ranges, window, **filters)
    return report.frames()[LEVELS[level]]


def format_ns(ns: float) -> str:
    """1234567 -> '1.23 ms'."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.3g} {unit}" if abs(ns) < 100 * scale else f"{ns / scale:,.0f} {unit}"
    return f"{ns:.0f} ns"
