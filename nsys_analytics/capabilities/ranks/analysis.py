"""The `ranks` report: per rank and step, where the time goes, how long each rank waits in collectives for the
others, and which rank is the straggler and why. No I/O: per-rank frames (ranks/data.py) in, a `RanksReport` out.

Waiting (docs/ranks.md): collective instances are matched across ranks by order — the k-th NCCL kernel of a given
name on one rank is the k-th of that name on every other. A rank arrives at a collective when its kernel starts on
the GPU (the stream has reached it: the work it depends on is done). A collective cannot finish on any rank before
the last rank has arrived, so with s_r the start of rank r's kernel, d_r its duration and A = max_r s_r the latest
arrival, rank r's kernel waits w_r = min(max(A - s_r, 0), d_r) for the others (a collective's `wait_ns`). The rank that
arrived last (A = s_r) *causes* it.

What a rank loses per step (`wait_ns`) is the longest it is held at one collective of the step: how far it ran
ahead of the slowest rank. Summing the holds would count one lag many times: the collectives after the first one
that waits (FSDP's prefetched all-gathers and reduce-scatters, DDP's buckets queued on one stream) are held by the
same lag while compute runs beside them. On the fixtures' runs with a designed straggler this equals the waiting
ranks' lost step time measured by CUDA events within 3 % (docs/ranks.md); two separate lags in one step with the
ranks back in step between them count as the larger one.

Where the time goes is measured on the GPU: each kernel is placed in the NVTX range open at its launch
(ranks/paths.py, ranges nested by time within the process, whatever the thread), and each range's compute time is
the summed time of the compute kernels launched inside it, per steady step. The straggler's verdict names the
innermost range that explains its excess: from the step down, the range whose compute time exceeds the other
ranks' (median) the most, as long as it keeps most of its parent's excess. Where the GPU shows no such excess (a
data-loader stall is CPU time), the CPU time of the step's phases decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ...output.render import sentence_name
from . import paths as paths_mod

if TYPE_CHECKING:
    from ...data.profile_set import JobCheck

MS = 1e6
MIN_STRAGGLER_NS = 1_000_000  # a straggler costs the others at least 1 ms per step ...
MIN_STRAGGLER_SHARE = 0.10    # ... and at least 10 % of a step (below: an imbalance, reported as info)
KEEP_SHARE = 0.7               # a child range explains its parent's excess when it holds at least 70 % of it
GPU_SHARE = 0.25               # the GPU explains the straggler when its compute excess is 25 % of the wait it causes
MIN_MATCHED_SHARE = 0.5        # below this share of NCCL kernels matched across the ranks, the waits are not measured


@dataclass
class RanksReport:
    summary: pd.DataFrame      # per rank, means over the steady steps
    steps: pd.DataFrame        # per rank and step
    phases: pd.DataFrame       # per rank and range path inside the step: CPU (top level) and GPU time per steady step
    collectives: pd.DataFrame  # per matched collective instance and rank: start, duration, wait, last rank
    findings: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    straggler: int | None = None
    steady_steps: list[int] = field(default_factory=list)
    nccl_kernels: int = 0      # every rank's NCCL kernels ...
    unmatched_kernels: int = 0  # ... and those without a counterpart on every rank (left out of the waits)


class CollectiveMatcher:
    """Matches NCCL kernels across ranks, fed one rank at a time (a rank's frame can be let go once added): only
    what the match needs is kept, as numpy arrays (name code, ordinal, start, end, stream, overlap, step, range
    path: 52 bytes a kernel, the codes in 32 bits), so that 256 ranks of 4,536 NCCL kernels each take 60 MB in the
    parent."""

    def __init__(self):
        self.names: dict[str, int] = {}  # kernel name -> code, over all ranks
        self.ops: dict[str, str] = {}     # kernel name -> op
        self.paths: dict[str, int] = {}   # range path -> code
        self.parts: list[dict[str, np.ndarray]] = []
        self.ranks: set[int] = set()
        self.kernels = 0    # NCCL kernels added ...
        self.unmatched = 0  # ... and those without a counterpart on every rank (known after result())

    def add(self, rank: int, ops: pd.DataFrame | None) -> None:
        """One rank's NCCL kernels: start_ns, end_ns, name, op, stream and, where known, the step and the range path
        of their launch."""
        if ops is None or ops.empty:
            return
        self.ranks.add(rank)
        self.kernels += len(ops)
        o = ops.sort_values(["start_ns", "stream"], kind="stable")
        names = o["name"].astype("category")  # each distinct name is coded once
        first = o.drop_duplicates("name")
        op_of = dict(zip(first["name"].astype(str), first["op"].astype(str)))
        codes_of = np.array([self._code(str(c), op_of.get(str(c), "")) for c in names.cat.categories], dtype=np.int32)
        codes = codes_of[names.cat.codes.to_numpy()]
        ordinal = pd.Series(codes).groupby(codes).cumcount().to_numpy(dtype=np.int64)
        path = o["path"].astype(str).to_numpy() if "path" in o else np.full(len(o), "", dtype=object)
        self.parts.append({"rank": np.full(len(codes), rank, dtype=np.int32), "code": codes,
                           "ordinal": ordinal.astype(np.int32),
                           "start_ns": o["start_ns"].to_numpy(dtype=np.int64),
                           "end_ns": o["end_ns"].to_numpy(dtype=np.int64),
                           "stream": o["stream"].to_numpy(dtype=np.int64),
                           "overlap_ns": (o["overlap_ns"].to_numpy(dtype=np.int64) if "overlap_ns" in o
                                          else np.zeros(len(o), dtype=np.int64)),
                           "step": (o["step"].to_numpy(dtype=np.int32) if "step" in o
                                    else np.full(len(o), -1, dtype=np.int32)),
                           "path": np.array([self.paths.setdefault(x, len(self.paths)) for x in path],
                                            dtype=np.int32)})

    def _code(self, name: str, op: str) -> int:
        if name not in self.names:
            self.names[name] = len(self.names)
        if op or name not in self.ops:
            self.ops[name] = op
        return self.names[name]

    def result(self) -> tuple[pd.DataFrame, list[str]]:
        """One row per (collective instance, rank): name, op, ordinal, start, end, stream, duration, the last
        arrival, wait (ns), the last arriving rank; and notes."""
        notes: list[str] = []
        if not self.parts:  # one rank's collectives are listed too: its NCCL time per range, no wait
            return _empty_collectives(), notes
        a = {k: np.concatenate([p[k] for p in self.parts]) for k in self.parts[0]}
        self.parts = []
        ranks = len(self.ranks)
        key = a["code"].astype(np.int64) * (int(a["ordinal"].max()) + 1) + a["ordinal"]
        inverse = np.unique(key, return_inverse=True)[1]
        del key
        present = np.bincount(inverse)[inverse]  # one kernel per rank and key (ordinals are per rank)
        keep = present == ranks
        unmatched = self.unmatched = int((~keep).sum())
        del present
        if unmatched:
            notes.append(f"{unmatched} NCCL kernels have no counterpart on every rank (different counts per rank); "
                         "they are left out of the waits")
            for k in a:
                a[k] = a[k][keep]
            inverse = np.unique(inverse[keep], return_inverse=True)[1]
        if not len(inverse):
            return _empty_collectives(), notes
        # the latest arrival of each instance, and the rank that made it (ties: the lowest rank)
        order = np.lexsort((a["rank"], -a["start_ns"], inverse))
        head = order[np.r_[True, inverse[order][1:] != inverse[order][:-1]]]
        last_start = np.empty(inverse.max() + 1, dtype=np.int64)
        last_rank = np.empty(inverse.max() + 1, dtype=np.int64)
        last_start[inverse[head]] = a["start_ns"][head]
        last_rank[inverse[head]] = a["rank"][head]
        del order, head
        order = np.lexsort((a["rank"], a["start_ns"]))  # the rows in time order, then rank
        for k in a:  # one column at a time: the old one is let go as its reordered copy takes its place
            a[k] = a[k][order]
        inverse = inverse[order]
        del order
        arrival = last_start[inverse]
        duration = a["end_ns"] - a["start_ns"]
        early = np.minimum(np.maximum(arrival - a["start_ns"], 0), duration)  # before the last rank arrived
        names = list(self.names)
        op_codes = pd.Categorical([self.ops[n] for n in names])
        out = pd.DataFrame({
            "rank": a["rank"].astype(np.int64), "name": pd.Categorical.from_codes(a["code"], categories=names),
            "op": pd.Categorical.from_codes(op_codes.codes[a["code"]], categories=op_codes.categories),
            "ordinal": a["ordinal"].astype(np.int64), "start_ns": a["start_ns"], "end_ns": a["end_ns"],
            "stream": a["stream"],
            "duration_ns": duration, "overlap_ns": a["overlap_ns"], "arrival_last_ns": arrival, "wait_ns": early,
            "last_rank": last_rank[inverse], "step": a["step"].astype(np.int64),
            "path": pd.Categorical.from_codes(a["path"], categories=list(self.paths) or [""])}, copy=False)
        return out, notes


def match_collectives(nccl: dict[int, pd.DataFrame]) -> tuple[pd.DataFrame, list[str]]:
    """One row per (collective instance, rank): instance key, start, duration, wait (ns), last arriving rank."""
    matcher = CollectiveMatcher()
    for rank, ops in nccl.items():
        matcher.add(rank, ops)
    return matcher.result()


def build(timelines, job: JobCheck | None = None) -> RanksReport:
    """The report from each rank's step_timeline(): a dict {rank: timeline} or an iterable of (rank, timeline)
    pairs, folded in one at a time (each rank's NCCL kernels go into the matcher and are let go). `job`: what the
    files say of the job they ran in (ProfileSet.job): files of several jobs get no straggler, a partial set the
    wait for the ranks not given."""
    items = timelines.items() if isinstance(timelines, dict) else timelines
    matcher = CollectiveMatcher()
    kept: dict[int, dict[str, pd.DataFrame]] = {}
    for rank, t in items:
        matcher.add(rank, t["nccl"])
        kept[rank] = {k: v for k, v in t.items() if k != "nccl"}
    coll, notes = matcher.result()
    steps = _steps_table(kept, coll)
    steady, steady_note = _steady_steps(steps)
    if steady_note:
        notes.append(steady_note)
    phases = _phases_table(kept, coll, steady)
    summary = _summary(steps, steady)
    report = RanksReport(summary, steps, phases, coll, notes=notes, steady_steps=steady,
                         nccl_kernels=matcher.kernels, unmatched_kernels=matcher.unmatched)
    _find_straggler(report, kept, job)
    return report


def _steps_table(timelines, coll: pd.DataFrame) -> pd.DataFrame:
    rows = []
    of_rank = coll.groupby("rank").indices if len(coll) else {}  # each rank's rows, found in one pass
    start_all, wait_all, by_all = (coll[c].to_numpy() for c in ("start_ns", "wait_ns", "last_rank"))
    for rank, t in timelines.items():
        s = t["steps"].merge(t["gpu"], on="step", how="left")
        if s.empty:
            continue
        mine = of_rank.get(rank, np.array([], dtype=np.int64))
        start = start_all[mine]
        idx = np.searchsorted(s["start_ns"].to_numpy(), start, side="right") - 1
        inside = (idx >= 0) & (start < s["gpu_end_ns"].to_numpy()[np.clip(idx, 0, None)])
        held = pd.DataFrame({"i": idx[inside], "held": wait_all[mine][inside], "by": by_all[mine][inside]})
        # each step's longest hold and who caused it (the first such collective where holds tie)
        wait, held_by = np.zeros(len(s), dtype=np.int64), np.full(len(s), -1, dtype=np.int64)
        if len(held):
            longest = held.loc[held.groupby("i")["held"].idxmax()]
            wait[longest["i"].to_numpy()] = longest["held"].to_numpy()
            held_by[longest["i"].to_numpy()] = longest["by"].to_numpy()
        s = s.assign(rank=rank, step_ns=s["end_ns"] - s["start_ns"], wait_ns=wait, held_by=held_by)
        rows.append(s)
    if not rows:
        return pd.DataFrame(columns=["rank", "step", "name", "step_ns", "gpu_busy_ns", "compute_ns", "comm_ns",
                                     "overlap_ns", "wait_ns", "held_by", "start_ns", "end_ns", "warm"])
    out = pd.concat(rows, ignore_index=True)
    for c in ("gpu_busy_ns", "compute_ns", "comm_ns", "overlap_ns"):
        out[c] = out[c].fillna(0).astype("int64")
    return out[["rank", "step", "name", "step_ns", "gpu_busy_ns", "compute_ns", "comm_ns", "overlap_ns", "wait_ns",
                "held_by", "start_ns", "end_ns", "warm"]]


def _steady_steps(steps: pd.DataFrame) -> tuple[list[int], str | None]:
    """Steps present on every rank and warm-up on none (each rank's steps were flagged by nvtx/steady.py's rule:
    inside a `warmup` range, or, in a rank without one, the first step of three or more)."""
    if steps.empty:
        return [], None
    common = sorted(set.intersection(*(set(g["step"]) for _, g in steps.groupby("rank"))))
    warm = set(steps.loc[steps["warm"].astype(bool), "step"])
    kept = [s for s in common if s not in warm]
    left = [s for s in common if s in warm]
    if not left:
        return kept, None
    if not kept:
        return common, "every step is warm-up on some rank: all steps kept"
    return kept, (f"steady state: steps {kept[0]}-{kept[-1]}; step{'s' if len(left) > 1 else ''} "
                  f"{', '.join(map(str, left))} left out as warm-up")


PHASE_COLUMNS = ["rank", "phase", "depth", "cpu_ns", "compute_ns", "comm_ns", "overlap_ns", "wait_ns"]


def _phases_table(timelines, coll: pd.DataFrame, steady: list[int]) -> pd.DataFrame:
    """Per rank and range path inside the step (every depth), means per steady step: the CPU time of the top-level
    phases (step_phases.sql), the compute time of the kernels launched inside the range, and the NCCL kernels'
    time, the part of it beside compute kernels, and the longest hold (module docstring)."""
    if not steady:
        return pd.DataFrame(columns=PHASE_COLUMNS)
    n = len(steady)
    rows: dict[tuple, dict[str, float]] = {}

    def add(rank, path, column, value):
        rows.setdefault((rank, path), {})[column] = rows.get((rank, path), {}).get(column, 0.0) + value / n

    for rank, t in timelines.items():
        ph = t["phases"]
        for name, ns in ph[ph["step"].isin(steady)].groupby("name")["duration_ns"].sum().items():
            add(rank, str(name), "cpu_ns", float(ns))
        rg = t.get("range_gpu")
        if rg is not None and len(rg):
            rg = rg[rg["step"].isin(steady) & (rg["path"] != "")]
            for path, ns in rg.groupby("path")["compute_ns"].sum().items():
                add(rank, str(path), "compute_ns", float(ns))
    if len(coll):
        names, sums, held = _collective_prefix_sums(coll, steady)
        for (rank, prefix), v in sums.iterrows():
            add(rank, names[prefix], "comm_ns", float(v["duration_ns"]))
            add(rank, names[prefix], "overlap_ns", float(v["overlap_ns"]))
        for (rank, prefix), h in held.items():
            add(rank, names[prefix], "wait_ns", float(h))
    out = pd.DataFrame([(r, p, p.count(paths_mod.SEP) + 1, v.get("cpu_ns", np.nan), v.get("compute_ns", 0.0),
                         v.get("comm_ns", 0.0), v.get("overlap_ns", 0.0), v.get("wait_ns", 0.0))
                        for (r, p), v in rows.items()],
                       columns=PHASE_COLUMNS)
    return out.sort_values(["depth", "phase", "rank"], ignore_index=True)


def _collective_prefix_sums(coll: pd.DataFrame, steady: list[int]) -> tuple[list[str], pd.DataFrame, pd.Series]:
    """The steady collectives' time toward their innermost range and every enclosing one: (the range paths, per
    (rank, path's index) the NCCL time and its part beside compute, and the per-step longest hold summed over the
    steps). Grouped per (rank, step, innermost path) first, then spread over the enclosing paths, all on integer
    codes: 256 ranks make a million collectives, which as rows of strings took 230 MB more."""
    path = coll["path"].astype("category")
    names: dict[str, int] = {}
    up = [[names.setdefault(x, len(names)) for x in paths_mod.prefixes(str(p))] if str(p) else []
          for p in path.cat.categories]
    codes = path.cat.codes.to_numpy()
    keep = coll["step"].isin(steady).to_numpy() & (codes >= 0)
    inner = pd.DataFrame({"rank": coll["rank"].to_numpy()[keep], "step": coll["step"].to_numpy()[keep],
                          "path": codes[keep], "duration_ns": coll["duration_ns"].to_numpy()[keep],
                          "overlap_ns": coll["overlap_ns"].to_numpy()[keep], "wait_ns": coll["wait_ns"].to_numpy()[keep]})
    inner = inner.groupby(["rank", "step", "path"], sort=False).agg(
        duration_ns=("duration_ns", "sum"), overlap_ns=("overlap_ns", "sum"), wait_ns=("wait_ns", "max")).reset_index()
    lengths = np.array([len(x) for x in up], dtype=np.int64)
    flat = np.array([c for x in up for c in x], dtype=np.int64)  # every path's prefixes, one path after another
    per, first = lengths[inner["path"].to_numpy()], (np.cumsum(lengths) - lengths)[inner["path"].to_numpy()]
    rows = np.repeat(np.arange(len(inner)), per)
    nth = np.arange(len(rows)) - np.repeat(np.cumsum(per) - per, per)  # 0, 1, ... within each row's prefixes
    spread = inner.iloc[rows].reset_index(drop=True).assign(prefix=flat[first[rows] + nth])
    sums = spread.groupby(["rank", "prefix"])[["duration_ns", "overlap_ns"]].sum()
    held = spread.groupby(["rank", "step", "prefix"])["wait_ns"].max().groupby(level=["rank", "prefix"]).sum()
    return list(names), sums, held


def _summary(steps: pd.DataFrame, steady: list[int]) -> pd.DataFrame:
    cols = ["step_ns", "gpu_busy_ns", "compute_ns", "comm_ns", "overlap_ns", "wait_ns"]
    s = steps[steps["step"].isin(steady)]
    if s.empty:
        return pd.DataFrame(columns=["rank", "steps", *cols])
    out = s.groupby("rank")[cols].mean().reset_index()
    out.insert(1, "steps", s.groupby("rank")["step"].count().to_numpy())
    return out


def _find_straggler(report: RanksReport, timelines, job: JobCheck | None = None) -> None:
    if job is not None and job.several:  # waits between the ranks of different jobs mean nothing
        report.findings.append(_not_one_job(job))
        return
    partial = job is not None and job.partial
    if partial:
        report.findings += _missing_rank_wait(report, job, len(timelines))
    summary, coll, steady = report.summary, report.collectives, report.steady_steps
    matched = report.nccl_kernels - report.unmatched_kernels
    if len(timelines) >= 2 and report.unmatched_kernels and matched < MIN_MATCHED_SHARE * report.nccl_kernels:
        report.findings.append(_unmeasured(report))
        return
    if summary.empty or coll.empty or len(timelines) < 2:
        if len(timelines) >= 2:
            report.findings.append(_finding("info", "no straggler analysis: needs NVTX step ranges and NCCL kernels "
                                                    "on every rank", kind="no_analysis"))
        elif not report.findings:
            report.findings.append(_one_rank(report, job))
        return
    steps = report.steps
    in_steady = steps[steps["step"].isin(steady) & (steps["held_by"] >= 0) & (steps["held_by"] != steps["rank"])]
    # what each rank costs the others: the mean over the other ranks of their per-step wait that it caused
    caused = (in_steady.groupby("held_by")["wait_ns"].sum() / max(len(steady), 1) / max(len(timelines) - 1, 1))
    step_ns = float(summary["step_ns"].median())
    among = f" among the {len(timelines)} given ranks" if partial else ""
    if caused.empty:
        report.findings.append(_unmeasured(report) if report.unmatched_kernels else _finding(
            "info", f"no straggler{among}: no rank waits for another in collectives", kind="no_straggler"))
        return
    rank = int(caused.idxmax())
    per_step = float(caused.max())
    share = per_step / step_ns if step_ns else 0.0
    if per_step < MIN_STRAGGLER_NS or share < MIN_STRAGGLER_SHARE:
        report.findings.append(_finding(
            "info", f"no straggler{among}: the most any rank makes the others wait is {per_step / MS:.2f} ms per step "
                    f"(rank {rank}, {share:.1%} of a {step_ns / MS:.1f} ms step; a straggler is named from "
                    f"{MIN_STRAGGLER_SHARE:.0%} and {MIN_STRAGGLER_NS / MS:.0f} ms)"
                    f"{_extra_launches(report, timelines, rank, per_step)}",
            kind="no_straggler", rank_waited_for=rank, caused_wait_ns_per_step=per_step))
        return
    report.straggler = rank
    others = [r for r in summary["rank"] if r != rank]
    waits = {r: float(summary.loc[summary["rank"] == r, "wait_ns"].iloc[0]) for r in others}
    path, mine, theirs = _explaining_range(report.phases, rank, others, "compute_ns")
    source = "GPU"
    if path is None or mine - theirs < GPU_SHARE * per_step:
        path, mine, theirs = _explaining_range(report.phases, rank, others, "cpu_ns")
        source = "CPU"
    excess = mine - theirs
    more, slower = _work_split(_kernel_work(timelines, rank, others, path) if path and source == "GPU" else None,
                               excess)
    where = (f"in `{path}`: {mine / MS:.1f} ms of {source} time per step on rank {rank} vs {theirs / MS:.1f} ms on "
             f"the others (+{excess / MS:.1f} ms per step{'; its GPU idles meanwhile' if source == 'CPU' else ''})"
             f"{_work_words(more, slower)}"
             if path else "outside any NVTX range of the step")
    wait_text = ", ".join(f"rank {r} waits {w / MS:.1f} ms per step{_where_waits(report.phases, r)}"
                          for r, w in waits.items())
    report.findings.append(_finding(
        _severity(share),
        f"rank {rank} is the straggler: it loses the time {where}; the other ranks wait for it in NCCL collectives "
        f"({wait_text}; {share:.0%} of a {step_ns / MS:.1f} ms step)", kind="straggler", rank=rank, phase=path,
        source=source,
        excess_ns_per_step=excess, caused_wait_ns_per_step=per_step, waits_ns_per_step=waits,
        **_work_figures(more, slower),
        fix=(f"balance rank {rank}'s `{path}` (e.g. more data-loader workers, pinned memory, prefetch)"
             if source == "CPU" else f"give rank {rank}'s `{path}` the same work as the other ranks' "
                                     f"({_work_fix(more, slower)})")
        if path else f"look at rank {rank}'s CPU timeline between its collectives"))


def _extra_launches(report: RanksReport, timelines, rank: int, wait: float) -> str:
    """For an imbalance below a straggler's thresholds: where `rank` launches kernels the others do not, when those
    hold most of the wait it causes ('' otherwise: the same kernels running a little apart is noise here)."""
    if wait < MIN_STRAGGLER_NS:
        return ""
    others = [r for r in report.summary["rank"] if r != rank]
    path, mine, theirs = _explaining_range(report.phases, rank, others, "compute_ns")
    if path is None or mine - theirs < KEEP_SHARE * wait:
        return ""
    more, _slower = _work_split(_kernel_work(timelines, rank, others, path), mine - theirs)
    if more is None:
        return ""
    top = more.iloc[0]
    return (f"; rank {rank} runs {_more_of(top)} kernels per step than the others in `{path}` "
            f"(+{top['excess_ns'] / MS:.1f} ms)")


def _kernel_work(timelines, rank: int, others: list[int], path: str) -> pd.DataFrame | None:
    """Per kernel name launched in `path` (or a range inside it), per steady step: the straggler's kernels and
    their time (`kernels`, `ns`), the other ranks' medians (`their_kernels`, `their_ns`), and the differences
    (`more`, `excess_ns`), largest excess first. Each rank sums its kernels by name over the steps it holds steady
    itself (ranks/data.py; the job's steady steps where every rank has the same ones), so each rank's figures are
    per step of its own. None where a rank has no such step or no kernels by name."""
    inside = f"{path}{paths_mod.SEP}"
    per_rank = {}
    for r in (rank, *others):
        rk = timelines.get(r, {}).get("range_kernels")
        n = len(timelines.get(r, {}).get("range_kernel_steps", ()))
        if rk is None or not n:
            return None
        path_text = rk["path"].astype(str)
        rk = rk[(path_text == path) | path_text.str.startswith(inside)]
        per_rank[r] = rk.groupby(rk["name"].astype(str))[["kernels", "compute_ns"]].sum() / n
    names = sorted(set().union(*(g.index for g in per_rank.values())))
    if not names:
        return None
    count = pd.DataFrame({r: g["kernels"].reindex(names, fill_value=0.0) for r, g in per_rank.items()})
    ns = pd.DataFrame({r: g["compute_ns"].reindex(names, fill_value=0.0) for r, g in per_rank.items()})
    out = pd.DataFrame({"kernels": count[rank], "ns": ns[rank], "their_kernels": count[others].median(axis=1),
                        "their_ns": ns[others].median(axis=1)})
    out["more"] = out["kernels"] - out["their_kernels"]
    out["excess_ns"] = out["ns"] - out["their_ns"]
    return out.sort_values("excess_ns", ascending=False)


MORE = 0.5  # a kernel the straggler runs at least half a launch more of per step, on average, than the others


def _work_split(work: pd.DataFrame | None, excess: float) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """What the range's excess is made of: (the kernels the straggler launches more of, None) where those hold at
    least half of it, else (None, the kernels it launches as often, taking longer) where those do, else (None,
    None); each with a positive excess, largest first."""
    if work is None or excess <= 0:
        return None, None
    gained = work[work["excess_ns"] > 0]
    more = gained[gained["more"] >= MORE]
    slower = gained[gained["more"].abs() < MORE]
    if len(more) and more["excess_ns"].sum() >= 0.5 * excess:
        return more, None
    if len(slower) and slower["excess_ns"].sum() >= 0.5 * excess:
        return None, slower
    return None, None


def _count(n: float) -> str:
    return f"{round(n):,}" if abs(n - round(n)) < 0.05 else f"{n:,.1f}"


def _more_of(top: pd.Series) -> str:
    """'73 more `sgemm…`': a kernel row of _kernel_work, as the verdict, the fix and an imbalance's info name it."""
    return f"{_count(top['more'])} more `{sentence_name(str(top.name))}`"


def _work_words(more: pd.DataFrame | None, slower: pd.DataFrame | None) -> str:
    """', where it runs 73 more `sgemm…` kernels per step than they do (+24.8 ms)' or ', in the same kernels as
    theirs taking longer: `…` +5.1 ms per step (1 a step)'; '' where neither holds most of the excess."""
    if more is not None:
        top, rest = more.iloc[0], more.iloc[1:]
        tail = (f", and {_count(rest['more'].sum())} more of {len(rest)} other kernel{'s' if len(rest) > 1 else ''} "
                f"(+{rest['excess_ns'].sum() / MS:.1f} ms)" if len(rest) else "")
        return f", where it runs {_more_of(top)} kernels per step than they do (+{top['excess_ns'] / MS:.1f} ms){tail}"
    if slower is not None:
        top, rest = slower.iloc[0], slower.iloc[1:]
        tail = (f" and {len(rest)} other kernel{'s' if len(rest) > 1 else ''} +{rest['excess_ns'].sum() / MS:.1f} ms"
                if len(rest) else "")
        return (f", in the same kernels as theirs taking longer: `{sentence_name(str(top.name))}` "
                f"+{top['excess_ns'] / MS:.1f} ms per step ({_count(top['kernels'])} a step){tail}")
    return ""


def _work_figures(more: pd.DataFrame | None, slower: pd.DataFrame | None) -> dict:
    """The finding's figures of what the excess is made of: the kernel that holds most of it, how many more of it the
    straggler launches per step (0: as many, taking longer), and its time beyond the others' (ns per step)."""
    kind = more if more is not None else slower
    if kind is None:
        return {}
    top = kind.iloc[0]
    return {"kernel": str(top.name), "more_kernels_per_step": float(top["more"]) if more is not None else 0.0,
            "kernel_excess_ns_per_step": float(top["excess_ns"])}


def _work_fix(more: pd.DataFrame | None, slower: pd.DataFrame | None) -> str:
    if more is not None:
        return f"extra computation on that rank: it launches {_more_of(more.iloc[0])} per step there"
    if slower is not None:
        return "data or shapes: the same kernels take longer there"
    return "data, shapes, extra computation on that rank"


def _explaining_range(phases: pd.DataFrame, rank: int, others: list[int], column: str):
    """(path, rank's time, others' median time) of the innermost range that explains `rank`'s excess in `column`:
    from the top level down, the range with the largest excess over the other ranks' median, descending into a child
    while it keeps KEEP_SHARE of its parent's excess. (None, 0, 0) when no range exceeds the others'."""
    if phases.empty or column not in phases:
        return None, 0.0, 0.0
    p = phases.pivot_table(index="phase", columns="rank", values=column, aggfunc="sum").fillna(0.0)
    theirs_cols = [r for r in others if r in p.columns]
    if rank not in p.columns or not theirs_cols:
        return None, 0.0, 0.0
    theirs = p[theirs_cols].median(axis=1)
    excess = p[rank] - theirs
    depth = pd.Series([str(i).count(paths_mod.SEP) for i in p.index], index=p.index)
    top = excess[depth == 0]
    if top.empty or top.max() <= 0:
        return None, 0.0, 0.0
    best = top.idxmax()
    while True:
        kids = excess[[str(i).startswith(f"{best}{paths_mod.SEP}") and i.count(paths_mod.SEP) == best.count(
            paths_mod.SEP) + 1 for i in p.index]]
        if kids.empty or kids.max() < KEEP_SHARE * excess[best]:
            break
        best = kids.idxmax()
    return best, float(p.loc[best, rank]), float(theirs[best])


def _where_waits(phases: pd.DataFrame, rank: int) -> str:
    """' in `backward`': the top-level range where `rank` is held longest."""
    if phases.empty:
        return ""
    mine = phases[(phases["rank"] == rank) & (phases["depth"] == 1)]
    if mine.empty or mine["wait_ns"].sum() <= 0:
        return ""
    top = mine.loc[mine["wait_ns"].idxmax()]
    return f" in `{top['phase']}`"


def _severity(share: float) -> str:
    return "warning" if share < 0.2 else "error"


def _not_one_job(job: JobCheck) -> dict:
    """Files of several jobs: the verdict says so instead of naming a straggler; the fix, which files go together."""
    def names(group):
        more = f" and {len(group) - 3} more" if len(group) > 3 else ""
        return ", ".join(Path(p).name for p in group[:3]) + more

    fix = ("run `nsys-analytics ranks` on each launch's files apart: " + "; ".join(names(g) for g in job.groups)
           if job.groups else "give `nsys-analytics ranks` the rank files of one run")
    return _finding("warning", f"{job.several}: not one job; the waits between them mean nothing, so no straggler is "
                               "named", kind="not_one_job", fix=fix)


def _one_rank(report: RanksReport, job: JobCheck | None) -> dict:
    """Why one rank's file names no straggler: a straggler is found by comparing ranks."""
    if report.nccl_kernels:
        world = f" of {job.world_size}" if job is not None and job.world_size else ""
        return _finding("info", f"one rank{world} given, so no straggler analysis (it compares the ranks' steps); "
                                "this rank's NCCL time includes any wait for the others", kind="one_rank",
                        fix="give every rank's file: their folder, or a glob such as 'run/*.sqlite'")
    return _finding("info", "one process and no NCCL kernels: not a distributed job, so no straggler analysis",
                    kind="one_rank", fix="for what holds one process's GPU back, run `nsys-analytics diagnose`")


def _unmeasured(report: RanksReport) -> dict:
    """Too few collectives matched across the ranks to measure any wait."""
    matched = report.nccl_kernels - report.unmatched_kernels
    return _finding("warning", f"the waits could not be measured: only {matched} of {report.nccl_kernels} NCCL "
                               "kernels have a counterpart on every rank (the ranks ran different collectives: files "
                               "of different jobs, or of different spans of one?); no straggler can be named",
                    kind="waits_unmeasured", fix="give the rank files of one run, captured over the same steps")


def _missing_rank_wait(report: RanksReport, job: JobCheck, given: int) -> list[dict]:
    """A partial set: how long the given ranks wait in collectives for the ranks not given. After the last given
    rank arrives at a collective, its kernel runs until every rank, given or not, has arrived; what it takes beyond
    the shortest kernel of that name (the transfer alone) is the wait for a missing rank. Per step the longest such
    hold, as the waits between given ranks (module docstring). A finding where that is a straggler's wait."""
    coll, steady, summary = report.collectives, report.steady_steps, report.summary
    if coll.empty or not steady or summary.empty:
        return []
    last = coll[coll["rank"] == coll["last_rank"]]
    after = last["end_ns"] - last["arrival_last_ns"]
    hold = (after - after.groupby(last["name"], observed=True).transform("min")).clip(lower=0)
    held = pd.DataFrame({"name": last["name"], "ordinal": last["ordinal"], "hold": hold})
    rows = coll.loc[coll["step"].isin(steady), ["rank", "name", "ordinal", "step"]].merge(held, on=["name", "ordinal"])
    waits = (rows.groupby(["rank", "step"])["hold"].max().groupby(level="rank").sum() / len(steady)).to_dict()
    wait = float(np.mean(list(waits.values()))) if waits else 0.0
    step_ns = float(summary["step_ns"].median())
    share = wait / step_ns if step_ns else 0.0
    if wait < MIN_STRAGGLER_NS or share < MIN_STRAGGLER_SHARE:
        return []
    missing, world = job.missing, job.world_size
    who = (f"rank {missing[0]}, which was not given (WORLD_SIZE is {world})" if len(missing) == 1 else
           f"ranks {', '.join(map(str, missing))}, which were not given (WORLD_SIZE is {world})" if missing else
           f"a rank not given (WORLD_SIZE is {world}, {given} given)")
    subject = "the given ranks wait" if given > 1 else f"rank {int(summary['rank'].iloc[0])} waits"
    comm = float(summary["comm_ns"].mean())
    files = (f"the file of rank {missing[0]}" if len(missing) == 1 else
             f"the files of ranks {', '.join(map(str, missing))}" if missing else "the missing ranks' files")
    return [_finding(
        _severity(share), f"{subject} about {wait / MS:.1f} ms per step in NCCL collectives for {who}: {share:.0%} "
                          f"of a {step_ns / MS:.1f} ms step (NCCL kernels: {comm / MS:.1f} ms per step); the "
                          "straggler is not among the given ranks", kind="missing_rank", caused_wait_ns_per_step=wait,
        waits_ns_per_step={int(r): float(w) for r, w in waits.items()}, missing_ranks=missing,
        fix=f"add {files} to name the straggler and where it loses the time")]


def _finding(severity: str, message: str, **figures) -> dict:
    return {"severity": severity, "rule": "ranks", "message": message, **figures}


def _empty_collectives() -> pd.DataFrame:
    return pd.DataFrame(columns=["rank", "name", "op", "ordinal", "start_ns", "end_ns", "stream", "duration_ns",
                                 "overlap_ns", "arrival_last_ns", "wait_ns", "last_rank", "step", "path"])
