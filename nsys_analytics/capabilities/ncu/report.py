"""`NcuReport`: an Nsight Compute report opened as DuckDB tables, with the same `sql()` as `Profile`.

    >>> r = nsys_analytics.open("matmul.ncu-rep")          # or an `ncu --csv --page raw` export
    >>> r.df("SELECT * FROM ncu_summary")                   # one row per kernel, headline metrics
    >>> r.wide(["gpu__time_duration.sum", "launch__registers_per_thread"])
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ...core.duckdb_engine import duckdb
from ...data import database, sql_files
from ...core import progress
from ...core.errors import ProfileError, QueryError, UsageError
from ...core.result import Result
from . import load_csv, load_report, source, tables
from .frames import kernel_frame
from .metrics import resolve_metrics

_ALIAS = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RESERVED = ("main", "raw", "compat", "memory", "system", "temp")
_MISSING_OBJECT = re.compile(r"(?:Table|Table Function|Macro Function|View) with name \"?(\w+)\"? does not exist")


class NotAnNsysProfile(ProfileError, AttributeError):
    """An nsys-only operation was asked of an Nsight Compute report."""


class NcuReport:
    """An Nsight Compute report (`.ncu-rep`, or `ncu --csv --page raw` output) as tables in DuckDB.

    Tables: ncu_kernels, ncu_nvtx, ncu_metrics, ncu_metric_instances (read on first use), ncu_info;
    view: ncu_summary. Query them with `sql()` / `df()`; `wide()` pivots chosen metrics.
    `workers`: processes that read a large report (default: one per 250 results, at most one per CPU).
    """

    def __init__(self, path: str | Path, con: duckdb.DuckDBPyConnection | None = None, alias: str = "main",
                 workers: int | None = None):
        self.path, self.source_kind = source.check_path(path)
        self.alias = alias
        with progress.showing(f"reading {self.path.name}"):
            data = self._load(workers)
        self.info: dict[str, str] = dict(data.info)
        self.num_kernels = data.num_kernels
        self.con = con if con is not None else database.connect()
        if alias != "main":
            self.con.execute(f'ATTACH \':memory:\' AS "{alias}"')
        tables.create(self.con, data, self._catalog)
        tables.create_instances(self.con, None, self._catalog)
        self._instances_read = self.source_kind == "csv"  # a CSV has none

    @property
    def _catalog(self) -> str:
        return "memory" if self.alias == "main" else self.alias

    def _load(self, workers: int | None):
        if self.source_kind == "csv":
            return load_csv.load(self.path)
        reader = load_report.reader_version()
        container = source.check_report(self.path, reader)
        data = load_report.load(self.path, container, workers)
        if data.num_kernels == 0:
            raise source.no_results_error(self.path, container, reader)
        return data

    # -- queries ------------------------------------------------------------------------------
    def sql(self, query: str, params: dict[str, Any] | None = None, stream: bool = False,
            own: bool = False) -> Result:
        """Run SQL over the report's tables (see the module docstring); return columns and rows. (`stream` and `own`
        are accepted for the `sql` command and ignored: a report's tables are small, and every error of a query
        here is already the query's.)"""
        if not self._instances_read and "ncu_metric_instances" in query.lower():
            self.read_instances()
        try:
            cur = self.con.execute(query, params or {})
        except duckdb.Error as e:
            raise self._query_error(e) from e
        if cur.description is None:
            return Result([], [])
        return Result([d[0] for d in cur.description], cur.fetchall())

    def df(self, query: str, params: dict[str, Any] | None = None):
        """Your query, read-only as the `sql` command runs it (sql_guard: no COPY, ATTACH, INSTALL, ...), as a pandas
        DataFrame."""
        from ...data import sql_guard

        sql_guard.check_read_only(query)
        return self.sql(query, params, own=True).to_pandas()

    def frame(self, query: str, params: dict[str, Any] | None = None):
        """The package's own query as a pandas DataFrame (no guard: `df` is the door for a user's)."""
        return self.sql(query, params).to_pandas()

    def run_file(self, folder: str, name: str, params: dict[str, Any] | None = None) -> Result:
        """Run a shipped query, sql/<folder>/<name>.sql, with `$name` parameters."""
        return self.sql(sql_files.inline_params(sql_files.read(folder, name).text, params or {}))

    def read_instances(self) -> None:
        """Fill ncu_metric_instances from the report (done by `sql()` when a query names it)."""
        if not self._instances_read:
            tables.create_instances(self.con, load_report.load_instances(self.path), self._catalog)
            self._instances_read = True

    # -- metrics ------------------------------------------------------------------------------
    def metric_units(self) -> dict[str, str]:
        """{metric: base unit} for every metric in the report."""
        return dict(self.run_file("ncu", "metric_catalog").to_pandas()[["metric", "unit"]].itertuples(index=False))

    def metric_names(self) -> list[str]:
        return list(self.metric_units())

    def wide(self, metrics: list[str]):
        """One row per result: id, kernel, nvtx_range and a column per metric (base units); the wide pivot."""
        names = resolve_metrics(metrics, self.metric_units())
        return kernel_frame(self, names)

    def summary(self):
        """The ncu_summary view as a DataFrame: headline metrics per result, base units."""
        return self.frame("SELECT * FROM ncu_summary")

    # -- more reports on the same connection --------------------------------------------------
    def attach(self, path: str | Path, alias: str) -> NcuReport:
        """Open another ncu report on this connection; its tables live under `alias.` (e.g. `b.ncu_metrics`)."""
        if not _ALIAS.match(alias) or alias in _RESERVED:
            raise UsageError(f"alias {alias!r}: use letters, digits and _ and not a reserved name")
        if not source.is_ncu_input(path):
            raise UsageError(f"{path}: only ncu reports can be attached to an ncu report; to query it with an nsys "
                             f"profile, open the profile and attach the report: sql PROFILE -a {alias}={self.path}")
        return NcuReport(path, con=self.con, alias=alias)

    def close(self) -> None:
        database.close(self.con)

    def __enter__(self) -> NcuReport:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"NcuReport({str(self.path)!r}, kernels={self.num_kernels})"

    def __getattr__(self, name: str):
        """Anything else is an nsys-only operation (e.g. a command of nsys exports): say so."""
        if name.startswith("_"):
            raise AttributeError(name)
        raise self._not_nsys()

    # -- errors -------------------------------------------------------------------------------
    def _not_nsys(self) -> NotAnNsysProfile:
        return NotAnNsysProfile(
            f"{self.path}: is an Nsight Compute report, not an Nsight Systems export; this reads nsys `.sqlite` "
            "exports and `.nsys-rep` reports (for ncu reports: `nsys-analytics ncu` or `nsys-analytics sql`)"
        )

    def _query_error(self, e: duckdb.Error) -> Exception:
        text = str(e).strip()
        missing = _MISSING_OBJECT.search(text)
        if missing and missing.group(1) in _nsys_names():
            return self._not_nsys()
        first = text.splitlines()[0] if text else type(e).__name__
        hint = "; the tables are " + ", ".join(tables.PUBLIC) if missing else ""
        return QueryError(f"SQL error: {first}{hint}")


def _nsys_names() -> set[str]:
    from ...data.schema_objects import TABLE_MACROS, VIEWS

    return set(VIEWS) | set(TABLE_MACROS)
