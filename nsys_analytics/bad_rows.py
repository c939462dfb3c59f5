"""Kernel rows that no duration can come from: counted, and left out of the kernel table every view reads.

A row without a start or an end, one that ends before it starts, and one that repeats an earlier row exactly (every
column but rowid) are dropped; the counts go to users like nsys' SKIPPED. Used by the Profile (a profile read
directly filters on the fly) and by the columnar cache (its kernel table is stored filtered, with the counts)."""

from __future__ import annotations

from dataclasses import dataclass

from . import sql_files
from .raw_schema import RAW_TABLES

KERNEL_TABLE = "CUPTI_ACTIVITY_KIND_KERNEL"
VALID_KERNEL = 'start IS NOT NULL AND "end" IS NOT NULL AND "end" >= start'


@dataclass(frozen=True)
class BadRows:
    """Kernel rows that no duration can come from, left out of every view and report (README: Bad input)."""

    no_end: int = 0  # no start or no end
    negative: int = 0  # ends before it starts
    duplicates: int = 0  # repeats an earlier row exactly

    @property
    def total(self) -> int:
        return self.no_end + self.negative + self.duplicates

    def note(self) -> str | None:
        """One line for users, like nsys' SKIPPED, or None when every row is sound."""
        if not self.total:
            return None
        parts = [f"{n:,} {what}" for n, what in ((self.no_end, "without an end"),
                                                 (self.negative, "ending before its start"),
                                                 (self.duplicates, "repeating another row exactly")) if n]
        rows = "row" if self.total == 1 else "rows"
        return f"SKIPPED {self.total:,} kernel {rows} in every report: {', '.join(parts)}"


def count(con, all_kernels: str, exact: bool = True) -> BadRows | None:
    """The bad rows of `all_kernels` (a table or view with the compat kernel columns, every row). Not `exact`:
    None where rows may repeat each other (deciding that needs every column; `all_kernels` may lack some)."""
    def run(name: str) -> tuple:
        return con.execute(sql_files.read("checks", name).text.replace("compat._all_kernels", all_kernels)).fetchone()

    no_end, negative, candidates = run("bad_kernel_rows")
    if candidates and not exact:
        return None
    (duplicates,) = run("kernel_repeats") if candidates else (0,)
    return BadRows(no_end, negative, duplicates)


def valid_select(all_kernels: str, bad: BadRows) -> str:
    """SELECT of the sound rows of `all_kernels`, each repeat once (its first row)."""
    select = f"SELECT * FROM {all_kernels}"
    if bad.no_end or bad.negative:
        select += f" WHERE {VALID_KERNEL}"
    if bad.duplicates:
        columns = ", ".join(f'"{c}"' for c in RAW_TABLES[KERNEL_TABLE] if c != "rowid")
        select += f" QUALIFY row_number() OVER (PARTITION BY {columns} ORDER BY rowid) = 1"
    return select
