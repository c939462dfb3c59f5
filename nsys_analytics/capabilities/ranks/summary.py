"""Summaries over many ranks: the combined table and the per-rank table, as the recipes' all_stats / rank_stats.
No I/O: frames in, `SetResult` out."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ...core.result import Result
from ...core.rounding import nsys_round, recipe_round
from .merge import merge_distributions, summarize

# Our column -> nsys' header (cuda_gpu_kern_sum).
KERNEL_HEADERS = {
    "rank": "Rank", "time_pct": "Time (%)", "total_time_ns": "Total Time (ns)", "instances": "Instances",
    "avg_ns": "Avg (ns)", "med_ns": "Med (ns)", "min_ns": "Min (ns)", "max_ns": "Max (ns)",
    "stddev_ns": "StdDev (ns)", "name": "Name",
}
# The statistics `nsys recipe` prints too (Mean, Median, Std) follow its conventions; Time (%), which it lacks,
# rounds as nsys stats.
_RECIPE = ("avg_ns", "med_ns", "stddev_ns")
RECIPE_NOTE = ("Avg, Med and StdDev are rounded as nsys recipe prints them (half to even: 1220563.25 -> 1220563.2), "
               "and StdDev is blank for a single instance.")


@dataclass
class SetResult:
    """What a command over many ranks shows: one combined table, one table with a `rank` column, and notes."""

    combined: Result | None
    ranks: Result
    notes: list[str] = field(default_factory=list)
    exit_code: int = 0  # the highest of the ranks' (a command's own body run per rank: diagnose --fail-on)

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
             "Combined statistics are computed from the union of every rank's durations: exact.", RECIPE_NOTE]
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
    return result_of(blank_single_std(df), headers, ("time_pct",), _RECIPE)


def result_of(df: pd.DataFrame, headers: dict[str, str], rounded: tuple[str, ...],
              recipe: tuple[str, ...] = ()) -> Result:
    """A frame as a Result: the columns named in `headers` (in that order), `rounded` ones rounded as nsys stats
    prints, `recipe` ones as nsys recipe prints (half to even)."""
    columns = [c for c in headers if c in df.columns]
    how = {**{c: nsys_round for c in rounded}, **{c: recipe_round for c in recipe}}
    rows = [tuple(how[c](v) if c in how else _plain(v) for c, v in zip(columns, row))
            for row in df[columns].itertuples(index=False, name=None)]
    return Result(columns, rows, headers=[headers[c] for c in columns])


def blank_single_std(df: pd.DataFrame, count: str = "instances", std: str = "stddev_ns") -> pd.DataFrame:
    """The standard deviation of a single instance blank (None), as the recipes leave it (pandas' NaN) where
    nsys stats prints 0.0."""
    if df.empty:
        return df
    single = df[count].to_numpy() == 1
    return df.assign(**{std: pd.Series([None if one else _plain(v) for one, v in zip(single, df[std])],
                                       index=df.index, dtype=object)})


def _plain(v):
    """numpy scalars -> Python numbers (JSON, CSV and the table renderer expect them)."""
    return v.item() if hasattr(v, "item") else v
