"""The queries behind `diff` and `runs add`: one profile -> a `ProfileSummary` (kernel duration distributions,
NVTX range instances, and with an attribution mode the kernel time per range instance and per range)."""

from __future__ import annotations

import re
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from . import ATTRIBUTIONS  # noqa: F401 - the modes, named here too
from .matching import step_family
from .summary import KernelStat, ProfileSummary, RangeKernel, RangeStat, Stat

if TYPE_CHECKING:
    from ..categories import RuleSet
    from ..nvtx.steady import Steady
    from ...data.profile import Profile

AUTO_MAX_KERNELS = 300_000  # `auto`: the process attribution up to this many kernels in a profile, none beyond
_RANK = re.compile(r"rank[_-]?(\d+)", re.IGNORECASE)
_API_TABLES = ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER")


def rank_of(path: str | Path, position: int) -> int:
    """The number after `rank` in the file name (`train_rank3.sqlite`, `rank_3.sqlite`), else its position."""
    m = _RANK.search(Path(path).name)
    return int(m.group(1)) if m else position


def file_hash(path: str | Path) -> str:
    """sha256 of the file's bytes (remembered in the cache folder under the file's identity: cache/digest.py)."""
    from ...data.cache.digest import sha256_of

    return sha256_of(path)


def summarize(profile: Profile, rules: RuleSet, rank: int = 0, attribution: str = "process",
              with_hash: bool = False, window: str = "steady") -> ProfileSummary:
    """Everything `diff` compares for one profile. `attribution` ('none' skips it) places kernels in NVTX ranges
    (docs/nvtx.md; 'auto': process up to AUTO_MAX_KERNELS kernels, else none); `with_hash` also hashes the file
    (in a thread, while the queries run). `window` 'steady': kernels and ranges of the steady-state steps only
    (nvtx/steady.py; the whole capture where no step range is found), 'all': the whole capture."""
    skipped = None
    if attribution == "auto":
        kernels = _kernel_rows(profile)
        attribution = "process" if kernels <= AUTO_MAX_KERNELS else "none"
        skipped = kernels if attribution == "none" else None
    with ThreadPoolExecutor(max_workers=1) as pool:
        digest = pool.submit(file_hash, profile.path) if with_hash else None
        summary = ProfileSummary(str(profile.path), _label(profile.path), rank)
        summary.meta = profile.run_file("diff", "profile_meta").to_records()[0]
        steady = steady_window(profile) if window == "steady" else None
        if steady is not None:
            summary.window, summary.steps, summary.step_range = "steady", steady.instances, steady.step_range
            summary.meta["window"] = steady.text
        if profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
            summary.kernels, summary.short_names = kernel_stats(profile, rules, steady)
        if profile.has_table("NVTX_EVENTS"):
            used = attribution if _can_attribute(profile, attribution) else None
            summary.ranges, summary.range_kernels = range_stats(profile, used, steady)
            summary.attribution = used
        summary.file_hash = digest.result() if digest else None
    if skipped is not None:
        summary.meta["attribution_skipped_kernels"] = skipped
    return summary


def _kernel_rows(profile: Profile) -> int:
    """About how many kernels the profile holds (the kernel table's largest rowid: no scan)."""
    if not profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
        return 0
    from ...data.source import connect_readonly

    con = connect_readonly(profile.sqlite_path)
    try:
        return con.execute("SELECT coalesce(max(rowid), 0) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    finally:
        con.close()


def _label(path: Path) -> str:
    name = Path(path).name
    for suffix in (".sqlite", ".nsys-rep", ".qdrep"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _can_attribute(profile: Profile, attribution: str) -> bool:
    if attribution == "none" or not profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
        return False
    return attribution == "gpu" or any(profile.has_table(t) for t in _API_TABLES)


def steady_window(profile: Profile) -> Steady | None:
    """The steady state of the profile's step-like range family (a name with step, iter, iteration or batch as a
    word, the family with the most time; warm-up: the range `warmup`), or None where it has none."""
    from ..nvtx.steady import steady_state

    if not profile.has_table("NVTX_EVENTS"):
        return None
    totals: dict[str, int] = defaultdict(int)
    for name, _style, duration, n in profile.run_file("diff", "range_durations").rows:
        totals[name] += int(duration) * int(n)
    family = step_family(totals)
    if family is None:
        return None
    pattern = family.split(":", 1)[1] if family.startswith(":") else family  # steady.py globs ':x' by its text
    steady = steady_state(profile, "steady", pattern)
    return steady if steady.step_range else None


def _steady_params(steady: Steady | None) -> dict:
    if steady is None:
        return {"steady_range": None, "steady_warmup": None, "steady_after_ns": None, "from_ns": None, "to_ns": None}
    return {**steady.ops_params(), "from_ns": steady.from_ns, "to_ns": steady.to_ns}


def kernel_stats(profile: Profile, rules: RuleSet, steady: Steady | None = None
                 ) -> tuple[list[KernelStat], dict[str, str]]:
    """Per demangled and per short name: the exact figures and distribution of its durations (in the steady state
    `steady`, else the whole capture)."""
    from ..categories import OTHER

    by_name: dict[tuple[str, str], dict[int, int]] = defaultdict(lambda: defaultdict(int))
    weight: dict[tuple[str, str], int] = defaultdict(int)  # (short, demangled) -> GPU time
    rows = (profile.run_file("diff", "steady_kernel_durations", steady.ops_params()) if steady
            else profile.run_file("diff", "kernel_durations")).rows
    for demangled, short, duration, n in rows:
        by_name[("demangled", demangled)][duration] += n
        by_name[("short", short)][duration] += n
        weight[(short, demangled)] += duration * n
    matches = rules.classify_all(d for kind, d in by_name if kind == "demangled")
    heaviest: dict[str, str] = {}  # short -> its heaviest demangled name
    for (short, demangled), ns in sorted(weight.items(), key=lambda kv: -kv[1]):
        heaviest.setdefault(short, demangled)
    stats = []
    for (kind, name), pairs in by_name.items():
        demangled = name if kind == "demangled" else heaviest[name]
        category = matches[demangled].category if demangled is not None else OTHER
        stats.append(KernelStat(kind, name, category, Stat.of(pairs)))
    stats.sort(key=lambda k: (k.name_kind, -k.stat.total_ns, k.name or ""))
    short_names = {d: s for (s, d) in weight}
    return stats, short_names


def range_stats(profile: Profile, attribution: str | None, steady: Steady | None = None
                ) -> tuple[list[RangeStat], list[RangeKernel]]:
    """Per range name: its instances' durations and, in the given `attribution`, the kernel time of each instance,
    both as counts of each value made by the database (a few thousand rows instead of every instance); in the
    steady state `steady` (instances starting in its span, kernels launched in its steps), else the whole
    capture."""
    durations: dict[tuple[str, str], dict[int, int]] = defaultdict(dict)
    rows = (profile.run_file("diff", "steady_range_durations", _steady_params(steady)) if steady
            else profile.run_file("diff", "range_durations")).rows
    for name, style, duration, n in rows:
        durations[(name, style)][int(duration)] = int(n)
    if attribution is None:
        return [RangeStat(name, style, Stat.of(pairs)) for (name, style), pairs in durations.items()], []
    kernel_times: dict[tuple[str, str], dict[int, int]] = defaultdict(dict)
    range_kernels = []
    # the launch attributions: by time segments
    query = "range_kernels_gpu" if attribution == "gpu" else "range_kernels"
    for rng, style, kernel, kernel_ns, n in profile.sql(range_kernels_sql(query, attribution, steady)).rows:
        if style is not None:  # an instance kernel time of range `rng` and how many instances had it
            kernel_times[(rng, style)][int(kernel_ns)] = int(n)
        else:
            range_kernels.append(RangeKernel(rng, kernel, int(kernel_ns), int(n)))
    ranges = [RangeStat(name, style, Stat.of(pairs), Stat.of(kernel_times[(name, style)]))
              for (name, style), pairs in durations.items()]
    return ranges, range_kernels


def range_kernels_sql(query: str, attribution: str, steady: Steady | None = None) -> str:
    """range_kernels or range_kernels_gpu (`query`) for the given `attribution` (in the steady state `steady`, else
    the whole capture), with the rows both end with."""
    from ...data import sql_files

    text = sql_files.read("diff", query).text + "\n" + sql_files.read("diff", "_range_kernel_rows").text
    return sql_files.inline_params(text, {"attribution": attribution, **_steady_params(steady)})


def summarize_side(paths: list[str], rules: RuleSet, attribution: str = "process",
                   with_hash: bool = False, window: str = "steady", split: bool = False) -> list[ProfileSummary]:
    """One side of a comparison: a profile, or several opened as ranks through `ProfileSet` (rank ids from the
    process environment, NCCL payloads, the file name or the input order; a report of a whole launch is split
    by process), summarized on its engine (a local process pool by default). `split`: one report of several GPU
    processes is read as its ranks too (diff: against the rank files of a launch, it read as one rank)."""
    from ...data.profile_set import ProfileSet

    one = not (split and whole_launch(paths[0]))
    if len(paths) == 1 and one:
        return [summarize_file(paths[0], rules, rank_of(paths[0], 0), attribution, with_hash, window=window)]

    return ProfileSet(paths).map(summarize_member, rules, attribution, with_hash, window)


def summarize_member(member, rules: RuleSet, attribution: str, with_hash: bool,
                     window: str = "steady") -> ProfileSummary:
    """`summarize` for one rank of a ProfileSet (module level: process pools pickle it)."""
    part = "" if member.pid is None else f"pid {member.pid}"
    return as_member(summarize_file(member.path, rules, member.rank, attribution, with_hash, member.open, part,
                                    window), member)


def as_member(summary: ProfileSummary, member) -> ProfileSummary:
    """The summary of a rank that is one process of its file (a report of a whole launch) named so, its pid kept:
    catalog/steps.py reads that process alone."""
    if member.pid is not None:
        summary.label += f" pid {member.pid}"
        summary.meta["pid"] = member.pid
    return summary


def whole_launch(path) -> bool:
    """Whether the file is one report of several processes that ran kernels, read as its ranks (split)."""
    from ...data.profile_set import several_gpu_processes

    return str(path).endswith(".sqlite") and several_gpu_processes(path)


def summarize_file(path: str | Path, rules: RuleSet, rank: int, attribution: str, with_hash: bool,
                   open_profile=None, part: str = "", window: str = "steady") -> ProfileSummary:
    """`summarize` of the profile at `path` (or of one part of it: `open_profile` opens it, `part` names it), read
    back from the cache folder when this file's present content was summarized before alike (diff/memo.py)."""
    from .memo import summary_of

    def compute() -> ProfileSummary:
        from ...data.profile import Profile

        with (open_profile() if open_profile else Profile(path)) as p:
            return summarize(p, rules, rank, attribution, with_hash, window)

    asked = f"auto up to {AUTO_MAX_KERNELS}" if attribution == "auto" else attribution
    summary = summary_of(path, rules, f"{asked}\0{window}", part, compute)
    summary.path, summary.label, summary.rank = str(Path(path)), _label(Path(path)), rank
    if with_hash and summary.file_hash is None:
        summary.file_hash = file_hash(path)
    return summary
