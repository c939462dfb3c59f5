"""Summaries over many ranks: the combined table and the per-rank table, as the recipes' all_stats / rank_stats.
No I/O: frames in, `SetResult` out."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..result import Result
from ..rounding import nsys_round
from .merge import merge_distributions, summarize

# Our column -> nsys' header (cuda_gpu_kern_sum).
KERNEL_HEADERS = {
    "rank": "Rank", "time_pct": "Time (%)", "total_time_ns": "Total Time (ns)", "instances": "Instances",
    "avg_ns": "Avg (ns)", "med_ns": "Med (ns)", "min_ns": "Min (ns)", "max_ns": "Max (ns)",
    "stddev_ns": "StdDev (ns)", "name": "Name",
}
_ROUNDED = ("time_pct", "avg_ns", "med_ns", "stddev_ns")


@dataclass
class SetResult:
    """What a command over many ranks shows: one combined table, one table with a `rank` column, and notes."""

    combined: Result | None
    ranks: Result
    notes: list[str] = field(default_factory=list)

    def tables(self) -> dict[str, Result]:
        out = {"combined": self.combined} if self.combined is not None else {}
        out["ranks"] = self.ranks
        return out


def kernel_set_summary(per_rank: list[tuple[int, pd.DataFrame]], limit: int | None = None,
                       by_launch: bool = False) -> SetResult:
    """cuda_gpu_kern_sum (by_launch: cuda_gpu_kern_gb_sum) over many ranks from each rank's (name, grid_xyz,
    block_xyz, duration_ns, instances)."""
    if not by_launch:
        return distribution_summary(per_rank, limit)
    return distribution_summary(per_rank, limit, parts=("name", "grid_xyz", "block_xyz"),
                                headers={"grid_xyz": "GridXYZ", "block_xyz": "BlockXYZ"})


def distribution_summary(per_rank: list[tuple[int, pd.DataFrame]], limit: int | None = None,
                         key_header: str = "Name", parts: tuple[str, ...] = ("name",),
                         headers: dict[str, str] | None = None) -> SetResult:
    """nsys summary columns per key, over all ranks (exact merge) and per rank. The key is the column `name`, or
    the columns `parts` together (e.g. name, grid and block), each shown under its header before the name."""
    named = {**KERNEL_HEADERS}
    del named["name"]
    named.update(headers or {})
    named["name"] = key_header

    def summary(dists):
        merged = merge_distributions([_keyed(d, parts) for d in dists])
        out = summarize(merged)
        return _split_key(out, parts)

    combined = summary([d for _, d in per_rank])
    rank_frames = []
    for rank, dist in per_rank:
        s = summary([dist])
        s.insert(0, "rank", rank)
        rank_frames.append(s.head(limit) if limit else s)
    ranks = pd.concat(rank_frames, ignore_index=True) if rank_frames else combined.head(0).assign(rank=0)
    notes = ["Time (%) is each row's share of the summed time of the rows listed (all ranks in the combined "
             "table, the rank's own in the per-rank table).",
             "Combined statistics are computed from the union of every rank's durations: exact."]
    return SetResult(_result(combined.head(limit) if limit else combined, named), _result(ranks, named), notes)


_SEP = "\x1f"  # joins the parts of a key: below every printable character, so keys sort as their parts do


def _keyed(dist: pd.DataFrame, parts: tuple[str, ...]) -> pd.DataFrame:
    if parts == ("name",):
        return dist
    key = dist[parts[0]].astype(str)
    for c in parts[1:]:
        key = key + _SEP + dist[c].astype(object).where(dist[c].notna(), "").astype(str)
    return pd.DataFrame({"name": key, "duration_ns": dist["duration_ns"], "instances": dist["instances"]})


def _split_key(out: pd.DataFrame, parts: tuple[str, ...]) -> pd.DataFrame:
    if parts == ("name",) or out.empty:
        return out
    split = out["name"].str.split(_SEP, n=len(parts) - 1, expand=True)
    out = out.drop(columns="name")
    for i, c in enumerate(parts):
        out[c] = split[i]
    return out


def _result(df: pd.DataFrame, headers: dict[str, str]) -> Result:
    return result_of(df, headers, _ROUNDED)


def result_of(df: pd.DataFrame, headers: dict[str, str], rounded: tuple[str, ...]) -> Result:
    """A frame as a Result: the columns named in `headers` (in that order), `rounded` ones rounded as nsys."""
    columns = [c for c in headers if c in df.columns]
    rows = [tuple(nsys_round(v) if c in rounded else _plain(v) for c, v in zip(columns, row))
            for row in df[columns].itertuples(index=False, name=None)]
    return Result(columns, rows, headers=[headers[c] for c in columns])


def _plain(v):
    """numpy scalars -> Python numbers (JSON, CSV and the table renderer expect them)."""
    return v.item() if hasattr(v, "item") else v
