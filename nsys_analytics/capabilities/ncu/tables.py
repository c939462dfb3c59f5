"""Make the DuckDB tables of an ncu report from a loader's columns, with the SQL in sql/ncu/."""

from __future__ import annotations

from ...core.duckdb_engine import duckdb
from ...data import sql_files
from .data import INSTANCE_COLUMNS, ReportData

# Creation order: ncu_kernels reads the NVTX rows; the view reads both tables.
TABLES = ("ncu_kernels", "ncu_nvtx", "ncu_metrics", "ncu_info")
VIEWS = ("ncu_summary",)
PUBLIC = (*TABLES, "ncu_metric_instances", *VIEWS)


def create(con: duckdb.DuckDBPyConnection, data: ReportData, catalog: str = "memory") -> None:
    """Create the tables and views of one report in `catalog` (its own for an attached report)."""
    loads = {
        "_ncu_kernels_load": data.kernels,
        "_ncu_nvtx_load": data.nvtx,
        "_ncu_metrics_load": data.metrics,
    }
    for name, columns in loads.items():
        con.register(name, _frame(columns))
    con.register("_ncu_info_load", _frame({"key": list(data.info), "text": list(data.info.values())}))
    try:
        for table in TABLES:
            con.execute(f'CREATE TABLE "{catalog}".main.{table} AS {sql_files.read("ncu", table).text}')
    finally:
        for name in (*loads, "_ncu_info_load"):
            con.unregister(name)
    for view in VIEWS:
        con.execute(f'CREATE VIEW "{catalog}".main.{view} AS {sql_files.read("ncu", view).text}')


def create_instances(con: duckdb.DuckDBPyConnection, columns: dict[str, list] | None, catalog: str = "memory") -> None:
    """(Re)create ncu_metric_instances: from `columns`, or empty when None (not read yet, or a CSV)."""
    con.register("_ncu_instances_load", _frame(columns or {name: [] for name in INSTANCE_COLUMNS}))
    try:
        con.execute(f'CREATE OR REPLACE TABLE "{catalog}".main.ncu_metric_instances AS '
                    f'{sql_files.read("ncu", "ncu_metric_instances").text}')
    finally:
        con.unregister("_ncu_instances_load")


_TEXT_COLUMNS = {"workload_type", "name", "function", "mangled_name", "process_name", "host", "cc", "domain",
                 "kind", "metric", "text", "unit", "key"}


def _frame(columns: dict[str, list], floats: tuple[str, ...] = ("value",)):
    """A DataFrame with a fixed dtype per column: DuckDB would guess an object column's type from a sample.

    `floats` -> float64 (None -> NaN, read back as NULL), text columns -> object, the rest -> nullable Int64.
    """
    import pandas as pd

    def series(name: str, values: list) -> pd.Series:
        if name in floats:
            return pd.Series(values, dtype="float64")
        return pd.Series(values, dtype=object if name in _TEXT_COLUMNS else "Int64")

    return pd.DataFrame({name: series(name, values) for name, values in columns.items()})
