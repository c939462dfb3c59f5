"""The queries behind `diff` and `runs add`: one profile -> a `ProfileSummary` (kernel duration distributions,
NVTX range instances, and with an attribution mode the kernel time per range instance and per range)."""

from __future__ import annotations

import re
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from . import ATTRIBUTIONS  # noqa: F401 - the modes, named here too
from .summary import KernelStat, ProfileSummary, RangeKernel, RangeStat, Stat

if TYPE_CHECKING:
    from ..categories import RuleSet
    from ..profile import Profile

AUTO_MAX_KERNELS = 300_000  # `auto`: the process attribution up to this many kernels in a profile, none beyond
_RANK = re.compile(r"rank[_-]?(\d+)", re.IGNORECASE)
_API_TABLES = ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER")


def rank_of(path: str | Path, position: int) -> int:
    """The number after `rank` in the file name (`train_rank3.sqlite`, `rank_3.sqlite`), else its position."""
    m = _RANK.search(Path(path).name)
    return int(m.group(1)) if m else position


def file_hash(path: str | Path) -> str:
    """sha256 of the file's bytes (remembered in the cache folder under the file's identity: cache/digest.py)."""
    from ..cache.digest import sha256_of

    return sha256_of(path)


def summarize(profile: Profile, rules: RuleSet, rank: int = 0, attribution: str = "process",
              with_hash: bool = False) -> ProfileSummary:
    """Everything `diff` compares for one profile. `attribution` ('none' skips it) places kernels in NVTX ranges
    (docs/nvtx.md; 'auto': process up to AUTO_MAX_KERNELS kernels, else none); `with_hash` also hashes the file
    (in a thread, while the queries run)."""
    skipped = None
    if attribution == "auto":
        kernels = _kernel_rows(profile)
        attribution = "process" if kernels <= AUTO_MAX_KERNELS else "none"
        skipped = kernels if attribution == "none" else None
    with ThreadPoolExecutor(max_workers=1) as pool:
        digest = pool.submit(file_hash, profile.path) if with_hash else None
        summary = ProfileSummary(str(profile.path), _label(profile.path), rank)
        summary.meta = profile.run_file("diff", "profile_meta").to_records()[0]
        if profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
            summary.kernels, summary.short_names = kernel_stats(profile, rules)
        if profile.has_table("NVTX_EVENTS"):
            mode = attribution if _can_attribute(profile, attribution) else None
            summary.ranges, summary.range_kernels = range_stats(profile, mode)
            summary.attribution = mode
        summary.file_hash = digest.result() if digest else None
    if skipped is not None:
        summary.meta["attribution_skipped_kernels"] = skipped
    return summary


def _kernel_rows(profile: Profile) -> int:
    """About how many kernels the profile holds (the kernel table's largest rowid: no scan)."""
    if not profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
        return 0
    from ..source import connect_readonly

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


def _can_attribute(profile: Profile, mode: str) -> bool:
    if mode == "none" or not profile.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
        return False
    return mode == "gpu" or any(profile.has_table(t) for t in _API_TABLES)


def kernel_stats(profile: Profile, rules: RuleSet) -> tuple[list[KernelStat], dict[str, str]]:
    """Per demangled and per short name: the exact figures and distribution of its durations."""
    from ..categories import OTHER

    by_name: dict[tuple[str, str], dict[int, int]] = defaultdict(lambda: defaultdict(int))
    weight: dict[tuple[str, str], int] = defaultdict(int)  # (short, demangled) -> GPU time
    for demangled, short, duration, n in profile.run_file("diff", "kernel_durations").rows:
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


def range_stats(profile: Profile, mode: str | None) -> tuple[list[RangeStat], list[RangeKernel]]:
    """Per range name: its instances' durations and, in attribution `mode`, the kernel time of each instance, both
    as counts of each value made by the database (a few thousand rows instead of every instance)."""
    durations: dict[tuple[str, str], dict[int, int]] = defaultdict(dict)
    for name, style, duration, n in profile.run_file("diff", "range_durations").rows:
        durations[(name, style)][int(duration)] = int(n)
    if mode is None:
        return [RangeStat(name, style, Stat.of(pairs)) for (name, style), pairs in durations.items()], []
    kernel_times: dict[tuple[str, str], dict[int, int]] = defaultdict(dict)
    range_kernels = []
    query = "range_kernels_gpu" if mode == "gpu" else "range_kernels"  # the launch modes: by time segments
    for rng, style, kernel, kernel_ns, n in profile.sql(range_kernels_sql(query, mode)).rows:
        if style is not None:  # an instance kernel time of range `rng` and how many instances had it
            kernel_times[(rng, style)][int(kernel_ns)] = int(n)
        else:
            range_kernels.append(RangeKernel(rng, kernel, int(kernel_ns), int(n)))
    ranges = [RangeStat(name, style, Stat.of(pairs), Stat.of(kernel_times[(name, style)]))
              for (name, style), pairs in durations.items()]
    return ranges, range_kernels


def range_kernels_sql(query: str, mode: str) -> str:
    """range_kernels or range_kernels_gpu (`query`) for attribution `mode`, with the rows both end with."""
    from .. import sql_files

    text = sql_files.read("diff", query).text + "\n" + sql_files.read("diff", "_range_kernel_rows").text
    return sql_files.inline_params(text, {"mode": mode})


def summarize_side(paths: list[str], rules: RuleSet, attribution: str = "process",
                   with_hash: bool = False) -> list[ProfileSummary]:
    """One side of a comparison: a profile, or several opened as ranks through `ProfileSet` (rank ids from the
    process environment, NCCL payloads, the file name or the input order; a report of a whole launch is split
    by process), summarized on its engine (a local process pool by default)."""
    if len(paths) == 1:
        return [summarize_file(paths[0], rules, rank_of(paths[0], 0), attribution, with_hash)]
    from ..profile_set import ProfileSet

    return ProfileSet(paths).map(summarize_member, rules, attribution, with_hash)


def summarize_member(member, rules: RuleSet, attribution: str, with_hash: bool) -> ProfileSummary:
    """`summarize` for one rank of a ProfileSet (module level: process pools pickle it)."""
    part = "" if member.pid is None else f"pid {member.pid}"
    summary = summarize_file(member.path, rules, member.rank, attribution, with_hash, member.open, part)
    if part:
        summary.label += f" {part}"
    return summary


def summarize_file(path: str | Path, rules: RuleSet, rank: int, attribution: str, with_hash: bool,
                   open_profile=None, part: str = "") -> ProfileSummary:
    """`summarize` of the profile at `path` (or of one part of it: `open_profile` opens it, `part` names it), read
    back from the cache folder when this file's present content was summarized before alike (diff/memo.py)."""
    from .memo import summary_of

    def compute() -> ProfileSummary:
        from ..profile import Profile

        with (open_profile() if open_profile else Profile(path)) as p:
            return summarize(p, rules, rank, attribution, with_hash)

    asked = f"auto up to {AUTO_MAX_KERNELS}" if attribution == "auto" else attribution
    summary = summary_of(path, rules, asked, part, compute)
    summary.path, summary.label, summary.rank = str(Path(path)), _label(Path(path)), rank
    if with_hash and summary.file_hash is None:
        summary.file_hash = file_hash(path)
    return summary
