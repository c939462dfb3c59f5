"""The timeline's level-of-detail answers: what one window of the profile looks like at one pixel width.

Once per profile, `prepare` stores every interval the timeline draws (kernels, copies, memsets, NVTX ranges) in
the temp table _serve_events, on its lane, in start order. A window is then two queries (sql/serve/): per lane and
pixel column the summed busy time and the colour holding most of it, and the intervals wider than a pixel one by
one (the longest `MAX_EVENTS`). The answer's size depends on the window's width in pixels and the number of
lanes, never on the number of kernels.

A wide window would read every interval. So `prepare` also sums the intervals per bucket of a coarse grid
(`BUCKETS` over the profile's span: _serve_buckets) and keeps apart the few that cross a bucket edge
(_serve_wide). A window whose columns are `COARSE_FROM` buckets or wider is moved onto that grid (its start,
end and column width rounded out to whole buckets; the answer says which it took) and answered from those two
tables, exactly; a narrower window reads _serve_events, of which DuckDB skips the row groups outside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.errors import UsageError
from ...data.sql_files import Relation, inline_params, read

if TYPE_CHECKING:
    from ...data.profile import Profile

MAX_PX = 8192  # the widest window a request may ask for, in pixel columns
MAX_EVENTS = 5000  # intervals returned one by one per window, at most (the longest)
BUCKETS = 1 << 16  # buckets of the coarse grid over the profile's span
COARSE_FROM = 4  # columns this many buckets wide or wider come from the grid (rounding widens them by < 25 %)
EXTRA_LABELS = ("memcpy", "memset")


@dataclass(frozen=True)
class Timeline:
    """What `prepare` learnt of a profile: its lanes, its colour labels, the span of its intervals."""

    lanes: list[dict]
    labels: list[str]  # colour id -> label: kernel categories, copy, memset, then NVTX range names
    kernel_labels: int  # ids below this are kernel categories
    start_ns: int | None
    end_ns: int | None
    bucket_ns: int = 1  # the coarse grid: buckets this wide from start_ns

    def to_dict(self) -> dict:
        return {"lanes": self.lanes, "labels": self.labels, "kernel_labels": self.kernel_labels,
                "start_ns": self.start_ns, "end_ns": self.end_ns}


def prepare(profile: Profile, rules) -> Timeline:
    """Build the temp tables the window queries read; a few seconds per ten million kernels, once."""
    categories = rules.category_names
    _store(profile, "_serve_lanes", "serve_lanes", {})
    _classify(profile, rules, categories)
    first_nvtx = len(categories) + len(EXTRA_LABELS)
    _store(profile, "_serve_nvtx_names", "serve_nvtx_names", {"first": first_nvtx})
    _store(profile, "_serve_events", "serve_events", {
        "memcpy_cat": len(categories), "memset_cat": len(categories) + 1, "other_cat": categories.index("other")})
    lanes = profile.sql("SELECT * FROM _serve_lanes ORDER BY lane")
    names = profile.sql("SELECT name FROM _serve_nvtx_names ORDER BY cat").rows
    start, end = profile.sql("SELECT min(start_ns), max(end_ns) FROM _serve_events").rows[0]
    bucket = max(1, -(-(end - start) // BUCKETS)) if start is not None else 1
    grid = {"origin": start or 0, "bucket_ns": bucket}
    _store(profile, "_serve_buckets", "serve_buckets", grid)
    _store(profile, "_serve_wide", "serve_wide", grid)
    return Timeline([dict(zip(lanes.columns, r)) for r in lanes.rows], [*categories, *EXTRA_LABELS,
                    *(n for (n,) in names)], len(categories), start, end, bucket)


def _store(profile: Profile, table: str, query: str, params: dict) -> None:
    text = inline_params(read("serve", query).text, params)
    profile.sql(f"CREATE OR REPLACE TEMP TABLE {table} AS {text}")


def _classify(profile: Profile, rules, categories: list[str]) -> None:
    """_serve_categories(name_id, cat): each kernel name's category id, by the rules (names classified once)."""
    names = profile.run_file("serve", "serve_kernel_names").rows
    matches = rules.classify_all(name for _, name in names)
    profile.sql("CREATE OR REPLACE TEMP TABLE _serve_categories (name_id BIGINT, cat INTEGER)")
    values = [(int(i), categories.index(matches[n].category)) for i, n in names if i is not None]
    for chunk in range(0, len(values), 1000):  # ints only: nothing to quote
        profile.sql("INSERT INTO _serve_categories VALUES " +
                    ", ".join(f"({i}, {c})" for i, c in values[chunk:chunk + 1000]))


@dataclass(frozen=True)
class Window:
    """A request: [t0, t1) in ns, `px` columns."""

    t0: int
    t1: int
    px: int
    column_ns: int | None = None  # the column width; default: the window over px, rounded up

    def __post_init__(self):
        if self.t1 <= self.t0:
            raise UsageError("t1 must be after t0")
        if not 1 <= self.px <= MAX_PX:
            raise UsageError(f"px must be between 1 and {MAX_PX}")

    @property
    def ns_per_px(self) -> int:
        return self.column_ns or max(1, -(-(self.t1 - self.t0) // self.px))

    def params(self) -> dict:
        return {"t0": self.t0, "t1": self.t1, "ns_per_px": self.ns_per_px}


def on_grid(window: Window, timeline: Timeline) -> Window | None:
    """The window rounded out to whole buckets of the coarse grid, or None when its columns are too narrow."""
    b, origin = timeline.bucket_ns, timeline.start_ns or 0
    if window.ns_per_px < COARSE_FROM * b:
        return None
    t0 = origin + (window.t0 - origin) // b * b
    t1 = origin - (origin - window.t1) // b * b
    columns_ns = -(-(t1 - t0) // window.px)
    return Window(t0, t1, window.px, -(-columns_ns // b) * b)


def answer(profile: Profile, window: Window, timeline: Timeline) -> dict:
    """The window's columns per lane ([col, busy_ns, cat] each) and its wide intervals."""
    coarse = on_grid(window, timeline)
    window = coarse or window
    events_table = Relation("_serve_wide" if coarse else "_serve_events")
    grid = {"coarse": coarse is not None, "origin": timeline.start_ns or 0, "bucket_ns": timeline.bucket_ns}
    columns = profile.run_file("serve", "timeline_columns", {**window.params(), **grid, "events": events_table}).rows
    events = profile.run_file("serve", "timeline_events", {**window.params(), "events": events_table,
                                                            "limit": MAX_EVENTS + 1}).rows
    lanes: dict[int, list] = {}
    for lane, col, busy, cat in columns:
        lanes.setdefault(lane, []).append([col, busy, cat])
    return {
        "t0": window.t0, "t1": window.t1, "ns_per_px": window.ns_per_px, "coarse": coarse is not None,
        "columns": {str(k): v for k, v in lanes.items()},
        "events": [list(e) for e in events[:MAX_EVENTS]],
        "events_truncated": len(events) > MAX_EVENTS,
    }
