"""The catalog's reads and writes (SQLAlchemy Core, bound parameters only): a run's summaries in, summaries, run
lists and metric series out. No printing."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.engine import Connection

from ...core.errors import UsageError
from .connect import Catalog, CatalogError
from .schema import (
    findings,
    kernel_dists,
    kernel_stats,
    range_dists,
    range_kernels,
    range_stats,
    run_profiles,
    run_tags,
    steady_summaries,
    runs,
    step_stats,
)

if TYPE_CHECKING:
    from ..diff.summary import ProfileSummary, Stat


def run_hash(profiles: Sequence[ProfileSummary]) -> str:
    """A run's identity: its profile's sha256, or for several ranks the sha256 of their hashes in rank order."""
    hashes = [p.file_hash for p in sorted(profiles, key=lambda p: p.rank)]
    if len(hashes) == 1:
        return hashes[0]
    return hashlib.sha256("\n".join(hashes).encode()).hexdigest()


def add_run(catalog: Catalog, profiles: list[ProfileSummary], tags: dict[str, str],
            found: list[list[dict]] | None = None) -> tuple[int, bool]:
    """Store one run (its ranks' summaries, `tags`, and per rank the diagnose findings `found`) in one
    transaction. Returns (run id, True) or, when a run with the same content is already there, (its id, False)."""
    content = run_hash(profiles)
    row = _run_row(profiles, content, found is not None)

    def work(conn: Connection) -> tuple[int, bool]:
        known = conn.execute(select(runs.c.id).where(runs.c.content_hash == content)).scalar()
        if known is not None:  # checked first: PostgreSQL spends a sequence number on every ON CONFLICT
            return known, False
        run_id = conn.execute(_insert_ignore(catalog, runs, ["content_hash"]).values(**row)
                              .returning(runs.c.id)).scalar()
        if run_id is None:  # stored before (or by a concurrent add that committed first)
            return conn.execute(select(runs.c.id).where(runs.c.content_hash == content)).scalar_one(), False
        _insert_children(conn, run_id, profiles, tags, found)
        return run_id, True

    return catalog.write(work)


def _insert_ignore(catalog: Catalog, table, keys: list[str]):
    if catalog.is_sqlite:
        from sqlalchemy.dialects.sqlite import insert
    else:
        from sqlalchemy.dialects.postgresql import insert
    return insert(table).on_conflict_do_nothing(index_elements=keys)


def _run_row(profiles: list[ProfileSummary], content: str, diagnosed: bool) -> dict[str, Any]:
    from ..diff.report import step_of

    first = min(profiles, key=lambda p: p.rank)
    # the ranks of one report of a whole launch: the run is named by its file, not its first process ("pid 1321")
    one_file = len(profiles) > 1 and len({p.path for p in profiles}) == 1
    label = Path(first.path).stem if one_file else first.label
    demangled = [k.stat for p in profiles for k in p.kernel_stats("demangled")]
    step_name, step = step_of(profiles)
    modes = {p.attribution for p in profiles}
    return {
        "content_hash": content, "label": label, "added_at": datetime.now(timezone.utc),
        "ranks": len(profiles), "attribution": modes.pop() if len(modes) == 1 else None, "diagnosed": diagnosed,
        "nsys_version": first.meta.get("nsys_version"), "capture_ns": first.meta.get("capture_ns"),
        "kernels": sum(s.instances for s in demangled), "kernel_ns": sum(s.total_ns for s in demangled),
        "step_range": step_name, "step_instances": step.instances if step else None,
        "step_avg_ns": step.avg_ns if step else None, "step_med_ns": step.med_ns if step else None,
    }


def _insert_children(conn: Connection, run_id: int, profiles: list[ProfileSummary], tags: dict[str, str],
                     found: list[list[dict]] | None) -> None:
    if tags:
        conn.execute(run_tags.insert(), [{"run_id": run_id, "key": k, "value": v} for k, v in tags.items()])
    for i, p in enumerate(profiles):
        base = {"run_id": run_id, "rank": p.rank}
        conn.execute(run_profiles.insert().values(
            **base, path=p.path, label=p.label, file_hash=p.file_hash, nsys_version=p.meta.get("nsys_version"),
            capture_ns=p.meta.get("capture_ns"), gpus=p.meta.get("gpus")))
        _many(conn, kernel_stats, [{**base, "seq": j, "name_kind": k.name_kind, "name": k.name,
                                    "category": k.category, **_stat_row(k.stat)} for j, k in enumerate(p.kernels)])
        _many(conn, kernel_dists, [{**base, "seq": j, "dist": _dist_json(k.stat)} for j, k in enumerate(p.kernels)])
        _many(conn, range_stats, [{**base, "seq": j, "name": r.name, "style": r.style, **_stat_row(r.wall),
                                   **_stat_row(r.kernel, "kernel_")} for j, r in enumerate(p.ranges)])
        _many(conn, range_dists, [{**base, "seq": j, "dist": _dist_json(r.wall), "kernel_dist": _dist_json(r.kernel)}
                                  for j, r in enumerate(p.ranges)])
        _many(conn, range_kernels, [{**base, "seq": j, "range": rk.range, "kernel": rk.kernel,
                                     "short": p.short_names.get(rk.kernel), "kernel_ns": rk.kernel_ns,
                                     "kernels": rk.kernels} for j, rk in enumerate(p.range_kernels)])
        _many(conn, step_stats, _step_rows(base, p))
        if p.steady is not None:
            conn.execute(steady_summaries.insert().values(
                **base, summary=json.dumps(p.steady.to_json(), separators=(",", ":"))))
        if found is not None:
            _many(conn, findings, [{**base, "seq": j, **f} for j, f in enumerate(found[i])])


def _step_rows(base: dict[str, Any], p: ProfileSummary) -> list[dict[str, Any]]:
    """The rank's per-step figures (catalog/steps.py), one row per metric; none where they were not computed."""
    from .steps import META_KEY, STEP_METRICS

    figures = p.meta.get(META_KEY)
    if not figures:
        return []
    return [{**base, "metric": m, "step_range": figures["step_range"], **_stat_row(figures[m]),
             "dist": _dist_json(figures[m])} for m in STEP_METRICS]


def _many(conn: Connection, table, rows: list[dict]) -> None:
    if rows:
        conn.execute(table.insert(), rows)


_STAT = ("instances", "total_ns", "avg_ns", "med_ns", "min_ns", "max_ns", "stddev_ns")


def _stat_row(stat: Stat | None, prefix: str = "") -> dict[str, Any]:
    return {f"{prefix}{n}": (getattr(stat, n) if stat is not None else None) for n in _STAT}


def _dist_json(stat: Stat | None) -> str | None:
    if stat is None:
        return None
    d = stat.dist
    return json.dumps([list(d.values), list(d.counts), d.binned], separators=(",", ":"))


def _stat_of(row, prefix: str = "", dist: str = "dist") -> Stat | None:
    if getattr(row, f"{prefix}instances") is None:
        return None
    figures = [getattr(row, f"{prefix}{n}") for n in _STAT]
    if not all(_is_number(v) for v in figures):  # SQLite keeps text in a numeric column
        raise _BadRow("a stored figure is not a number")
    values, counts, binned = _dist_of(getattr(row, dist))
    from ..diff.stats import Dist
    from ..diff.summary import Stat

    return Stat(*figures, Dist(tuple(values), tuple(counts), bool(binned)))


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _BadRow(ValueError):
    """A stored row that nsys-analytics cannot have written (the catalog was changed by other means)."""


def _dist_of(text) -> tuple[list, list, bool]:
    """A stored distribution `[values, counts, binned]` (as _dist_json writes it), checked."""
    try:
        values, counts, binned = json.loads(text)
    except (TypeError, ValueError):
        raise _BadRow("a stored distribution is not valid JSON of [values, counts, binned]") from None
    numbers = isinstance(values, list) and all(_is_number(v) for v in values)
    whole = isinstance(counts, list) and all(isinstance(c, int) and not isinstance(c, bool) and c >= 0
                                             for c in counts)
    if not (numbers and whole and len(values) == len(counts) and binned in (0, 1)):
        raise _BadRow("a stored distribution is not [values, counts, binned] of numbers")
    return values, counts, bool(binned)


def _with_dists(stats, dists, run_id: int):
    """The stats rows of a run joined to their distributions."""
    key = and_(dists.c.run_id == stats.c.run_id, dists.c.rank == stats.c.rank, dists.c.seq == stats.c.seq)
    extra = [dists.c.dist] + ([dists.c.kernel_dist] if "kernel_dist" in dists.c else [])
    return (select(stats, *extra).join(dists, key).where(stats.c.run_id == run_id)
            .order_by(stats.c.rank, stats.c.seq))


# -- reads -----------------------------------------------------------------------------------------------------

def load_run(catalog: Catalog, run_id: int) -> list[ProfileSummary]:
    """The stored summaries of a run, one per rank, as `diff` computed them."""
    from ..diff.summary import KernelStat, ProfileSummary, RangeKernel, RangeStat

    def work(conn: Connection) -> list[ProfileSummary]:
        run = conn.execute(select(runs).where(runs.c.id == run_id)).first()
        if run is None:
            raise UsageError(f"no run {run_id} in the catalog {catalog.name} (see `runs list`)")
        profiles = {}
        for r in conn.execute(select(run_profiles).where(run_profiles.c.run_id == run_id)):
            profiles[r.rank] = ProfileSummary(r.path, r.label, r.rank, r.file_hash,
                                              {"nsys_version": r.nsys_version, "capture_ns": r.capture_ns,
                                               "gpus": r.gpus}, run.attribution)
        try:
            for r in conn.execute(_with_dists(kernel_stats, kernel_dists, run_id)):
                profiles[r.rank].kernels.append(KernelStat(r.name_kind, r.name, r.category, _stat_of(r)))
            for r in conn.execute(_with_dists(range_stats, range_dists, run_id)):
                profiles[r.rank].ranges.append(RangeStat(r.name, r.style, _stat_of(r),
                                                         _stat_of(r, "kernel_", "kernel_dist")))
        except _BadRow as e:  # one line, exit 1: the catalog's own problem, not the command's
            raise CatalogError(f"catalog {catalog.name}: run {run_id}, rank {r.rank}: {e}; the catalog was changed "
                               "by other means: add the run's profiles to a new catalog") from None
        for r in conn.execute(select(range_kernels).where(range_kernels.c.run_id == run_id)
                              .order_by(range_kernels.c.rank, range_kernels.c.seq)):
            p = profiles[r.rank]
            p.range_kernels.append(RangeKernel(r.range, r.kernel, r.kernel_ns, r.kernels))
            if r.short is not None:
                p.short_names[r.kernel] = r.short
        for r in conn.execute(select(steady_summaries).where(steady_summaries.c.run_id == run_id)):
            profiles[r.rank].steady = _steady_of(r.summary, profiles[r.rank])
        return [profiles[k] for k in sorted(profiles)]

    return catalog.read(work)


def _steady_of(text: str, whole: ProfileSummary) -> ProfileSummary | None:
    """A stored steady-state summary (None where it cannot be read: the whole-capture figures then serve)."""
    from ..diff.summary import ProfileSummary

    try:
        steady = ProfileSummary.from_json(json.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    steady.path, steady.label, steady.rank = whole.path, whole.label, whole.rank
    return steady


RUN_COLUMNS = ("id", "added_at", "label", "ranks", "kernels", "kernel_ns", "step_range", "step_instances",
               "step_avg_ns", "attribution", "diagnosed", "nsys_version", "content_hash")


def list_runs(catalog: Catalog, tags: dict[str, str] | None = None, since: datetime | None = None,
              until: datetime | None = None, limit: int | None = None, ids: list[int] | None = None,
              newest_first: bool = True) -> list[dict[str, Any]]:
    """Runs (with their tags) matching every tag in `tags` and added in [since, until), newest first."""
    def work(conn: Connection) -> list[dict[str, Any]]:
        query = select(*(runs.c[c] for c in RUN_COLUMNS)).where(*_filters(tags, since, until, ids))
        order = runs.c.id.desc() if newest_first else runs.c.id
        rows = [dict(r._mapping) for r in conn.execute(query.order_by(order).limit(limit))]
        tag_rows = conn.execute(select(run_tags).where(run_tags.c.run_id.in_([r["id"] for r in rows]))) if rows else []
        by_run: dict[int, dict[str, str]] = {}
        for t in tag_rows:
            by_run.setdefault(t.run_id, {})[t.key] = t.value
        for r in rows:
            r["tags"] = by_run.get(r["id"], {})
        return rows

    return catalog.read(work)


def _filters(tags, since, until, ids) -> list:
    where = []
    for key, value in (tags or {}).items():
        where.append(runs.c.id.in_(select(run_tags.c.run_id).where(and_(run_tags.c.key == key,
                                                                         run_tags.c.value == value))))
    if since is not None:
        where.append(runs.c.added_at >= since)
    if until is not None:
        where.append(runs.c.added_at < until)
    if ids is not None:
        where.append(runs.c.id.in_(ids))
    return where


def run_details(catalog: Catalog, run_id: int) -> dict[str, Any]:
    """One run: its row, tags, profiles and findings."""
    def work(conn: Connection) -> dict[str, Any]:
        run = conn.execute(select(runs).where(runs.c.id == run_id)).first()
        if run is None:
            raise UsageError(f"no run {run_id} in the catalog {catalog.name} (see `runs list`)")
        tags = {t.key: t.value for t in conn.execute(select(run_tags).where(run_tags.c.run_id == run_id))}
        profiles = [dict(r._mapping) for r in conn.execute(
            select(run_profiles).where(run_profiles.c.run_id == run_id).order_by(run_profiles.c.rank))]
        found = [dict(r._mapping) for r in conn.execute(
            select(findings).where(findings.c.run_id == run_id).order_by(findings.c.rank, findings.c.seq))]
        return {"run": dict(run._mapping), "tags": tags, "profiles": profiles, "findings": found}

    return catalog.read(work)


def metric_series(catalog: Catalog, metric: str, name: str | None, run_ids: list[int]) -> dict[int, tuple]:
    """{run id: (value ns, instances)} of `metric` for the runs `run_ids`: step_time, kernel_time (from the run
    rows), kernel:NAME (demangled or short name, all ranks), category:NAME, range:NAME (mean duration of the
    instances of that range name, or of the names of that family)."""
    def work(conn: Connection) -> dict[int, tuple]:
        if metric == "step_time":
            rows = conn.execute(select(runs.c.id, runs.c.step_avg_ns, runs.c.step_instances)
                                .where(runs.c.id.in_(run_ids)))
            return {r[0]: (r[1], r[2]) for r in rows if r[1] is not None}
        if metric == "kernel_time":
            rows = conn.execute(select(runs.c.id, runs.c.kernel_ns, runs.c.kernels).where(runs.c.id.in_(run_ids)))
            return {r[0]: (r[1], r[2]) for r in rows}
        if metric in ("kernel", "category"):
            column = kernel_stats.c.name if metric == "kernel" else kernel_stats.c.category
            kind = _kernel_kind(conn, name, run_ids) if metric == "kernel" else "demangled"
            rows = conn.execute(
                select(kernel_stats.c.run_id, func.sum(kernel_stats.c.total_ns), func.sum(kernel_stats.c.instances))
                .where(kernel_stats.c.run_id.in_(run_ids), kernel_stats.c.name_kind == kind, column == name)
                .group_by(kernel_stats.c.run_id))
            return {r[0]: (int(r[1]), int(r[2])) for r in rows}
        return _range_series(conn, name, run_ids)

    return catalog.read(work)


def _kernel_kind(conn: Connection, name: str, run_ids: list[int]) -> str:
    hit = conn.execute(select(kernel_stats.c.name_kind).where(
        kernel_stats.c.run_id.in_(run_ids), kernel_stats.c.name == name, kernel_stats.c.name_kind == "short")
        .limit(1)).first()
    return "short" if hit else "demangled"


def _range_series(conn: Connection, name: str, run_ids: list[int]) -> dict[int, tuple]:
    """Mean duration of the instances of range NAME per run: the full name (`:forward`), its text (`forward`), or a
    family with `*` for numbers (`train_loop:step_*`, docs/diff.md)."""
    from ..diff.matching import range_families

    c = range_stats.c
    query = select(c.run_id, c.name, c.total_ns, c.instances).where(c.run_id.in_(run_ids))
    if "*" not in name:  # a plain name: let the database pick the rows (bound parameters, wildcards escaped)
        query = query.where(or_(c.name == name, c.name.endswith(f":{name}", autoescape=True)))
    per_run: dict[int, list] = {}
    for r in conn.execute(query).all():
        per_run.setdefault(r.run_id, []).append(r)
    out = {}
    for run_id, rs in per_run.items():
        families = range_families(r.name for r in rs) if "*" in name else {r.name: r.name for r in rs}
        hits = [r for r in rs if name in (r.name, families[r.name], r.name.split(":", 1)[-1],
                                          families[r.name].split(":", 1)[-1])]
        n = sum(r.instances for r in hits)
        if n:
            out[run_id] = (sum(r.total_ns for r in hits) / n, n)
    return out


def step_stat(catalog: Catalog, run_id: int, metric: str) -> tuple[str, Stat] | None:
    """(step family, per-step figures of all ranks merged) of `metric` (gpu | kernels) for a run; None where the run
    has none stored (added before catalog schema 2, or no step range)."""
    def work(conn: Connection) -> tuple[str, Stat] | None:
        rows = conn.execute(select(step_stats).where(step_stats.c.run_id == run_id, step_stats.c.metric == metric)
                            .order_by(step_stats.c.rank)).all()
        if not rows:
            return None
        from ..diff.summary import Stat

        return rows[0].step_range, Stat.merge([_stat_of(r) for r in rows])

    return catalog.read(work)


def runs_with_step_stats(catalog: Catalog, metric: str, run_ids: list[int]) -> set[int]:
    """Those of `run_ids` that have `metric` stored in step_stats."""
    def work(conn: Connection) -> set[int]:
        return set(conn.execute(select(step_stats.c.run_id).distinct().where(
            step_stats.c.run_id.in_(run_ids), step_stats.c.metric == metric)).scalars())

    return catalog.read(work) if run_ids else set()


def run_id_by_hash(catalog: Catalog, content_hash: str) -> int | None:
    """The id of the stored run with this content, if any."""
    return catalog.read(lambda conn: conn.execute(select(runs.c.id).where(runs.c.content_hash == content_hash))
                        .scalar())
