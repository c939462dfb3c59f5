#!/usr/bin/env python3
"""Make a large Nsight Systems SQLite export by replicating a real one along the time axis.

    python bench/scale_profile.py SRC.sqlite DST.sqlite --copies N
    python bench/scale_profile.py SRC.sqlite DST.sqlite --kernels 1000000

DST starts as a byte copy of SRC (SRC is only ever opened read-only). Every event table then
gets N-1 more copies of its original rows, copy k shifted by k * span, where span is the time
covered by the events plus a small gap, so the copies follow each other without overlapping.

* Event tables: any table with a timestamp column (``start``, ``end``, ``timestamp``, ...) or a
  ``correlationId``, plus ``SAMPLING_CALLCHAINS`` (the call stacks of ``COMPOSITE_EVENTS``).
  NVTX definition rows (categories, domain create/destroy) are not replicated.
* Timestamps are shifted; NULL and 0 (unset, e.g. a file that was never closed) are kept.
* Keys (``correlationId``, ``id``, ``fileAccessId``) are offset by k * (their max + 1), so
  they stay unique and keep joining the rows of the same copy.
* Everything else (StringIds, ENUM_*, TARGET_INFO_*, ThreadNames, DIAGNOSTIC_EVENT, ...) is
  static and kept once. ``ANALYSIS_DETAILS`` gets its stop time and duration extended.
* Summary tables that an old ``nsys stats`` cached in the file (``cudaKernelStats``, ...) are
  dropped, as they would be stale.

Standard library only; all the copying happens inside SQLite (INSERT ... SELECT).
"""

from __future__ import annotations

import argparse
import math
import shutil
import sqlite3
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

TIME_COLUMNS = ("start", "end", "timestamp", "startedAt", "endedAt", "openedAt", "closedAt")
KEY_COLUMNS = ("correlationId", "id", "fileAccessId")
STATIC_TABLES = frozenset({"DIAGNOSTIC_EVENT"})
CHILD_TABLES = frozenset({"SAMPLING_CALLCHAINS"})
DERIVED_TABLES = frozenset(
    {
        "cudaAPIStats",
        "cudaKernelStats",
        "cudaMemoryOperationByteStats",
        "cudaMemoryOperationTimeStats",
        "nvtxPushPopRangeStats",
        "osrtAPIStats",
        "estEnd",
        "me",
        "ms",
    }
)
# NvtxCategory, NvtxDomainCreate, NvtxDomainDestroy: definitions, not events (stable ids).
ROW_FILTERS = {"NVTX_EVENTS": '"eventType" NOT IN (33, 75, 76)'}
KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
DEFAULT_GAP_NS = 1_000


@dataclass
class Summary:
    """What scale() did."""

    copies: int
    span_ns: int
    rows: dict[str, tuple[int, int]] = field(default_factory=dict)
    dropped: list[str] = field(default_factory=list)
    capture_updated: bool = False
    seconds: float = 0.0
    size_bytes: int = 0


def quote(name: str) -> str:
    """Quote an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def list_tables(con: sqlite3.Connection, schema: str = "main") -> dict[str, list[str]]:
    """Map each table of ``schema`` to its column names, in order."""
    names = con.execute(
        f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table' "
        "AND name NOT LIKE 'sqlite_%' ORDER BY name"
    ).fetchall()
    return {
        name: [row[1] for row in con.execute(f"PRAGMA {schema}.table_info({quote(name)})")]
        for (name,) in names
    }


def is_event_table(name: str, columns: list[str]) -> bool:
    """Whether a table holds per-event rows that must be replicated."""
    if name in STATIC_TABLES or name in DERIVED_TABLES:
        return False
    return name in CHILD_TABLES or "correlationId" in columns or any(c in TIME_COLUMNS for c in columns)


def time_range(con: sqlite3.Connection, tables: dict[str, list[str]]) -> tuple[int, int]:
    """Earliest and latest non-zero timestamp over all event tables (in schema ``src``)."""
    lows: list[int] = []
    highs: list[int] = []
    for name, columns in tables.items():
        for col in (c for c in columns if c in TIME_COLUMNS):
            low, high = con.execute(
                f"SELECT min(NULLIF({quote(col)}, 0)), max({quote(col)}) FROM src.{quote(name)}"
            ).fetchone()
            if low is not None:
                lows.append(low)
                highs.append(high)
    if not lows:
        raise SystemExit("no timestamps found in the event tables")
    return min(lows), max(highs)


def key_offsets(con: sqlite3.Connection, tables: dict[str, list[str]]) -> dict[str, int]:
    """Per key column: max value + 1 over all event tables, the offset of one copy."""
    offsets: dict[str, int] = {}
    for name, columns in tables.items():
        for col in (c for c in columns if c in KEY_COLUMNS):
            (high,) = con.execute(f"SELECT max({quote(col)}) FROM src.{quote(name)}").fetchone()
            if high is not None:
                offsets[col] = max(offsets.get(col, 0), high + 1)
    return offsets


def column_expr(col: str, span: int, offsets: dict[str, int]) -> str:
    """SQL for one column of copy ``c.k`` of row ``t``."""
    ref = f"t.{quote(col)}"
    if col in TIME_COLUMNS:
        return f"CASE WHEN {ref} = 0 THEN 0 ELSE {ref} + c.k * {span} END"
    if col in offsets:
        return f"{ref} + c.k * {offsets[col]}"
    return ref


def replicate_table(
    con: sqlite3.Connection, name: str, columns: list[str], span: int, offsets: dict[str, int]
) -> None:
    """Append copies 1..N-1 (rows of ``temp.copies``) of ``src.name`` to ``main.name``."""
    select = ", ".join(column_expr(c, span, offsets) for c in columns)
    where = f"WHERE {ROW_FILTERS[name]}" if name in ROW_FILTERS else ""
    con.execute(
        f"INSERT INTO main.{quote(name)} ({', '.join(quote(c) for c in columns)}) "
        f"SELECT {select} FROM temp.copies AS c CROSS JOIN src.{quote(name)} AS t {where}"
    )


def extend_capture(con: sqlite3.Connection, tables: dict[str, list[str]], extra_ns: int) -> bool:
    """Move the capture's stop time (ANALYSIS_DETAILS) ``extra_ns`` later; False if absent."""
    columns = tables.get("ANALYSIS_DETAILS", [])
    sets = [f"{c} = {c} + {extra_ns}" for c in ("duration", "stopTime") if c in columns]
    if not sets:
        return False
    con.execute(f"UPDATE main.ANALYSIS_DETAILS SET {', '.join(sets)}")
    return True


def count_rows(con: sqlite3.Connection, schema: str, name: str) -> int:
    """Number of rows of ``schema.name``."""
    (count,) = con.execute(f"SELECT count(*) FROM {schema}.{quote(name)}").fetchone()
    return int(count)


def open_pair(src: Path, dst: Path) -> sqlite3.Connection:
    """Open ``dst`` for fast bulk writes, with ``src`` attached read-only as ``src``."""
    con = sqlite3.connect(dst.resolve().as_uri(), uri=True, isolation_level=None)
    con.execute("PRAGMA journal_mode = OFF")
    con.execute("PRAGMA synchronous = OFF")
    con.execute("PRAGMA cache_size = -262144")  # 256 MiB
    src_uri = src.resolve().as_uri() + "?mode=ro&immutable=1"
    con.execute("ATTACH DATABASE ? AS src", (src_uri,))
    return con


def scale(src: Path, dst: Path, copies: int, gap_ns: int = DEFAULT_GAP_NS) -> Summary:
    """Write ``dst``: ``src`` with its events replicated ``copies`` times along the time axis."""
    start = time.perf_counter()
    shutil.copyfile(src, dst)
    con = open_pair(src, dst)
    try:
        tables = {n: c for n, c in list_tables(con, "src").items() if is_event_table(n, c)}
        low, high = time_range(con, tables)
        span = high - low + gap_ns
        offsets = key_offsets(con, tables)
        summary = Summary(copies=copies, span_ns=span)
        con.execute("BEGIN")
        con.execute("CREATE TEMP TABLE copies (k INTEGER PRIMARY KEY)")
        con.executemany("INSERT INTO temp.copies VALUES (?)", ((k,) for k in range(1, copies)))
        for name, columns in tables.items():
            replicate_table(con, name, columns, span, offsets)
            summary.rows[name] = (count_rows(con, "src", name), count_rows(con, "main", name))
        for name in sorted(DERIVED_TABLES & set(list_tables(con, "main"))):
            con.execute(f"DROP TABLE main.{quote(name)}")
            summary.dropped.append(name)
        summary.capture_updated = extend_capture(con, list_tables(con), (copies - 1) * span)
        con.execute("COMMIT")
    finally:
        con.close()
    summary.seconds = time.perf_counter() - start
    summary.size_bytes = dst.stat().st_size
    return summary


def copies_for_kernels(src: Path, kernels: int) -> int:
    """Copies needed for at least ``kernels`` kernel rows."""
    con = sqlite3.connect(src.resolve().as_uri() + "?mode=ro&immutable=1", uri=True)
    try:
        if KERNEL_TABLE not in list_tables(con):
            raise SystemExit(f"{src}: no {KERNEL_TABLE} table")
        have = count_rows(con, "main", KERNEL_TABLE)
    finally:
        con.close()
    if have == 0:
        raise SystemExit(f"{src}: {KERNEL_TABLE} is empty")
    return max(1, math.ceil(kernels / have))


def print_summary(dst: Path, s: Summary) -> None:
    """Print what scale() did."""
    print(f"{dst}: {s.copies} copies, span {s.span_ns} ns, {s.size_bytes / 2**20:.1f} MiB, {s.seconds:.2f} s")
    for name, (before, after) in sorted(s.rows.items()):
        print(f"  {name:<40} {before:>10,} -> {after:>12,}")
    if s.dropped:
        print(f"  dropped stale summary tables: {', '.join(s.dropped)}")
    print(f"  capture end extended (ANALYSIS_DETAILS): {'yes' if s.capture_updated else 'absent'}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line arguments."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("src", type=Path, help="Nsight Systems SQLite export (not modified)")
    p.add_argument("dst", type=Path, help="output file")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--copies", type=int, help="total number of copies (1 = plain copy)")
    how.add_argument("--kernels", type=int, help="at least this many kernels in the output")
    p.add_argument("--gap-ns", type=int, default=DEFAULT_GAP_NS, help="gap between copies")
    p.add_argument("--force", action="store_true", help="overwrite DST if it exists")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)
    if args.src.resolve() == args.dst.resolve():
        raise SystemExit("DST must differ from SRC")
    if args.dst.exists() and not args.force:
        raise SystemExit(f"{args.dst} exists (use --force)")
    copies = args.copies if args.copies else copies_for_kernels(args.src, args.kernels)
    if copies < 1:
        raise SystemExit("--copies must be >= 1")
    args.dst.parent.mkdir(parents=True, exist_ok=True)
    print_summary(args.dst, scale(args.src, args.dst, copies, args.gap_ns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
