"""The `ranks` report: per rank and step, where the time goes, how long each rank waits in collectives for the
others, and which rank is the straggler and why. No I/O: per-rank frames (ranks/data.py) in, a `RanksReport` out.

Waiting (docs/ranks.md): collective instances are matched across ranks by order — the k-th NCCL kernel of a given
name on one rank is the k-th of that name on every other. A collective cannot finish on any rank before the last
rank has arrived, so with s_r the start of rank r's kernel, d_r its duration and A = max_r s_r the latest arrival,
rank r waits w_r = min(max(A - s_r, 0), d_r) of its kernel time for the others. The rank that arrived last
(A = s_r) *causes* the waits of the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

MS = 1e6
MIN_STRAGGLER_NS = 1_000_000  # a straggler costs the others at least 1 ms per step ...
MIN_STRAGGLER_SHARE = 0.10    # ... and at least 10 % of a step (below: an imbalance, reported as info)


@dataclass
class RanksReport:
    summary: pd.DataFrame      # per rank, means over the steady steps
    steps: pd.DataFrame        # per rank and step
    phases: pd.DataFrame       # per rank and phase (NVTX range inside the step): mean per steady step
    collectives: pd.DataFrame  # per matched collective instance and rank: start, duration, wait, last rank
    findings: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    straggler: int | None = None
    steady_steps: list[int] = field(default_factory=list)


class CollectiveMatcher:
    """Matches NCCL kernels across ranks, fed one rank at a time (a rank's frame can be let go once added): only
    what the match needs is kept, as numpy arrays (name code, ordinal, start, end, stream), about 30 bytes per
    kernel, so that 64 ranks of 11 k NCCL kernels each stay a few tens of MB in the parent."""

    def __init__(self):
        self.names: dict[str, int] = {}  # kernel name -> code, over all ranks
        self.ops: dict[str, str] = {}     # kernel name -> op
        self.parts: list[dict[str, np.ndarray]] = []
        self.ranks: set[int] = set()

    def add(self, rank: int, ops: pd.DataFrame | None) -> None:
        if ops is None or ops.empty:
            return
        self.ranks.add(rank)
        o = ops.sort_values(["start_ns", "stream"], kind="stable")
        names = o["name"].astype("category")  # each distinct name is coded once
        first = o.drop_duplicates("name")
        op_of = dict(zip(first["name"].astype(str), first["op"].astype(str)))
        codes_of = np.array([self._code(str(c), op_of.get(str(c), "")) for c in names.cat.categories], dtype=np.int32)
        codes = codes_of[names.cat.codes.to_numpy()]
        ordinal = pd.Series(codes).groupby(codes).cumcount().to_numpy(dtype=np.int64)
        self.parts.append({"rank": np.full(len(codes), rank, dtype=np.int64), "code": codes, "ordinal": ordinal,
                           "start_ns": o["start_ns"].to_numpy(dtype=np.int64),
                           "end_ns": o["end_ns"].to_numpy(dtype=np.int64),
                           "stream": o["stream"].to_numpy(dtype=np.int64)})

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
        if len(self.parts) < 2:
            return _empty_collectives(), notes
        a = {k: np.concatenate([p[k] for p in self.parts]) for k in self.parts[0]}
        self.parts = []
        ranks = len(self.ranks)
        key = a["code"].astype(np.int64) * (int(a["ordinal"].max()) + 1) + a["ordinal"]
        inverse = np.unique(key, return_inverse=True)[1]
        del key
        present = np.bincount(inverse)[inverse]  # one kernel per rank and key (ordinals are per rank)
        keep = present == ranks
        unmatched = int((~keep).sum())
        del present
        if unmatched:
            notes.append(f"{unmatched} NCCL kernels have no counterpart on every rank (different counts per rank); "
                         "they are left out of the waits")
            a = {k: v[keep] for k, v in a.items()}
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
        a = {k: v[order] for k, v in a.items()}
        inverse = inverse[order]
        del order
        arrival = last_start[inverse]
        duration = a["end_ns"] - a["start_ns"]
        names = list(self.names)
        op_codes = pd.Categorical([self.ops[n] for n in names])
        out = pd.DataFrame({
            "rank": a["rank"], "name": pd.Categorical.from_codes(a["code"], categories=names),
            "op": pd.Categorical.from_codes(op_codes.codes[a["code"]], categories=op_codes.categories),
            "ordinal": a["ordinal"], "start_ns": a["start_ns"], "end_ns": a["end_ns"], "stream": a["stream"],
            "duration_ns": duration, "arrival_last_ns": arrival,
            "wait_ns": np.minimum(np.maximum(arrival - a["start_ns"], 0), duration),
            "last_rank": last_rank[inverse]}, copy=False)
        return out, notes


def match_collectives(nccl: dict[int, pd.DataFrame]) -> tuple[pd.DataFrame, list[str]]:
    """One row per (collective instance, rank): instance key, start, duration, wait (ns), last arriving rank."""
    matcher = CollectiveMatcher()
    for rank, ops in nccl.items():
        matcher.add(rank, ops)
    return matcher.result()


def build(timelines) -> RanksReport:
    """The report from each rank's step_timeline(): a dict {rank: timeline} or an iterable of (rank, timeline)
    pairs, folded in one at a time (each rank's NCCL kernels go into the matcher and are let go)."""
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
    phases = _phases_table(kept, steady)
    summary = _summary(steps, steady)
    report = RanksReport(summary, steps, phases, coll, notes=notes, steady_steps=steady)
    _find_straggler(report, kept)
    return report


def _steps_table(timelines, coll: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for rank, t in timelines.items():
        s = t["steps"].merge(t["gpu"], on="step", how="left")
        if s.empty:
            continue
        mine = coll[coll["rank"] == rank]
        idx = np.searchsorted(s["start_ns"].to_numpy(), mine["start_ns"].to_numpy(), side="right") - 1
        inside = (idx >= 0) & (mine["start_ns"].to_numpy() < s["gpu_end_ns"].to_numpy()[np.clip(idx, 0, None)])
        waits = pd.Series(mine["wait_ns"].to_numpy()[inside]).groupby(idx[inside]).sum()
        s = s.assign(rank=rank, step_ns=s["end_ns"] - s["start_ns"],
                     wait_ns=[int(waits.get(i, 0)) for i in range(len(s))])
        rows.append(s)
    if not rows:
        return pd.DataFrame(columns=["rank", "step", "name", "step_ns", "gpu_busy_ns", "compute_ns", "comm_ns",
                                     "overlap_ns", "wait_ns", "start_ns", "end_ns", "warm"])
    out = pd.concat(rows, ignore_index=True)
    for c in ("gpu_busy_ns", "compute_ns", "comm_ns", "overlap_ns"):
        out[c] = out[c].fillna(0).astype("int64")
    return out[["rank", "step", "name", "step_ns", "gpu_busy_ns", "compute_ns", "comm_ns", "overlap_ns", "wait_ns",
                "start_ns", "end_ns", "warm"]]


def _steady_steps(steps: pd.DataFrame) -> tuple[list[int], str | None]:
    """Steps present on every rank and warm-up on none (each rank's steps were flagged by nvtx/steady.py's rule:
    inside a `warmup` range, or the first step of three or more)."""
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


def _phases_table(timelines, steady: list[int]) -> pd.DataFrame:
    rows = []
    for rank, t in timelines.items():
        ph = t["phases"]
        if ph.empty or not steady:
            continue
        ph = ph[ph["step"].isin(steady)]
        means = ph.groupby("name")["duration_ns"].sum() / len(steady)
        for name, ns in means.items():
            rows.append((rank, name, float(ns)))
    return pd.DataFrame(rows, columns=["rank", "phase", "mean_ns"])


def _summary(steps: pd.DataFrame, steady: list[int]) -> pd.DataFrame:
    cols = ["step_ns", "gpu_busy_ns", "compute_ns", "comm_ns", "overlap_ns", "wait_ns"]
    s = steps[steps["step"].isin(steady)]
    if s.empty:
        return pd.DataFrame(columns=["rank", "steps", *cols])
    out = s.groupby("rank")[cols].mean().reset_index()
    out.insert(1, "steps", s.groupby("rank")["step"].count().to_numpy())
    return out


def _find_straggler(report: RanksReport, timelines) -> None:
    summary, coll, steady = report.summary, report.collectives, report.steady_steps
    if summary.empty or coll.empty or len(timelines) < 2:
        if len(timelines) >= 2:
            report.findings.append(_finding("info", "no straggler analysis: needs NVTX step ranges and NCCL kernels "
                                                    "on every rank"))
        return
    steps = report.steps
    in_steady = steps[steps["step"].isin(steady)]
    lo, hi = in_steady["start_ns"].min(), in_steady["end_ns"].max()
    start = coll["start_ns"].to_numpy()
    inside = (start >= lo) & (start < hi + 10**12) if len(in_steady) else np.ones(len(coll), dtype=bool)
    waited = inside & (coll["rank"].to_numpy() != coll["last_rank"].to_numpy())
    caused = (pd.Series(coll["wait_ns"].to_numpy()[waited]).groupby(coll["last_rank"].to_numpy()[waited]).sum()
              / max(len(steady), 1))
    step_ns = float(summary["step_ns"].median())
    if caused.empty:
        report.findings.append(_finding("info", "no straggler: no rank waits for another in collectives"))
        return
    rank = int(caused.idxmax())
    per_step = float(caused.max())
    share = per_step / step_ns if step_ns else 0.0
    if per_step < MIN_STRAGGLER_NS or share < MIN_STRAGGLER_SHARE:
        report.findings.append(_finding(
            "info", f"no straggler: the most any rank makes the others wait is {per_step / MS:.2f} ms per step "
                    f"(rank {rank}, {share:.1%} of a {step_ns / MS:.1f} ms step; a straggler is named from "
                    f"{MIN_STRAGGLER_SHARE:.0%} and {MIN_STRAGGLER_NS / MS:.0f} ms)", rank_waited_for=rank,
            caused_wait_ns_per_step=per_step))
        return
    report.straggler = rank
    others = [r for r in summary["rank"] if r != rank]
    waits = {r: float(summary.loc[summary["rank"] == r, "wait_ns"].iloc[0]) for r in others}
    phase, excess, mine, theirs = _lost_phase(report.phases, rank, others)
    where = (f"in `{phase}`: {mine / MS:.1f} ms per step on rank {rank} vs {theirs / MS:.1f} ms on the others "
             f"(+{excess / MS:.1f} ms per step)") if phase else "outside any NVTX range of the step"
    wait_text = ", ".join(f"rank {r} waits {w / MS:.1f} ms per step" for r, w in waits.items())
    last_share = float((coll["last_rank"].to_numpy()[inside & (coll["rank"].to_numpy() == rank)] == rank).mean())
    report.findings.append(_finding(
        "warning" if share < 0.2 else "error",
        f"rank {rank} is the straggler: it loses the time {where}; the others wait for it in NCCL collectives "
        f"({wait_text}; {share:.0%} of a {step_ns / MS:.1f} ms step); it arrives last at {last_share:.0%} of the "
        f"collectives", rank=rank, phase=phase, excess_ns_per_step=excess, caused_wait_ns_per_step=per_step,
        fix=f"balance rank {rank}'s `{phase}` (e.g. more data-loader workers, pinned memory, prefetch)"
        if phase else f"look at rank {rank}'s CPU timeline between its collectives"))


def _lost_phase(phases: pd.DataFrame, rank: int, others: list[int]):
    """The phase whose mean time per step exceeds the other ranks' (median) the most on `rank`."""
    if phases.empty:
        return None, 0.0, 0.0, 0.0
    p = phases.pivot_table(index="phase", columns="rank", values="mean_ns", aggfunc="sum").fillna(0.0)
    if rank not in p.columns or not [r for r in others if r in p.columns]:
        return None, 0.0, 0.0, 0.0
    theirs = p[[r for r in others if r in p.columns]].median(axis=1)
    excess = (p[rank] - theirs).sort_values(ascending=False)
    if excess.empty or excess.iloc[0] <= 0:
        return None, 0.0, 0.0, 0.0
    name = excess.index[0]
    return name, float(excess.iloc[0]), float(p.loc[name, rank]), float(theirs[name])


def _finding(severity: str, message: str, **figures) -> dict:
    return {"severity": severity, "rule": "ranks", "message": message, **figures}


def _empty_collectives() -> pd.DataFrame:
    return pd.DataFrame(columns=["rank", "name", "op", "ordinal", "start_ns", "end_ns", "stream", "duration_ns",
                                 "arrival_last_ns", "wait_ns", "last_rank"])
