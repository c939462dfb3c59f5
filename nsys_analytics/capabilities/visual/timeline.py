"""Build a `Timeline` (rows of boxes and density bands, no I/O) from the timeline queries.

Rows, top to bottom, per GPU and stream: CUDA graph executions (when the window has any) and the stream's kernels,
copies and memsets; then per process: NVTX ranges per thread, CUDA API calls per thread. The CUDA API rows of
threads that were almost idle in the window (a compile worker's two calls) are folded into one row, so a
torch.compile profile is not a page of near-empty rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..categories import RuleSet, load_rules
from .data import Grid, TimelineRows, timeline_rows
from .window import TimeWindow, WindowRequest, resolve

if TYPE_CHECKING:
    from ...data.profile import Profile

DEFAULT_WIDTH_PX = 1600
QUIET_SHARE = 0.001  # a thread whose CUDA calls fill less than this share of the window is folded (if 2+ are)
API_COLOR_KEYS = {"sync": "CUDA sync call", "copy": "CUDA copy call", "launch": "CUDA launch call"}


@dataclass
class Lane:
    kind: str    # 'nvtx' | 'api' | 'graph' | 'gpu'
    key: tuple   # (pid, tid) for nvtx/api, (device, stream) for graph/gpu
    title: str
    levels: int = 1


@dataclass
class Box:
    lane: int         # index into Timeline.lanes
    level: int        # nesting level within the lane (0 at the top)
    shape: str        # 'box': one operation; 'band': the operations of one pixel column
    start_ns: int
    end_ns: int
    busy_ns: int      # time the operations take inside the window (a band: their sum)
    count: int        # operations it stands for
    color_key: str    # kernel category, 'memcpy HtoD', 'memset', 'NVTX', 'CUDA launch call', ...
    label: str | None = None


@dataclass
class Timeline:
    title: str
    window: TimeWindow
    width_px: int
    ns_per_px: int
    lanes: list[Lane] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)  # the rules' kernel categories, in legend order
    highlight: tuple[int, int] | None = None  # a span to shade (ns), e.g. a finding's window
    clock: str = "profile clock"  # whose clock the time axis is on (several ranks: the lowest rank's)

    def busy_ns(self, kind: str) -> int:
        """Summed time of the boxes and bands in lanes of `kind` (what the queries conserve)."""
        return sum(b.busy_ns for b in self.boxes if self.lanes[b.lane].kind == kind)

    def color_keys(self) -> list[str]:
        """The colour keys in use, kernel categories first in rule order."""
        used = {b.color_key for b in self.boxes}
        rest = sorted(used - set(self.categories))
        return [c for c in self.categories if c in used] + rest


def build_timeline(profile: Profile, request: WindowRequest | TimeWindow | None = None, *, rules: RuleSet | None = None,
                   width_px: int = DEFAULT_WIDTH_PX, api: bool = True, nvtx: bool = True,
                   title: str | None = None, highlight: tuple[int, int] | None = None,
                   pid_labels: dict[int, str] | None = None, device_labels: dict[int, str] | None = None) -> Timeline:
    """Query `profile` for the window and lay the result out in lanes. `pid_labels` name processes in row titles
    (a report of a whole launch: {pid: 'rank N'}), `device_labels` the GPUs' rows ({device: 'rank N'}); without,
    several processes are told apart by pid."""
    rules = rules or load_rules()
    window = request if isinstance(request, TimeWindow) else resolve(profile, request or WindowRequest())
    grid = Grid(window, width_px)
    rows = timeline_rows(profile, grid, rules, api=api, nvtx=nvtx)
    timeline = Timeline(title or f"{profile.path.name}: {window.source}", window, width_px, grid.ns_per_px,
                        categories=rules.category_names, highlight=highlight)
    _lay_out(timeline, rows, pid_labels or {}, device_labels or {})
    return timeline


def _lay_out(t: Timeline, rows: TimelineRows, pid_labels: dict[int, str], device_labels: dict[int, str]) -> None:
    _add_gpu_lanes(t, rows, device_labels)
    names = {(pid, tid): name for pid, tid, name, _ in rows.threads}
    quiet = _quiet_threads(rows.api, t.window.duration_ns)
    pids = sorted({r[0] for r in rows.nvtx} | {r[0] for r in rows.api if (r[0], r[1]) not in quiet})
    many = len(pids) > 1
    for pid in pids:
        for kind, source in (("nvtx", rows.nvtx), ("api", rows.api)):
            for tid in sorted({r[1] for r in source if r[0] == pid}):
                if kind != "api" or (pid, tid) not in quiet:
                    _add_thread_lane(t, kind, pid, tid, _who(pid, tid, names, many, pid_labels), source)
    if quiet:
        _add_folded_lane(t, rows.api, quiet)


def _add_gpu_lanes(t: Timeline, rows: TimelineRows, device_labels: dict[int, str]) -> None:
    devices = sorted({(r[0], r[1]) for r in rows.gpu} | {(r[0], r[1]) for r in rows.graphs}, key=_none_last)
    for device, stream in devices:
        lead = f"{device_labels[device]} · " if device in device_labels else ""
        graphs = [r for r in rows.graphs if (r[0], r[1]) == (device, stream)]
        if graphs:
            lane = _new_lane(t, Lane("graph", (device, stream), f"{lead}GPU {device} · stream {stream} · graphs"))
            t.boxes += [Box(lane, 0, "box", s, e, e - s, n, "CUDA graph", f"graph launch {corr}")
                        for _, _, corr, s, e, n in graphs]
        lane = _new_lane(t, Lane("gpu", (device, stream), f"{lead}GPU {device} · stream {stream}"))
        t.boxes += [Box(lane, 0, shape, s, e, busy, n, color, label)
                    for d, st, shape, s, e, busy, n, color, label, _, _ in rows.gpu if (d, st) == (device, stream)]


def _who(pid: int, tid: int, names: dict, many: bool, pid_labels: dict[int, str]) -> tuple[str, str]:
    """(what leads the row title: 'rank N' or '', the thread: 'pid P · name (tid)' or 'name (tid)')."""
    name = names.get((pid, tid))
    who = f"{name} ({tid})" if name else f"thread {tid}"
    if pid in pid_labels:
        return pid_labels[pid], who
    return "", f"pid {pid} · {who}" if many else who


def _quiet_threads(api_rows, window_ns: int) -> set[tuple[int, int]]:
    """The threads whose CUDA calls fill under QUIET_SHARE of the window; none unless at least two are."""
    busy: dict[tuple[int, int], int] = {}
    for r in api_rows:
        busy[(r[0], r[1])] = busy.get((r[0], r[1]), 0) + r[6]
    quiet = {k for k, ns in busy.items() if ns < QUIET_SHARE * max(window_ns, 1)}
    return quiet if len(quiet) >= 2 else set()


def _add_folded_lane(t: Timeline, source, quiet: set[tuple[int, int]]) -> None:
    """One row for the quiet threads' CUDA calls, all at level 0."""
    title = f"CUDA API · {len(quiet)} other threads (each < {QUIET_SHARE:.1%} busy)"
    lane = _new_lane(t, Lane("api", ("folded", len(quiet)), title, 1))
    for pid, tid, _level, shape, s, e, busy, n, label in source:
        if (pid, tid) in quiet:
            t.boxes.append(Box(lane, 0, shape, s, e, busy, n, _api_color(label), label))


def _add_thread_lane(t: Timeline, kind: str, pid: int, tid: int, who: tuple[str, str], source) -> None:
    mine = [r for r in source if r[0] == pid and r[1] == tid]
    levels = max(r[2] for r in mine) + 1
    title = " · ".join(p for p in (who[0], "NVTX" if kind == "nvtx" else "CUDA API", who[1]) if p)
    lane = _new_lane(t, Lane(kind, (pid, tid), title, levels))
    for _, _, level, shape, s, e, busy, n, label in mine:
        color = "NVTX" if kind == "nvtx" else _api_color(label)
        t.boxes.append(Box(lane, level, shape, s, e, busy, n, color, label))


def _api_color(name: str | None) -> str:
    n = (name or "").lower()
    if "synchronize" in n or "eventsynchronize" in n or "streamwait" in n:
        return API_COLOR_KEYS["sync"]
    if "memcpy" in n or "memset" in n:
        return API_COLOR_KEYS["copy"]
    if "launch" in n:
        return API_COLOR_KEYS["launch"]
    return "CUDA call"


def _new_lane(t: Timeline, lane: Lane) -> int:
    t.lanes.append(lane)
    return len(t.lanes) - 1


def _none_last(key: tuple) -> tuple:
    return tuple((v is None, v if v is not None else 0) for v in key)
