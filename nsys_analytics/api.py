"""The Python API: `open()` and the user-facing `Profile`, whose convenience calls delegate to the capabilities.

    >>> p = nsys_analytics.open("train.sqlite")
    >>> p.kernel_summary(limit=10)          # kernels/
    >>> p.breakdown(basis="gpu-busy")       # breakdown/
    >>> p.df("SELECT * FROM kernels")       # the data access underneath (profile.py)

Capabilities are imported inside the calls, so `import nsys_analytics` stays quick. Nothing below imports this.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .data import profile as data_access
from .data import profile_set as set_access
from .data import source

if TYPE_CHECKING:
    from .capabilities.ncu.report import NcuReport


class Profile(data_access.Profile):
    """An nsys profile opened read-only: SQL over the normalized views (`sql()`, `df()`) and the reports as
    DataFrames (`kernel_summary()`, `kernel_categories()`, `breakdown()`).

    >>> p = nsys_analytics.open("run.sqlite")
    >>> p.df("SELECT name, sum(duration_ns) FROM kernels GROUP BY name")
    """

    def kernel_summary(self, by_launch: bool = False, limit: int | None = None, graphs: bool = False, **filters):
        """Top kernels, = `nsys stats --report cuda_gpu_kern_sum` (`by_launch`: `cuda_gpu_kern_gb_sum`). `graphs`:
        whole CUDA graph executions too, as `[CUDA graph N]` rows (`kernels --graphs`). The notes the command
        prints under its table are in the frame's `attrs["notes"]`.

        Filters: name_kind ('demangled'|'short'|'mangled'), device, stream, pid, start_ns, end_ns, match,
        range_name, exclude_range_name, attribution.
        """
        from .core.filters import KernelFilter, check_limit
        from .capabilities.kernels.report import kernel_summary

        result = kernel_summary(self, KernelFilter.from_keywords(**filters), by_launch, check_limit(limit), graphs)
        return _with_notes(result)

    def kernel_categories(self, rules=None, unmatched: bool = False, **filters):
        """Each kernel name with its category, rule and tags (= `nsys-analytics classify`).

        `rules`: TOML file(s) merged over the built-in rules (docs/categories.md). Filters as in kernel_summary.
        """
        from .capabilities.categories.classify import classify_kernels
        from .capabilities.categories.rules import load_rules
        from .core.filters import KernelFilter

        return classify_kernels(self, load_rules(rules), KernelFilter.from_keywords(**filters), unmatched).to_pandas()

    def breakdown(self, basis: str = "kernel", level: str = "category", rules=None, top: int | None = None,
                  memory_ops: bool = True, by: str | None = None, ranges: list[str] | None = None,
                  window: str = "steady", **filters):
        """GPU time by kernel category (= `nsys-analytics breakdown`) as a DataFrame.

        basis: 'kernel' | 'gpu-busy' | 'wall'; level: 'category' | 'group' (matmul vs non-matmul) |
        'kernel' (heaviest non-matmul kernels); by='range': one column pair per NVTX range (`ranges`).
        window: 'steady' (the step_* ranges after the warm-up, when the profile has them) or 'all'.
        Filters as in kernel_summary.
        """
        from .capabilities.breakdown.report import breakdown_frame

        return breakdown_frame(self, basis, level, rules, top, memory_ops, by, ranges, window, **filters)

    def nvtx_summary(self):
        """Time per NVTX range name and style, = `nsys stats --report nvtx_sum` (`nsys-analytics nvtx`)."""
        from .capabilities.nvtx.report import nvtx_summary

        return nvtx_summary(self).to_pandas()

    def nvtx_gpu_summary(self, attribution: str = "thread", exclusive: bool = False):
        """Projected GPU time per NVTX range, = `nsys stats --report nvtx_gpu_proj_sum` (`nsys-analytics nvtx-gpu`)."""
        from .capabilities.nvtx.report import nvtx_gpu_projection_summary

        return nvtx_gpu_projection_summary(self, attribution, exclusive).to_pandas()

    def nvtx_kernel_summary(self, attribution: str = "thread", exclusive: bool = False, name_kind: str = "demangled",
                            graphs: bool = False):
        """Kernels per NVTX range, = `nsys stats --report nvtx_kern_sum` (`nsys-analytics nvtx-kernels`)."""
        from .capabilities.nvtx.report import nvtx_kernel_summary

        return nvtx_kernel_summary(self, attribution, exclusive, name_kind, graphs).to_pandas()

    def modules(self, depth: int | None = None, top: int = 3, window: str = "steady", table: str = "modules"):
        """GPU time per model module, forward and backward, per steady-state step (= `nsys-analytics modules`).

        table: 'modules' (ms, ratio, kernels, share, TFLOP/s per module) or 'kernels' (the `top` heaviest per
        module and direction); depth folds the module tree; window: 'steady' or 'all'.
        """
        return _modules_frame(self, depth, top, window, table)

    def attach(self, path: str | Path, alias: str) -> Profile | NcuReport:
        """Open another profile on the same connection; its views live under `alias.` (e.g. `b.kernels`).
        An Nsight Compute report's tables come the same way (e.g. `n.ncu_metrics`)."""
        data_access.check_alias(alias)
        from .capabilities.ncu import source as ncu_source

        if ncu_source.is_ncu_input(path):
            from .capabilities.ncu.report import NcuReport

            return NcuReport(path, con=self.con, alias=alias)
        return super().attach(path, alias)


def open_nsys(path: str | Path) -> Profile:
    """Open an Nsight Systems profile (.sqlite, .nsys-rep); Nsight Compute input is refused with the message every
    nsys command gives."""
    from .capabilities.ncu import source as ncu_source

    if getattr(path, "is_rank", False):  # a ProfileSet member: its file, restricted to its process
        return path.open()
    p = Path(path).expanduser()
    if p.is_dir():  # a parquetdir/arrowdir export, or a folder that source.resolve refuses in one line
        return Profile(p)
    source.check_regular_file(p, "an nsys SQLite export (`nsys export --type sqlite`) or a .nsys-rep file")
    if ncu_source.is_ncu_input(p):
        raise source.not_nsys_error(p)
    return Profile(p)


def open(path: str | Path) -> Profile | NcuReport:
    """Open an nsys export (.sqlite) or report (.nsys-rep, exported once with the nsys CLI), or an Nsight Compute
    report (.ncu-rep, or an `ncu --csv --page raw` export) as an `NcuReport` with the same `sql()` / `df()`."""
    from .capabilities.ncu import source as ncu_source

    if getattr(path, "is_rank", False):  # a ProfileSet member: its file, restricted to its process
        return path.open()
    if ncu_source.is_ncu_input(path):
        from .capabilities.ncu.report import NcuReport

        return NcuReport(path)
    return Profile(path)


class ProfileSet(set_access.ProfileSet):
    """Many nsys profiles as ranks (one file per rank, or one report of a whole launch split by process), with
    the reports as DataFrames that carry a `rank` column.

    >>> ps = nsys_analytics.open_set(["runs/"], jobs=2)     # files, globs or a folder; scheduler="tcp://h:8786"
    >>> ps.kernel_summary()                                 # per rank and rank 'all' (exact merge)
    >>> ps.nvtx_kernel_summary(table="combined")            # every report method of open()'s Profile
    >>> ps.nccl()                                           # one row per NCCL kernel, with its rank
    >>> ps.ranks_table()                                    # per rank and step: busy, compute, comm, waits
    >>> ps.df("SELECT count(*) AS n FROM kernels")          # any SQL, run on every rank
    """

    # The reports of the single-profile API, over every rank. Each returns the CLI's `--format csv` table of the
    # same command over the same files: per-rank rows, then the combined rows with rank 'all' (`table="all"`);
    # `table="combined"` or `"ranks"` gives one of the two (the CLI's --combined / --per-rank).
    def kernel_summary(self, by_launch: bool = False, limit: int | None = None, table: str = "all", **filters):
        """cuda_gpu_kern_sum (`by_launch`: cuda_gpu_kern_gb_sum) per rank and over all ranks (exact merge), =
        `nsys-analytics kernels PROFILES...`. Filters as in `Profile.kernel_summary`."""
        from .core.filters import KernelFilter, check_limit
        from .capabilities.ranks.sets import kernel_summary_set

        kernel_filter = KernelFilter.from_keywords(**filters)
        return _set_frame(kernel_summary_set(self, kernel_filter, check_limit(limit), by_launch), table)

    def kernel_categories(self, rules=None, unmatched: bool = False, limit: int | None = None, table: str = "all",
                          **filters):
        """Each kernel name with its category, rule and tags, per rank and summed over the ranks, =
        `nsys-analytics classify PROFILES...`."""
        from .capabilities.categories.rules import load_rules
        from .core.filters import KernelFilter, check_limit
        from .capabilities.ranks.sets import classify_set

        return _set_frame(classify_set(self, load_rules(rules), KernelFilter.from_keywords(**filters), unmatched,
                                       check_limit(limit)), table)

    def nvtx_summary(self, table: str = "all"):
        """nvtx_sum per rank and over all ranks (exact), = `nsys-analytics nvtx PROFILES...`."""
        from .capabilities.ranks.nvtx import nvtx_sum_set

        return _set_frame(nvtx_sum_set(self), table)

    def nvtx_gpu_summary(self, attribution: str = "thread", exclusive: bool = False, table: str = "all"):
        """nvtx_gpu_proj_sum per rank and over all ranks (exact), = `nsys-analytics nvtx-gpu PROFILES...`."""
        from .capabilities.ranks.nvtx import nvtx_gpu_set

        return _set_frame(nvtx_gpu_set(self, attribution, exclusive), table)

    def nvtx_kernel_summary(self, attribution: str = "thread", exclusive: bool = False, name_kind: str = "demangled",
                            graphs: bool = False, table: str = "all"):
        """nvtx_kern_sum per rank and over all ranks (exact), = `nsys-analytics nvtx-kernels PROFILES...`."""
        from .capabilities.ranks.nvtx import nvtx_kernels_set

        return _set_frame(nvtx_kernels_set(self, attribution, exclusive, name_kind, graphs), table)

    def nccl_summary(self, table: str = "all"):
        """= the nccl_sum recipe per rank and over all ranks, = `nsys-analytics nccl PROFILES...`."""
        from .capabilities.ranks.sets import nccl_sum_set

        return _set_frame(nccl_sum_set(self), table)

    def breakdown(self, basis: str = "kernel", level: str = "category", rules=None, top: int | None = None,
                  memory_ops: bool = True, by: str | None = None, ranges: list[str] | None = None,
                  window: str = "steady", **filters):
        """Each rank's `Profile.breakdown` table stacked with a `rank` column. No combined table: shares of each
        rank's own basis do not add up across ranks."""
        import pandas as pd

        frames = self.map(_rank_breakdown, basis, level, rules, top, memory_ops, by, ranges, window, filters)
        out = pd.concat([f.assign(rank=r) for r, f in zip(self.ranks, frames)], ignore_index=True)
        return out[["rank", *[c for c in out.columns if c != "rank"]]]

    def modules(self, depth: int | None = None, top: int = 3, window: str = "steady", table: str = "modules"):
        """Each rank's `Profile.modules` table stacked with a `rank` column (= `nsys-analytics modules
        PROFILES...`). No combined table: compare a module across ranks."""
        import pandas as pd

        frames = self.map(_rank_modules, depth, top, window, table)
        out = pd.concat([f.assign(rank=r) for r, f in zip(self.ranks, frames)], ignore_index=True)
        return out[["rank", *[c for c in out.columns if c != "rank"]]]

    def nccl(self):
        """The normalized NCCL operations of every rank (op, bytes where known, duration, stream, ...)."""
        from .capabilities.ranks.sets import nccl_frame

        return nccl_frame(self)

    def ranks_table(self, table: str = "steps"):
        """The `ranks` report as a DataFrame: table 'steps' | 'summary' | 'phases' | 'collectives'; the findings
        (straggler) are in `ranks_report()`."""
        if table not in RANKS_TABLES:
            from .core.errors import UsageError

            raise UsageError(f"table {table!r}: choose one of {', '.join(RANKS_TABLES)}")
        return getattr(self.ranks_report(), table)

    def ranks_report(self):
        from .capabilities.ranks.sets import ranks_report

        return ranks_report(self)

    def df(self, query: str, params=None):
        """SQL over the normalized views on every rank, stacked with a `rank` column."""
        import pandas as pd

        frames = self.map(_rank_df, query, params)
        return pd.concat([f.assign(rank=r) for r, f in zip(self.ranks, frames)], ignore_index=True)


RANKS_TABLES = ("steps", "summary", "phases", "collectives")


def _with_notes(result):
    """The result as a DataFrame that keeps the lines the command prints under its table."""
    frame = result.to_pandas()
    frame.attrs["notes"] = list(result.notes)
    return frame


def _set_frame(result, table: str):
    """A SetResult as the one table `--format csv` writes (per-rank rows, then rank 'all'), or one of its two."""
    from .capabilities.ranks.render import SET_TABLES, one_table

    if table not in SET_TABLES:
        from .core.errors import UsageError

        raise UsageError(f"table {table!r}: choose one of {', '.join(SET_TABLES)}")
    return one_table(result, table).to_pandas()


def _rank_breakdown(member, basis, level, rules, top, memory_ops, by, ranges, window, filters):
    from .capabilities.breakdown.report import breakdown_frame

    with member.open() as p:
        return breakdown_frame(p, basis, level, rules, top, memory_ops, by, ranges, window, **filters)


def _modules_frame(profile, depth, top, window, table):
    from .capabilities.modules.render import ModulesOutput
    from .capabilities.modules.run import modules_report
    from .output.render import pick_table

    tables = ModulesOutput(modules_report(profile, depth, top, window)).tables()
    return pick_table(tables, table, "modules").to_pandas()


def _rank_modules(member, depth, top, window, table):
    with member.open() as p:
        return _modules_frame(p, depth, top, window, table)


def _rank_df(member, query, params):
    with member.open() as p:
        return p.df(query, params)


def open_set(inputs, scheduler: str | None = None, jobs: int | None = None, skip_bad: bool = False) -> ProfileSet:
    """Open many profiles as ranks: paths, globs or folders. Work runs on a local process pool (`jobs`
    processes) or on a Dask cluster (`scheduler="tcp://HOST:8786"`)."""
    from .data.engine import make_engine

    return ProfileSet(inputs, engine=make_engine(scheduler, jobs), skip_bad=skip_bad)


class Catalog:
    """The run catalog (`nsys-analytics runs`) as DataFrames. `url`: an SQLite path or URL, or postgresql://...;
    None: $NSYS_ANALYTICS_DB, else ~/.local/share/nsys-analytics/runs.db.

    >>> cat = nsys_analytics.Catalog("postgresql://ci@db/perf")
    >>> cat.add("run.sqlite", tags={"branch": "main"})
    >>> cat.runs(tags={"branch": "main"})          # one row per run
    >>> cat.trend("category:matmul")                # the metric over the runs
    >>> cat.diff(12, 14)["kernels"]                 # the `diff` tables of two runs
    """

    def __init__(self, url: str | None = None):
        from .capabilities.catalog.connect import Catalog as Store

        self._store = Store(url)
        self.url = self._store.name  # password masked

    def add(self, *paths: str | Path, tags: dict[str, str] | None = None, ranks: bool = False,
            attribution: str = "none", diagnose: bool = False) -> list[int]:
        """Store each profile as a run (or all of them as the ranks of one run); returns the run ids (a profile
        stored before keeps its id)."""
        from .capabilities.catalog.add import summarize_run
        from .capabilities.catalog.data import add_run
        from .capabilities.categories import load_rules

        groups = [list(paths)] if ranks else [[p] for p in paths]
        ids = []
        for group in groups:
            summaries, found = summarize_run([str(p) for p in group], load_rules(), attribution, diagnose)
            ids.append(add_run(self._store, summaries, tags or {}, found)[0])
        return ids

    def runs(self, tags: dict[str, str] | None = None, since=None, until=None, limit: int | None = None):
        """The runs, newest first, with a `tags` column of dicts."""
        import pandas as pd

        from .capabilities.catalog.data import list_runs

        return pd.DataFrame(list_runs(self._store, tags, since, until, limit))

    def kernels(self, run_id: int, name_kind: str = "demangled"):
        """The stored per-kernel figures of a run (one row per rank and kernel name)."""
        import pandas as pd

        from .capabilities.catalog.data import load_run

        rows = [{"rank": p.rank, "name": k.name, "category": k.category, "instances": k.stat.instances,
                 "total_ns": k.stat.total_ns, "avg_ns": k.stat.avg_ns, "med_ns": k.stat.med_ns,
                 "min_ns": k.stat.min_ns, "max_ns": k.stat.max_ns, "stddev_ns": k.stat.stddev_ns}
                for p in load_run(self._store, run_id) for k in p.kernel_stats(name_kind)]
        return pd.DataFrame(rows)

    def trend(self, metric: str = "step_time", tags: dict[str, str] | None = None, limit: int = 1000):
        """`runs trend`: one row per run, oldest first, the metric in ms."""
        from .capabilities.catalog.data import list_runs, metric_series
        from .capabilities.catalog.report import parse_metric, trend_result

        kind, name = parse_metric(metric)
        runs = list_runs(self._store, tags, limit=limit)
        return trend_result(runs, metric_series(self._store, kind, name, [r["id"] for r in runs]), metric).to_pandas()

    def diff(self, base_id: int, new_id: int, name_kind: str = "demangled") -> dict:
        """`runs diff`: {'verdict': str, 'kernels': DataFrame, 'categories': ..., 'ranges': ..., ...}."""
        from .capabilities.catalog.data import load_run
        from .capabilities.diff.report import build_diff

        report = build_diff(load_run(self._store, base_id), load_run(self._store, new_id), name_kind)
        return {"verdict": report.verdict, **{k: r.to_pandas() for k, r in report.tables().items()}}

    def close(self) -> None:
        self._store.close()

    def __repr__(self) -> str:
        return f"Catalog({self.url!r})"
