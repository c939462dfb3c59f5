"""The data the diagnose rules share, set up once per profile and time window in the `_diag` schema.

The GPU operations are materialized once (`_diag.gpu_ops`) so that every rule reads them from memory
instead of re-scanning the SQLite file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import sql_files

if TYPE_CHECKING:
    from ..profile import Profile

END_OF_TIME_NS = 0x7FFFFFFFFFFFFFFF


@dataclass(frozen=True)
class Window:
    """A time window [from_ns, to_ns); rules keep what overlaps it, as nsys' start=/end= options do."""

    from_ns: int = 0
    to_ns: int = END_OF_TIME_NS

    def params(self) -> dict[str, int]:
        return {"from_ns": self.from_ns, "to_ns": self.to_ns}


def prepare(profile: Profile, window: Window, graphs: bool = True) -> None:
    """Create (or refresh) the `_diag` views, macros and the `_diag.gpu_ops` table for `window` (`graphs`: whole
    CUDA graph executions count as GPU work; nsys analyze leaves them out)."""
    if not _has_schema(profile):
        profile.sql("CREATE SCHEMA _diag")
        profile.sql(f"CREATE VIEW _diag.copy_calls AS {_body('_copy_calls')}")
    ops = sql_files.inline_params(_body("_gpu_ops"), {**window.params(), "graphs": graphs})
    profile.sql(f"CREATE OR REPLACE TABLE _diag.gpu_ops AS {ops}")
    profile.sql(f"CREATE OR REPLACE MACRO _diag.chunks(chunks) AS TABLE {_body('_chunks')}")
    profile.sql(f"CREATE OR REPLACE MACRO _diag.busy_islands(kernels_only) AS TABLE {_body('_busy_islands')}")


def _has_schema(profile: Profile) -> bool:
    rows = profile.sql("SELECT 1 FROM duckdb_schemas() WHERE database_name = 'memory' AND schema_name = '_diag'")
    return bool(rows.rows)


def _body(name: str) -> str:
    """A diagnose SQL file without its header comment."""
    text = sql_files.read("diagnose", name).text
    return "\n".join(line for line in text.splitlines() if not line.startswith("--"))
