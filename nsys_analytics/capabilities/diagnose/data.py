"""The data the diagnose rules share, set up once per profile and time window in the `_diag` schema.

The GPU operations of the window are a view (`_diag.gpu_ops`) over the profile's (cached) tables, so nothing per
operation stays in memory; their spans per process/device are computed once (`_diag.spans`), and one pass over
them in start order (sweep.py) finds the idle gaps and busy times that four rules read (`_diag.gaps`,
`_diag.busy_at`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...data import sql_files
from .sweep import sweep

if TYPE_CHECKING:
    from ...data.profile import Profile

END_OF_TIME_NS = 0x7FFFFFFFFFFFFFFF


@dataclass(frozen=True)
class Window:
    """A time window [from_ns, to_ns); rules keep what overlaps it, as nsys' start=/end= options do."""

    from_ns: int = 0
    to_ns: int = END_OF_TIME_NS

    def params(self) -> dict[str, int]:
        return {"from_ns": self.from_ns, "to_ns": self.to_ns}


def prepare(profile: Profile, window: Window, graphs: bool = True, min_gap_ns: int = 0, chunks: int = 30,
            syncs: bool = True) -> None:
    """Create (or refresh) the `_diag` views, macros and tables for `window` (`graphs`: whole CUDA graph
    executions count as GPU work; nsys analyze leaves them out). `_diag.gaps` keeps the idle gaps of at least
    `min_gap_ns` (the shortest any rule run reads); `_diag.busy_at` the busy times the rules read on a grid of
    `chunks` chunks; `syncs`: the synchronization calls whose idle time sync_idle charges (`_diag.sync_calls`)."""
    prepare_views(profile, window, graphs, syncs)
    sweep(profile, min_gap_ns, chunks)


def prepare_views(profile: Profile, window: Window, graphs: bool = True, syncs: bool = True) -> None:
    """`prepare` without the pass: the views, the spans and the chunk grid, all that the rules read but the pass's
    tables (`reads_pass`)."""
    if not _has_schema(profile):
        profile.sql("CREATE SCHEMA _diag")
        profile.sql(f"CREATE VIEW _diag.copy_calls AS {query_body('_copy_calls')}")
    params = {**window.params(), "graphs": graphs, "syncs": syncs}
    for kind, name in (("VIEW", "window_ops"), ("TABLE", "spans"), ("VIEW", "gpu_ops"), ("VIEW", "copies"),
                       ("TABLE", "sync_calls")):
        body = sql_files.inline_params(query_body("_" + name), params)
        profile.sql(f"CREATE OR REPLACE {kind} _diag.{name} AS {body}")
    profile.sql(f"CREATE OR REPLACE MACRO _diag.chunks(chunks) AS TABLE {query_body('_chunks')}")


def reads_pass(rule: str) -> bool:
    """Whether a rule's SQL reads what the pass makes (`_diag.gaps`, `_diag.busy_at`)."""
    return bool(_PASS_TABLES.search(query_body(rule)))


_PASS_TABLES = re.compile(r"\b_diag\.(gaps|busy_at)\b")


def _has_schema(profile: Profile) -> bool:
    rows = profile.sql("SELECT 1 FROM duckdb_schemas() WHERE database_name = 'memory' AND schema_name = '_diag'")
    return bool(rows.rows)


def query_body(name: str) -> str:
    """A diagnose SQL file without its header comment."""
    text = sql_files.read("diagnose", name).text
    return "\n".join(line for line in text.splitlines() if not line.startswith("--"))
