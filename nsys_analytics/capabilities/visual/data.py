"""The queries behind the timeline: boxes and density bands per row, computed in SQL (sql/visual/).

Operations narrower than `min_box_ns` are summed per pixel column in DuckDB, so a window over a million kernels
returns a few thousand rows; Python never sees one row per kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..categories import RuleSet
from ...data.bad_rows import KERNEL_TABLE, VALID_KERNEL
from ...data.raw_schema import DECODED_TEXT, RAW_TABLES, sound_rows
from .window import WHOLE_PROFILE, TimeWindow

if TYPE_CHECKING:
    from ...data.profile import Profile

MIN_BOX_PX = 2  # an operation at least this many pixel columns wide is drawn as a box of its own

# The temp views the timeline and export queries read: the rows of a raw nsys table that overlap the window, with
# the columns named here (NULL where the file's nsys version lacks one).
WINDOW_VIEWS = {
    "_visual_kernels": ("CUPTI_ACTIVITY_KIND_KERNEL", (
        "start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "demangledName",
        "shortName", "graphNodeId", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "rowid")),
    "_visual_memcpy": ("CUPTI_ACTIVITY_KIND_MEMCPY", (
        "start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "bytes", "copyKind",
        "srcKind", "dstKind", "graphNodeId", "rowid")),
    "_visual_memset": ("CUPTI_ACTIVITY_KIND_MEMSET", (
        "start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "bytes", "graphNodeId",
        "rowid")),
    "_visual_runtime": ("CUPTI_ACTIVITY_KIND_RUNTIME", ("start", "end", "globalTid", "correlationId", "nameId")),
    "_visual_driver": ("CUPTI_ACTIVITY_KIND_DRIVER", ("start", "end", "globalTid", "correlationId", "nameId")),
    "_visual_graphs": ("CUPTI_ACTIVITY_KIND_GRAPH_TRACE", (
        "start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "graphId", "graphExecId",
        "rowid")),
    "_visual_nvtx": ("NVTX_EVENTS", ("start", "end", "eventType", "globalTid", "textId", "text", "rowid")),
}
# Rows of a window: those that overlap it; NVTX: push/pop and start/end ranges, also those never ended.
_OVERLAP = 'start < {to} AND "end" > {start}'
_WHERE = {"_visual_nvtx": 'start < {to} AND ("end" > {start} OR "end" IS NULL) AND eventType IN (59, 60, 70, 71)'}


@dataclass(frozen=True)
class Grid:
    """The window cut into pixel columns: `ns_per_px` nanoseconds each."""

    window: TimeWindow
    width_px: int

    @property
    def ns_per_px(self) -> int:
        return max(1, -(-self.window.duration_ns // self.width_px))

    def params(self) -> dict[str, int]:
        return {"from_ns": self.window.start_ns, "to_ns": self.window.end_ns, "ns_per_px": self.ns_per_px,
                "min_box_ns": MIN_BOX_PX * self.ns_per_px}


@dataclass(frozen=True)
class TimelineRows:
    """What the timeline draws, as the queries return it (lists of tuples, columns as in the SQL files)."""

    gpu: list[tuple]      # timeline_gpu.sql
    graphs: list[tuple]   # timeline_graphs.sql
    api: list[tuple]      # timeline_api.sql
    nvtx: list[tuple]     # timeline_nvtx.sql
    threads: list[tuple]  # timeline_threads.sql


def timeline_rows(profile: Profile, grid: Grid, rules: RuleSet, *, api: bool = True, nvtx: bool = True) -> TimelineRows:
    """Run the timeline queries for `grid`; kernels are coloured by `rules`' categories."""
    params = grid.params()
    create_window_views(profile, grid.window, pushdown=grid.window.source != WHOLE_PROFILE and not profile.cached)
    gpu = classify_kernels(profile.run_file("visual", "timeline_gpu", params).rows, rules)
    in_graph = any(r[9] for r in gpu) or profile.has_table("CUPTI_ACTIVITY_KIND_GRAPH_TRACE")
    graphs = profile.run_file("visual", "timeline_graphs", params).rows if in_graph else []
    api_rows = profile.run_file("visual", "timeline_api", params).rows if api else []
    nvtx_rows = profile.run_file("visual", "timeline_nvtx", params).rows if nvtx and _has_nvtx(profile) else []
    threads = profile.run_file("visual", "timeline_threads").rows
    return TimelineRows(gpu, graphs, api_rows, nvtx_rows, threads)


def classify_kernels(rows: list[tuple], rules: RuleSet) -> list[tuple]:
    """timeline_gpu rows with the colour key 'kernel' replaced by the category of the row's longest kernel."""
    matches = rules.classify_all(r[10] for r in rows if r[7] == "kernel")
    return [(*r[:7], matches[r[10]].category, *r[8:]) if r[7] == "kernel" else r for r in rows]


def fill_categories(profile: Profile, rules: RuleSet) -> None:
    """The temp table _visual_categories(name_id, category) for the kernels of the current window views."""
    names = profile.run_file("visual", "kernel_names").rows
    matches = rules.classify_all(name for _, name in names)
    profile.sql("CREATE OR REPLACE TEMP TABLE _visual_categories (name_id BIGINT, category VARCHAR)")
    values = [(name_id, matches[name].category) for name_id, name in names if name_id is not None]
    if values:
        # ints, and category names the rules file checked (letters, digits, _ . -): nothing to quote
        profile.sql("INSERT INTO _visual_categories VALUES " + ", ".join(f"({int(i)}, '{c}')" for i, c in values))


def create_window_views(profile: Profile, window: TimeWindow, pushdown: bool) -> None:
    """(Re)create the WINDOW_VIEWS for `window`: the raw table's rows that overlap it.

    Without `pushdown` the views read the compat views: the columnar cache's tables where the profile has a cache
    (DuckDB skips the row groups whose start/end lie outside the window, so a 10 ms window of 2.5 M CUDA calls
    reads a few row groups), else the export scanned by DuckDB on all cores (the whole profile; SQLite alone, on
    one core, would be four times slower). With `pushdown` (a window of a profile read without a cache) SQLite
    filters the rows itself (DuckDB's `sqlite_query`): DuckDB's SQLite reader would hand over every row of the
    table to be filtered, three times slower for the 2.5 M CUDA calls of a 1 M-kernel profile.
    """
    raw = "raw" if profile.alias == "main" else f"{profile.alias}_raw"
    for view, (table, columns) in WINDOW_VIEWS.items():
        present = profile.raw_columns.get(table)
        types = RAW_TABLES[table]
        outer = ", ".join(f'CAST({_decoded(c, types[c]) if pushdown else _ident(c)} AS {types[c]}) AS "{c}"'
                          for c in columns)
        where = _WHERE.get(view, _OVERLAP).format(to=int(window.end_ns), start=int(window.start_ns))
        if pushdown and present is not None and (sound := _sound(table, present)):
            where = f"({where}) AND {sound}"  # the rows compat keeps (README: Bad input)
        if not pushdown:
            body = f"SELECT {outer} FROM compat.{table} WHERE {where}"
        elif present is None:
            nulls = ", ".join(f'CAST(NULL AS {types[c]}) AS "{c}"' for c in columns)
            body = f"SELECT {nulls} WHERE false"
        else:
            inner = ", ".join(f'"{c}"' if c in present or c == "rowid" else f'NULL AS "{c}"' for c in columns)
            query = f'SELECT {inner} FROM "{table}" WHERE {where}'.replace("'", "''")
            body = f"SELECT {outer} FROM sqlite_query('{raw}', '{query}')"
        profile.sql(f"CREATE OR REPLACE TEMP VIEW {view} AS {body}")


def _ident(column: str) -> str:
    return f'"{column}"'


def _decoded(column: str, sql_type: str) -> str:
    """A text column read past compat, decoded as compat decodes it (invalid UTF-8 as replacement characters)."""
    return DECODED_TEXT.format(column) if sql_type == "VARCHAR" else _ident(column)


def _sound(table: str, present: set[str]) -> str | None:
    """The condition compat puts on the raw rows of `table`, for a view that reads the export past compat."""
    return VALID_KERNEL if table == KERNEL_TABLE else sound_rows(table, present)


def _has_nvtx(profile: Profile) -> bool:
    if not profile.has_table("NVTX_EVENTS"):
        return False
    return bool(profile.sql("SELECT 1 FROM compat.NVTX_EVENTS WHERE eventType IN (59, 60, 70, 71) LIMIT 1").rows)
