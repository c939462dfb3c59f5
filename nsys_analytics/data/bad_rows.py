"""Kernel rows that no duration can come from: counted, and left out of the kernel table every view reads.

A row without a start or an end, one that ends before it starts, and one that repeats an earlier row exactly (every
column but rowid) are dropped; the counts go to users like nsys' SKIPPED. Used by the Profile (a profile read
directly filters on the fly) and by the columnar cache (its kernel table is stored filtered, with the counts)."""

from __future__ import annotations

from dataclasses import dataclass

from . import sql_files
from .raw_schema import NAME_IDS, RAW_TABLES, TIME_LIMIT_NS, bad_event_conditions, sound_rows

KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
# The sound rows (sql/checks/bad_kernel_rows.sql counts the others; kernel_repeats.sql repeats this condition).
# With "end" >= start, start > -limit and "end" < limit keep both times within the limit.
VALID_KERNEL = ('start IS NOT NULL AND "end" IS NOT NULL AND "end" >= start AND deviceId IS NOT NULL AND '
                f'streamId IS NOT NULL AND demangledName IS NOT NULL AND start > -{TIME_LIMIT_NS} AND '
                f'"end" < {TIME_LIMIT_NS}')


@dataclass(frozen=True)
class BadRows:
    """Kernel rows that no duration can come from, left out of every view and report (README: Bad input)."""

    no_end: int = 0  # no start or no end
    negative: int = 0  # ends before it starts
    duplicates: int = 0  # repeats an earlier row exactly
    incomplete: int = 0  # no device, stream or name (nsys always writes them)
    out_of_range: int = 0  # a time beyond 2^62 ns, which no clock gives

    @property
    def total(self) -> int:
        return self.no_end + self.negative + self.duplicates + self.incomplete + self.out_of_range

    def note(self) -> str | None:
        """One line for users, like nsys' SKIPPED, or None when every row is sound."""
        if not self.total:
            return None
        parts = [f"{n:,} {what}" for n, what in ((self.no_end, "without an end"),
                                                 (self.incomplete, "without a device, stream or name"),
                                                 (self.negative, "ending before its start"),
                                                 (self.out_of_range, "with a time beyond 2^62 ns"),
                                                 (self.duplicates, "repeating another row exactly")) if n]
        rows = "row" if self.total == 1 else "rows"
        return f"SKIPPED {self.total:,} kernel {rows} in every report: {', '.join(parts)}"


def count(con, all_kernels: str, exact: bool = True) -> BadRows | None:
    """The bad rows of `all_kernels` (a table or view with the compat kernel columns, every row). Not `exact`:
    None where rows may repeat each other (deciding that needs every column; `all_kernels` may lack some)."""
    return _checked(con, all_kernels, exact, with_names=False)[0]


def count_named(con, all_kernels: str) -> tuple[BadRows, list[int]]:
    """The bad rows of `all_kernels` as `count`, and the string ids its sound rows name, ascending, found in the same
    scan: a profile read directly checks them against StringIds (missing_among), which spares a second scan of the
    export (1.5 s at 10 M kernels)."""
    return _checked(con, all_kernels, True, with_names=True)


def _checked(con, all_kernels: str, exact: bool, with_names: bool) -> tuple[BadRows | None, list[int]]:
    def run(name: str, params: dict) -> tuple:
        text = sql_files.inline_params(sql_files.read("checks", name).text, params)
        return con.execute(text.replace("compat._all_kernels", all_kernels)).fetchone()

    # rows that repeat each other share a start: where no two do (one sort), the bad-row scan hashes nothing
    (shared,) = run("kernel_shared_starts", {})
    no_end, incomplete, negative, out_of_range, candidates, named = run(
        "bad_kernel_rows", {"with_names": with_names, "may_repeat": bool(shared)})
    named = sorted(int(i) for i in named or ())
    if candidates and not exact:
        return None, named
    (duplicates,) = run("kernel_repeats", {}) if candidates else (0,)
    return BadRows(no_end, negative, duplicates, incomplete, out_of_range), named


def valid_select(all_kernels: str, bad: BadRows) -> str:
    """SELECT of the sound rows of `all_kernels`, each repeat once (its first row)."""
    select = f"SELECT * FROM {all_kernels}"
    if bad.no_end or bad.negative or bad.incomplete or bad.out_of_range:
        select += f" WHERE {VALID_KERNEL}"
    if bad.duplicates:
        columns = ", ".join(f'"{c}"' for c in RAW_TABLES[KERNEL_TABLE] if c != "rowid")
        select += f" QUALIFY row_number() OVER (PARTITION BY {columns} ORDER BY rowid) = 1"
    return select


NAMED_IDS = "named_ids"  # count_events' key for the string ids the sound rows name

# The other event tables compat checks (raw_schema.CHECKED_EVENTS), as the note names their rows.
EVENT_NAMES = {
    "CUPTI_ACTIVITY_KIND_RUNTIME": "CUDA runtime API", "CUPTI_ACTIVITY_KIND_DRIVER": "CUDA driver API",
    "CUPTI_ACTIVITY_KIND_MEMCPY": "memory copy", "CUPTI_ACTIVITY_KIND_MEMSET": "memset",
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE": "CUDA graph", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION": "synchronization",
    "PROFILER_OVERHEAD": "profiler overhead", "NVTX_EVENTS": "NVTX", "TARGET_INFO_GPU": "GPU",
    "TARGET_INFO_CUDA_GPU": "CUDA GPU", "ThreadNames": "thread name", "PROCESSES": "process",
}
_REASONS = {"incomplete": "without a value nsys always writes (a start, an id, a thread, a name, ...)",
            "negative": "ending before its start", "out_of_range": "with a time beyond 2^62 ns"}


def count_events(con, raw_table: str, table: str, present: set[str], with_names: bool = False) -> dict:
    """{reason: rows} of the rows of `raw_table` (the export's `table`) that compat leaves out, each row under its
    first reason (raw_schema.bad_event_conditions). `with_names`: also NAMED_IDS, the string ids the sound rows name
    (a list, ascending), found in the same scan (a second scan for them took 2 s on 25 M API calls)."""
    counts, earlier = [], []
    for reason, condition in bad_event_conditions(table, present).items():
        before = " OR ".join(earlier) or "false"
        counts.append(f"count(*) FILTER (coalesce({condition}, false) AND NOT coalesce({before}, false))")
        earlier.append(f"({condition})")
    columns = [c for c in NAME_IDS.get(table, ()) if c in present] if with_names else []
    if not counts and not columns:
        return {}
    sound = sound_rows(table, present)
    named = [f'list(DISTINCT CAST("{c}" AS BIGINT))' + (f" FILTER ({sound})" if sound else "") for c in columns]
    row = con.execute(f"SELECT {', '.join(counts + named)} FROM {raw_table}").fetchone()
    found = dict(zip(bad_event_conditions(table, present), row))
    if with_names:
        found[NAMED_IDS] = sorted({int(i) for ids in row[len(counts):] for i in ids or () if i is not None})
    return found


def event_note(table: str, counts: dict[str, int]) -> str | None:
    """One line for users, like nsys' SKIPPED, for the rows of an event table compat leaves out; None if none."""
    total = sum(counts.values())
    if not total:
        return None
    parts = ", ".join(f"{n:,} {_REASONS[reason]}" for reason, n in counts.items() if n)
    rows = "row" if total == 1 else "rows"
    return f"SKIPPED {total:,} {EVENT_NAMES[table]} {rows} in every report: {parts}"


def missing_strings(con, compat_table: str, table: str, strings: str) -> list[int]:
    """The string ids the rows of `compat_table` (the export's `table`, compat columns) name that `strings` (the
    export's StringIds, compat columns) lacks or holds as NULL, ascending."""
    # each column's distinct ids first: a few per column, where checking every row's took 4x as long (20 M kernels:
    # 0.35 s, 0.08 s)
    named = " UNION ".join(f'SELECT DISTINCT "{c}" AS id FROM {compat_table}' for c in NAME_IDS[table])
    ids = [int(i) for (i,) in con.execute(f"SELECT id FROM ({named}) WHERE id IS NOT NULL").fetchall()]
    return missing_among(con, ids, strings)


def missing_among(con, ids: list[int], strings: str) -> list[int]:
    """Those of `ids` that `strings` (the export's StringIds, compat columns) lacks or holds as NULL, ascending."""
    if not ids:
        return []
    values = ", ".join(f"({int(i)})" for i in sorted(set(ids)))
    query = (f"SELECT id FROM (VALUES {values}) AS named(id) "
             f"WHERE id NOT IN (SELECT id FROM ({strings}) WHERE value IS NOT NULL AND id IS NOT NULL) ORDER BY id")
    return [int(i) for (i,) in con.execute(query).fetchall()]


def complete_strings(select: str, missing: list[int]) -> str:
    """compat.StringIds from `select` with a stand-in name, '[string N missing]', for each id in `missing`: every
    id the export names has a name (README: Bad input)."""
    if not missing:
        return select
    ids = ", ".join(f"({int(i)})" for i in missing)
    return (f"SELECT * FROM ({select}) WHERE value IS NOT NULL UNION ALL "
            f"SELECT id, '[string ' || id || ' missing]' AS value FROM (VALUES {ids}) AS m(id)")


def strings_note(table: str, missing: int) -> str | None:
    if not missing:
        return None
    names = "name" if missing == 1 else "names"
    return (f"{missing:,} {names} of {table} missing from StringIds, shown as [string N missing] "
            "(the export is damaged)")
