"""The run catalog's tables (SQLAlchemy Core, typed) and its schema versions.

Versioning is a small versioned-DDL table, not Alembic (docs/catalog.md says why): `catalog_meta` holds
`schema_version`; `MIGRATIONS[v]` turns a version v-1 catalog into version v inside the transaction that opens it.
A catalog written by a newer version is refused.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import (
    DDL,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    event,
)

SCHEMA_VERSION = 3  # 2: step_stats (per-step GPU figures for `runs gate --metric gpu|kernels`); 3: steady_summaries

metadata = MetaData()


def _run_id() -> Column:
    return Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True)


catalog_meta = Table(
    "catalog_meta", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", String(255), nullable=False),
)

runs = Table(
    "runs", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("content_hash", String(64), nullable=False, unique=True),  # sha256 of the profile (of its ranks' hashes)
    Column("label", String(255), nullable=False),  # first profile's file name without extension
    Column("added_at", DateTime(timezone=True), nullable=False),  # UTC
    Column("ranks", Integer, nullable=False),
    Column("attribution", String(16)),  # NVTX attribution of the per-range kernel time; NULL: not stored
    Column("diagnosed", Boolean, nullable=False),  # findings stored
    Column("nsys_version", String(64)),
    Column("capture_ns", BigInteger),
    Column("kernels", BigInteger, nullable=False),  # kernel executions, all ranks
    Column("kernel_ns", BigInteger, nullable=False),  # summed kernel GPU time, all ranks
    Column("step_range", Text),  # the step-like NVTX range family (train_loop:step_*), if any
    Column("step_instances", Integer),
    Column("step_avg_ns", Float),
    Column("step_med_ns", Float),
)
Index("ix_runs_added_at", runs.c.added_at)

run_tags = Table(
    "run_tags", metadata,
    _run_id(),
    Column("key", String(128), primary_key=True),
    Column("value", String(512), nullable=False),
)
Index("ix_run_tags_key_value", run_tags.c.key, run_tags.c.value)

run_profiles = Table(
    "run_profiles", metadata,
    _run_id(),
    Column("rank", Integer, primary_key=True),
    Column("path", Text, nullable=False),  # as given when added
    Column("label", String(255), nullable=False),
    Column("file_hash", String(64), nullable=False),
    Column("nsys_version", String(64)),
    Column("capture_ns", BigInteger),
    Column("gpus", Text),
)


def _stat_columns(prefix: str = "", nullable: bool = False) -> list[Column]:
    return [
        Column(f"{prefix}instances", BigInteger, nullable=nullable),
        Column(f"{prefix}total_ns", BigInteger, nullable=nullable),
        Column(f"{prefix}avg_ns", Float, nullable=nullable),
        Column(f"{prefix}med_ns", Float, nullable=nullable),
        Column(f"{prefix}min_ns", BigInteger, nullable=nullable),
        Column(f"{prefix}max_ns", BigInteger, nullable=nullable),
        Column(f"{prefix}stddev_ns", Float, nullable=nullable),
    ]


def _dist_table(name: str, *extra: Column) -> Table:
    """The per-instance distributions of a stats table's rows (same key), kept apart so that list and trend
    queries scan narrow rows. JSON [values, counts, binned] (diff/stats.py)."""
    return Table(
        name, metadata, _run_id(),
        Column("rank", Integer, primary_key=True),
        Column("seq", Integer, primary_key=True),
        Column("dist", Text, nullable=False),
        *extra,
    )


kernel_stats = Table(
    "kernel_stats", metadata,
    _run_id(),
    Column("rank", Integer, primary_key=True),
    Column("seq", Integer, primary_key=True),  # row number within the rank (names can be too long for a key)
    Column("name_kind", String(16), nullable=False),  # demangled | short
    Column("name", Text, nullable=False),
    Column("category", String(64), nullable=False),
    *_stat_columns(),
)

Index("ix_kernel_stats_category", kernel_stats.c.name_kind, kernel_stats.c.category)  # trend category:NAME
# trend kernel:NAME. A hash index on PostgreSQL: C++ kernel names can outgrow a B-tree entry (about 2.7 kB). Issued
# as DDL after the table is created, not as Index(..., postgresql_using="hash"): that keyword makes SQLAlchemy load
# its PostgreSQL dialects when this module is imported, 50 ms of every `runs` command's start-up on SQLite.
_NAME_INDEX = "CREATE INDEX ix_kernel_stats_name ON kernel_stats {using}(name)"
for _dialect, _using in (("postgresql", "USING hash "), ("sqlite", "")):
    event.listen(kernel_stats, "after_create", DDL(_NAME_INDEX.format(using=_using)).execute_if(dialect=_dialect))

range_stats = Table(
    "range_stats", metadata,
    _run_id(),
    Column("rank", Integer, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("name", Text, nullable=False),
    Column("style", String(16)),
    *_stat_columns(),  # the instances' durations
    *_stat_columns("kernel_", nullable=True),  # kernel time per instance (attribution only)
)

kernel_dists = _dist_table("kernel_dists")
range_dists = _dist_table("range_dists", Column("kernel_dist", Text))

range_kernels = Table(
    "range_kernels", metadata,
    _run_id(),
    Column("rank", Integer, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("range", Text, nullable=False),
    Column("kernel", Text, nullable=False),  # demangled
    Column("short", Text),
    Column("kernel_ns", BigInteger, nullable=False),
    Column("kernels", BigInteger, nullable=False),
)

steady_summaries = Table(  # version 2
    "steady_summaries", metadata,
    _run_id(),
    Column("rank", Integer, primary_key=True),
    # the rank's figures over the steady-state steps (`diff`'s window; the tables above cover the whole capture), as
    # the JSON of diff.summary.ProfileSummary.to_json()
    Column("summary", Text, nullable=False),
)

findings = Table(
    "findings", metadata,
    _run_id(),
    Column("rank", Integer, primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("rule", String(64), nullable=False),
    Column("severity", String(16), nullable=False),
    Column("at_stake_ns", BigInteger, nullable=False),
    Column("summary", Text, nullable=False),
    Column("fix", Text, nullable=False),
)

step_stats = Table(  # per-step figures (catalog/steps.py); runs added before version 2 have none
    "step_stats", metadata,
    _run_id(),
    Column("rank", Integer, primary_key=True),
    Column("metric", String(16), primary_key=True),  # gpu (GPU busy time per step) | kernels (kernel time per step)
    Column("step_range", Text, nullable=False),  # the step family the instances belong to
    *_stat_columns(),
    Column("dist", Text, nullable=False),  # JSON [values, counts, binned], as the dist tables
)

# version -> the DDL that brings a catalog from version-1 to it (run inside the opening transaction). Version 1 is
# `metadata.create_all`; a later change adds e.g. `4: lambda conn: conn.exec_driver_sql("ALTER TABLE ...")`.
MIGRATIONS: dict[int, Callable] = {
    2: lambda conn: step_stats.create(conn, checkfirst=True),  # a new table: older runs keep reading as before, without step figures
    3: lambda conn: steady_summaries.create(conn, checkfirst=True),  # runs stored before keep their whole-capture figures only
}
