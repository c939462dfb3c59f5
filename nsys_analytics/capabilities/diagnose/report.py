"""`diagnose()`: run the rules on a profile and gather their outcomes into a `DiagnoseReport` (no I/O)."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...data import database
from ...core.errors import MissingDataError, UsageError
from ..nvtx.steady import STEP_RANGE, WARMUP_RANGE, steady_state
from .beyond import BEYOND_RULES, Thresholds
from .data import Window, prepare_views, query_body, reads_pass
from .findings import Finding, cpu_advice, ms, rank
from .memo import remembered_report
from .nsys_rules import NSYS_RULES, NsysOptions, RuleOutcome, run_nsys_rule
from .ranges import attach_ranges, range_window
from .sweep import sweep
from .sync import sync_idle

if TYPE_CHECKING:
    from ...data.profile import Profile

RULES = (*NSYS_RULES, *BEYOND_RULES)
# DuckDB's pool while diagnosing: the process adds about 450 MiB of its own (the pass's numpy arrays, DuckDB's
# allocations outside the pool), and the 1 GB pool filled by launch_bound's join took a 10 M-kernel run to 1.47 GiB
# (700 MB: 1.04 GiB, the same CPU time).
MEMORY_LIMIT = "700MB"
_WHOLE_PROFILE, _NSYS_DEFAULTS, _THRESHOLDS = Window(), NsysOptions(), Thresholds()


@dataclass
class DiagnoseReport:
    outcomes: list[RuleOutcome] = field(default_factory=list)  # nsys rules, in nsys' order
    findings: list[Finding] = field(default_factory=list)  # every rule's findings, most GPU time at stake first
    range: dict[str, Any] | None = None  # with `range_name`: the name, its instances and the window kept
    window: dict[str, Any] = field(default_factory=dict)  # the window diagnosed: kind, from_ns, to_ns, text
    rules: tuple[str, ...] = ()  # the rules run
    graphs: str | None = None  # what was done with whole CUDA graph executions, when the profile has some

    @property
    def skipped(self) -> list[str]:
        return [f"SKIPPED: {o.rule.name}: {o.skipped}" for o in self.outcomes if o.skipped]

    def worst_severity(self) -> str | None:
        return max((f.severity for f in self.findings), key=rank, default=None)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "window": self.window,
            "graphs": self.graphs,
            "findings": [f.to_dict() for f in self.findings],
            "nsys_rules": {o.rule.name: _outcome_dict(o) for o in self.outcomes},
        }
        if self.range is not None:
            d["range"] = self.range
        return d


def diagnose(profile: Profile, rules: tuple[str, ...] = RULES, window: Window = _WHOLE_PROFILE,
             nsys_options: NsysOptions = _NSYS_DEFAULTS, thresholds: Thresholds = _THRESHOLDS,
             range_name: str | None = None, scope: str = "steady", step_range: str = STEP_RANGE,
             warmup_range: str | None = WARMUP_RANGE, graphs: bool = True, warmup_steps: int = 0) -> DiagnoseReport:
    """Run `rules` (nsys' and ours) over `window`; findings come ordered by GPU time at stake.

    `range_name` (text, 'domain:text' or a glob, as `kernels --range`) narrows `window` to the envelope of
    the matching NVTX range instances: from the first one's start to the last one's end. Without a window or
    a range, `scope` 'steady' diagnoses the steady state (steady.py: the `step_range` instances after the
    warm-up) when the profile has step ranges, 'all' the whole capture. Each finding lists the NVTX ranges
    its windows overlap. MissingDataError when nothing could be checked (no CUDA data in the window).
    `graphs`: whole CUDA graph executions (graph_executions) count as GPU work, which nsys analyze leaves out.
    `warmup_steps` N: the first N step instances are warm-up too (steady.py).
    """
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        raise UsageError(f"unknown rule {unknown[0]!r}; choose from {', '.join(RULES)}")
    if window.from_ns > window.to_ns:
        raise UsageError("the start time cannot be later than the end time")
    options = (rules, window, nsys_options, thresholds, range_name, scope, step_range, warmup_range, graphs,
               warmup_steps)
    with database.memory_limit(profile.con, MEMORY_LIMIT):
        return remembered_report(profile, options, lambda: _diagnose(profile, *options), DiagnoseReport)


def _diagnose(profile: Profile, rules: tuple[str, ...], window: Window, nsys_options: NsysOptions,
              thresholds: Thresholds, range_name: str | None, scope: str, step_range: str, warmup_range: str | None,
              graphs: bool, warmup_steps: int) -> DiagnoseReport:
    # What the pass and the rules read (each rule's SQL file has its name), made by the columnar cache now, while
    # the process holds nothing else: a 10 M-kernel _range_ops built after the pass, beside its arrays and tables,
    # took a first run to 1.7 GiB. prepare() only reads the names in the text.
    profile.prepare("\n".join(query_body(name) for name in ("_window_ops", *rules)))
    if "launch_bound" in rules:  # it reads _range_ops twice where it fires (its rows, then the wait), gpu_starved once
        profile.hold("_range_ops")  # read directly, the join of every operation to its launch is then made once
    window, about, scope = _window(profile, window, range_name, scope, step_range, warmup_range, warmup_steps)
    prepare_views(profile, window, graphs, "cuda_api_sync" in rules)
    _require_cuda_data(profile, window, about)
    report = DiagnoseReport(range=scope, window={**about, **window.params()}, rules=tuple(rules),
                            graphs=_graphs_note(profile, graphs))
    order = [r for r in NSYS_RULES if r in rules] + [r for r in BEYOND_RULES if r in rules]

    def run(on: Profile, name: str):
        if name in NSYS_RULES:
            return run_nsys_rule(on, NSYS_RULES[name], window, nsys_options)
        return BEYOND_RULES[name](on, window, thresholds)

    # The rules that do not read the pass's tables run on a second connection while this one runs the pass: the
    # pass is mostly numpy on one CPU, they are DuckDB scans (at 10 M kernels 1.5 s of the 3 s of both).
    with _Beside(profile) as beside:
        early = {name: beside.submit(run, name) for name in order if not reads_pass(name)}
        sweep(profile, _min_gap_ns(rules, nsys_options, thresholds), thresholds.chunks)
        # this connection's rules first, then the results of those beside: waiting for one of them in between
        # left this connection idle (at 10 M kernels 0.2-0.4 s, launch_bound's wait last beside)
        mine = {name: run(profile, name) for name in order if name not in early}
        outcomes = {name: early[name].result() if name in early else mine[name] for name in order}
    for name in order:
        if name in NSYS_RULES:
            report.outcomes.append(outcomes[name])
            report.findings += _nsys_finding(outcomes[name], profile)
        else:
            report.findings += outcomes[name]
    report.findings.sort(key=lambda f: (-f.at_stake_ns, -rank(f.severity), f.rule))
    _name_places(report.findings)
    attach_ranges(profile, report.findings)
    return report


class _Beside:
    """Runs calls on a second connection to the profile's database (Profile.beside), one at a time on a thread, beside
    the caller's work; where the profile has none, at once on its own connection. The connection is closed at the
    end, after the calls still running, which an error in the caller interrupts (a failed call's error comes with its
    result)."""

    def __init__(self, profile: Profile):
        self.profile, self.twin, self.pool = profile, profile.beside(), None

    def __enter__(self) -> _Beside:
        if self.twin is not None:
            from concurrent.futures import ThreadPoolExecutor

            self.pool = ThreadPoolExecutor(max_workers=1)
        return self

    def submit(self, fn, *args) -> Future:
        """fn(profile, *args) on the second connection's profile."""
        if self.pool is not None:
            return self.pool.submit(fn, self.twin, *args)
        done: Future = Future()
        try:
            done.set_result(fn(self.profile, *args))
        except Exception as e:  # noqa: BLE001 - raised by result(), as from the thread
            done.set_exception(e)
        return done

    def __exit__(self, exc_type, *rest) -> None:
        if self.pool is None:
            return
        if exc_type is not None:  # an error or Ctrl-C in the caller: stop the query under way there too
            self.twin.con.interrupt()
        self.pool.shutdown(wait=True, cancel_futures=True)
        database.close(self.twin.con)


def _window(profile: Profile, window: Window, range_name: str | None, scope: str, step_range: str,
            warmup_range: str | None, warmup_steps: int = 0) -> tuple[Window, dict[str, Any], dict | None]:
    """The window to diagnose, what it is ({kind, text}), and the --range details."""
    if range_name is not None:
        window, found = range_window(profile, range_name, window)
        return window, {"kind": "range", "text": f"NVTX range {range_name!r}"}, found
    if window != _WHOLE_PROFILE:
        return window, {"kind": "given", "text": f"{window.from_ns / 1e9:.3f} s to {_to_text(window)}"}, None
    steady = steady_state(profile, scope, step_range, warmup_range, warmup_steps)
    if steady.from_ns is None:
        return window, {"kind": "all", "text": steady.text}, None
    return Window(steady.from_ns, steady.to_ns), {"kind": "steady", "text": steady.text}, None


def _min_gap_ns(rules: tuple[str, ...], nsys_options: NsysOptions, thresholds: Thresholds) -> int:
    """The shortest idle gap a rule to run reads: gpu_gaps' (exclusive) threshold, gpu_starved's minimum."""
    floors = [nsys_options.gap_ms * 1_000_000 + 1] if "gpu_gaps" in rules else []
    floors += [round(thresholds.min_gap_us * 1000)] if "gpu_starved" in rules else []
    return min(floors, default=1)


def _graphs_note(profile: Profile, graphs: bool) -> str | None:
    if not profile.has_table("CUPTI_ACTIVITY_KIND_GRAPH_TRACE"):
        return None
    n = profile.sql("SELECT count(*) FROM graph_executions").rows[0][0]
    if graphs:
        return (f"{n:,} whole CUDA graph executions count as GPU work (nsys analyze leaves them out and sees the "
                "GPU idle there; --no-graphs for its figures).")
    return f"{n:,} whole CUDA graph executions are left out, as nsys analyze does: the GPU looks idle there."


def _to_text(window: Window) -> str:
    return "the end" if window.to_ns == _WHOLE_PROFILE.to_ns else f"{window.to_ns / 1e9:.3f} s"


def _require_cuda_data(profile: Profile, window: Window, about: dict[str, Any]) -> None:
    """MissingDataError when no rule can check anything: no GPU operation and no CUDA API call in the window."""
    if profile.sql("SELECT count(*) FROM _diag.spans").rows[0][0]:  # a span per process/device with GPU work
        return
    calls = profile.sql("SELECT count(*) FROM cuda_api WHERE start_ns < $to AND end_ns >= $from",
                        {"from": window.from_ns, "to": window.to_ns}).rows[0][0]
    if calls:
        return
    if not any(profile.has_table(t) for t in _CUDA_TABLES):
        raise MissingDataError(f"{profile.path}: nothing could be checked: the profile has no CUDA data (kernels, "
                               "copies, memsets or CUDA API calls); profile with `nsys profile --trace=cuda`")
    raise MissingDataError(f"{profile.path}: nothing could be checked: no GPU operation or CUDA API call in "
                           f"{about['text']}; choose another window (--start/--end, --range, --window all)")


_CUDA_TABLES = ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                "CUPTI_ACTIVITY_KIND_GRAPH_TRACE", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER")


def _nsys_finding(outcome: RuleOutcome, profile: Profile) -> list[Finding]:
    """An nsys rule with rows becomes one warning per process (nsys' rules measure each process on its own: two
    processes sharing a GPU have two spans, whose stretches overlap); its totals count every row, not only the --rows
    shown. The time at stake is the rows' total duration, except for synchronization calls: the GPU idle time they
    cause (sync.py)."""
    result = outcome.result
    if result is None or not outcome.total_rows:
        return []
    rule = outcome.rule
    shown_rows = list(zip(result.column("pid"), result.column("duration_ns"), result.column("start_ns")))
    findings = []
    for pid, (n, total_ns) in outcome.by_pid.items():
        mine = [(d, s) for p, d, s in shown_rows if p == pid]
        worst = sorted(mine, reverse=True)[:3]
        shown = len(mine)
        summary = f"{rule.title}: {n:,} {rule.nouns[n != 1]}, {ms(total_ns)} in all" + (
            f"; {shown:,} shown" if shown < n else "")
        finding = Finding(rule.name, "warning", summary, rule.advice.format(cpu=cpu_advice(profile)), int(total_ns),
                          sorted((s, s + d) for d, s in worst), {"rows": n, "shown": shown, "total_ns": total_ns},
                          pid)
        if rule.name == "cuda_api_sync":
            sync_idle(profile, finding)
        findings.append(finding)
    return findings


def _name_places(findings: list[Finding]) -> None:
    """Where findings come from several processes or GPUs, each summary starts with its own ("PID 1013, GPU 0: ..."):
    each rule measures a process and device on its own span, and two alike lines would read as one repeated."""
    places = {(f.pid, f.device) for f in findings if f.pid is not None}
    several_pids = len({pid for pid, _ in places}) > 1
    several_gpus = len({device for _, device in places if device is not None}) > 1
    for f in findings:
        where = [f"PID {f.pid}"] if several_pids and f.pid is not None else []
        where += [f"GPU {f.device}"] if several_gpus and f.device is not None else []
        if where:
            f.summary = f"{', '.join(where)}: {f.summary}"


def _outcome_dict(outcome: RuleOutcome) -> dict[str, Any]:
    if outcome.skipped:
        return {"status": "skipped", "message": outcome.skipped}
    return {"status": "ok", "rows": outcome.result.to_records()}
