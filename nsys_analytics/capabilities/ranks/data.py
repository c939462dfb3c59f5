"""Per-rank queries -> small frames. Each function takes a `Member`, opens its file where it runs (a pool process
or a Dask worker), and returns only aggregates: a distribution of kernel durations, the NCCL operations, the step
windows and their GPU time. Timestamps are put on the set's common clock (`Member.clock_offset_ns`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...data import sql_files
from ..nvtx import steady
from ...core.filters import KernelFilter
from . import intervals, paths

STEP_COLUMNS = ["step", "name", "start_ns", "end_ns", "gpu_end_ns", "warm"]
# Warm-up of a distributed job (allocator, autotuning, NCCL's set-up): any step inside a `warmup` range, by
# nvtx/steady.py's rule (the one breakdown, report and diagnose follow); in a rank without such a range, the first
# step too, when there are three or more.
WARMUP_STEPS = 1
BATCH_VECTORS = 512  # DuckDB vectors (2,048 rows each) per batch of a streamed query: about a million rows


def kernel_durations(member, kernel_filter: KernelFilter = KernelFilter(), by_launch: bool = False,
                     graphs: bool = False) -> pd.DataFrame:
    """(name, grid_xyz, block_xyz, duration_ns, instances): the kernel durations of one rank, the input of exact
    merges (grid and block are None unless `by_launch`; `graphs`: whole CUDA graph executions too)."""
    with member.open() as p:
        if not p.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
            return pd.DataFrame({"name": pd.Series(dtype=object), "grid_xyz": pd.Series(dtype=object),
                                 "block_xyz": pd.Series(dtype=object), "duration_ns": pd.Series(dtype="int64"),
                                 "instances": pd.Series(dtype="int64")})
        df = _run(p, "kernel_durations", {**kernel_filter.params(), "by_launch": by_launch, "graphs": graphs})
    for c in ("name", "grid_xyz", "block_xyz"):  # names repeat: categories cross the wire once
        df[c] = df[c].astype("category")
    return df


def nccl_ops(member) -> pd.DataFrame:
    """The rank's NCCL kernels (nccl_ops.sql) on the common clock, with a `rank` column."""
    with member.open() as p:
        df = _nccl(p)
    return _on_common_clock(df, member, ("start_ns", "end_ns"))


def nccl_distribution(member, by: str) -> tuple[pd.DataFrame, int, int, bool]:
    """The rank's NCCL kernels as a distribution: (key = the `by` column, '(none)' where NULL; duration_ns;
    instances), with the kernels' count, how many have a known message size, and whether any was launched inside
    an NCCL range. Folded where the rank is read, so that only this crosses to the parent, and without the overlap
    with compute, which it does not report (a scan of every kernel)."""
    with member.open() as p:
        ops = _nccl(p, overlap=False)
    dist = (ops.assign(key=ops[by].astype(object).fillna("(none)"))
            .groupby(["key", "duration_ns"], as_index=False).size().rename(columns={"size": "instances"}))
    return dist, len(ops), int(ops["bytes"].notna().sum()), bool(ops["nvtx_range"].notna().any())


def _nccl(p, kernels: dict | None = None, overlap: bool = True) -> pd.DataFrame:
    """nccl_ops.sql, or no rows at once where the profile has no NCCL kernel name. `kernels`: every kernel of the
    profile as _kernels() reads them (then the compute kernels beside each NCCL kernel come from there, not from
    another scan of the table). Not `overlap`: overlap_ns is 0 (not computed)."""
    if not p.has_table("CUPTI_ACTIVITY_KIND_KERNEL") or not p.sql(
            "SELECT count(*) FROM compat.CUPTI_ACTIVITY_KIND_KERNEL WHERE demangledName IN "
            "(SELECT id FROM strings WHERE value LIKE 'nccl%')").rows[0][0]:
        return _empty_nccl()
    ops = _run(p, "nccl_ops", {})
    beside = _overlap(p, ops, kernels) if overlap else np.zeros(len(ops), dtype=np.int64)
    ops["bytes"] = ops["bytes"].astype("Int64")  # NULL where the size is unknown (no payload in the export)
    return ops.assign(overlap_ns=beside)[[*ops.columns[:-1], "overlap_ns", "name"]]


def _overlap(p, ops: pd.DataFrame, kernels: dict | None) -> np.ndarray:
    """The time each NCCL kernel of `ops` ran beside compute kernels of its GPU: the compute kernels stream past one
    Coverage per device, whose windows are that device's NCCL kernels (from `kernels`, else a scan of the table)."""
    query = ('SELECT deviceId AS device, start AS start_ns, "end" AS end_ns FROM compat.CUPTI_ACTIVITY_KIND_KERNEL '
             "WHERE demangledName NOT IN (SELECT id FROM compat.StringIds WHERE value LIKE 'nccl%') "
             "ORDER BY device, start_ns")
    device = ops["device"].to_numpy()
    coverage = {d: intervals.Coverage(ops["start_ns"].to_numpy(dtype="int64")[device == d],
                                      ops["end_ns"].to_numpy(dtype="int64")[device == d]) for d in np.unique(device)}
    if kernels is not None:
        compute = ~kernels["is_comm"]
        batches = [{"device": kernels["device"][compute], "start_ns": kernels["start_ns"][compute],
                    "end_ns": kernels["end_ns"][compute]}]
    else:
        batches = ({c: b[c].to_numpy() for c in ("device", "start_ns", "end_ns")} for b in _batches(p, query))
    for batch in batches:
        on = batch["device"]
        for d, cover in coverage.items():
            mine = on == d
            if mine.any():
                cover.add(np.asarray(batch["start_ns"], dtype="int64")[mine],
                          np.asarray(batch["end_ns"], dtype="int64")[mine])
    overlap = np.zeros(len(ops), dtype=np.int64)
    for d, cover in coverage.items():
        overlap[device == d] = cover.result()
    return overlap


def step_timeline(member) -> dict[str, pd.DataFrame]:
    """Steps, their phases, their GPU time, and the NCCL operations of one rank (input of the `ranks` report)."""
    with member.open() as p:
        has_nvtx = p.has_table("NVTX_EVENTS")
        steps = _run(p, "step_ranges", {}) if has_nvtx else pd.DataFrame(columns=["step", "name", "start_ns",
                                                                                   "end_ns", "pid"])
        kernels = _kernels(p)
        ops = _nccl(p, kernels)
        detected = steps.empty and len(ops) > 0
        if detected:
            steps = repetition_steps(ops)  # no NVTX step ranges: the period of the NCCL sequence
        steps = _gpu_windows(p, steps)
        steps["warm"] = steady.warm_flags(p, list(steps["start_ns"]), WARMUP_STEPS if len(steps) >= 3 else 0,
                                          None if detected else list(steps["name"]), unless_marked=True)
        p.con.register("steps", steps)
        phases = _run(p, "step_phases", {}) if len(steps) else pd.DataFrame(
            columns=["step", "name", "duration_ns", "instances"])
        gpu = _step_gpu_time(p, steps, kernels)
        steady_steps = _steady_here(steps)
        range_gpu, range_kernels, ops = _placement(p, steps, has_nvtx, ops, kernels, steady_steps)
    steps = _on_common_clock(steps[STEP_COLUMNS].copy(), member, ("start_ns", "end_ns", "gpu_end_ns"))
    return {"steps": steps, "phases": phases, "gpu": gpu, "range_gpu": range_gpu, "range_kernels": range_kernels,
            "range_kernel_steps": steady_steps,
            "nccl": _slim(_on_common_clock(ops, member, ("start_ns", "end_ns")))}


def _steady_here(steps: pd.DataFrame) -> tuple[int, ...]:
    """This rank's steps that are not warm-up: those its kernels by name are summed over (range_kernels)."""
    return tuple(sorted(int(s) for s in steps.loc[~steps["warm"].astype(bool), "step"]))


def _kernels(p) -> dict[str, np.ndarray] | None:
    """Every kernel of the profile with its launch (kernel_launches.sql) as numpy arrays in start order, read once for
    the NCCL kernels' overlap, the steps' GPU time and the placement in ranges; None without a kernel table."""
    if not p.has_table("CUPTI_ACTIVITY_KIND_KERNEL"):
        return None
    query = sql_files.read("ranks", "kernel_launches").text
    p.prepare(query)
    k = p.con.execute(query).fetchnumpy()
    launch = k["launch_ns"]
    out = {"traced": ~np.ma.getmaskarray(launch),
           "launch_ns": np.asarray(np.ma.filled(launch, -1) if np.ma.isMaskedArray(launch) else launch, dtype=np.int64)}
    for c in ("start_ns", "end_ns", "device", "stream", "pid", "name_id"):
        out[c] = np.asarray(k[c], dtype=np.int64)
    out["is_comm"] = np.asarray(k["is_comm"], dtype=bool)
    order = np.argsort(out["start_ns"], kind="stable")
    return {c: v[order] for c, v in out.items()}


def _placement(p, steps: pd.DataFrame, has_nvtx: bool, ops: pd.DataFrame, k: dict | None,
               steady_steps: tuple[int, ...]):
    """Where each kernel was launched (ranks/paths.py): the compute time per step and range path, rolled up to every
    enclosing range ('' = the whole step); the same per innermost path and kernel name over `steady_steps`
    (those that are not warm-up), not rolled up (what the straggler's range holds beyond the others', kernel by
    kernel); and the NCCL operations with the step and path of their launch. The kernels stay numpy arrays (a rank
    may have millions); paths are codes into one list of names."""
    range_cols = ["step", "path", "compute_ns", "kernels"]
    ops = ops.reset_index(drop=True).assign(step=-1, path="")
    if k is None:
        return pd.DataFrame(columns=range_cols), _no_range_kernels(), ops
    traced, launch_all, kpid = k["traced"], k["launch_ns"], k["pid"]
    step = np.full(len(kpid), -1, dtype=np.int64)
    code = np.zeros(len(kpid), dtype=np.int64)  # into names; 0: no range below the step
    names: list[str] = [""]
    ranges = _run(p, "range_spans", {}) if has_nvtx else pd.DataFrame(columns=["start_ns", "end_ns", "name", "pid"])
    for pid, st in steps.groupby("pid"):
        st = st.sort_values("start_ns").reset_index(drop=True)
        mine = np.flatnonzero((kpid == pid) & traced)
        launch = launch_all[mine]
        lo, hi = st["start_ns"].to_numpy(dtype=np.int64), st["end_ns"].to_numpy(dtype=np.int64)
        at = np.searchsorted(lo, launch, side="right") - 1
        in_step = (at >= 0) & (launch <= hi[np.clip(at, 0, None)])
        r = ranges[ranges["pid"] == pid]
        s, e = r["start_ns"].to_numpy(dtype=np.int64), r["end_ns"].to_numpy(dtype=np.int64)
        parent = paths.parents(s, e)
        range_step, range_path = paths.step_paths(s, e, r["name"].to_numpy(), parent, st)
        index = {name: i for i, name in enumerate(names)}
        range_code = np.array([index.setdefault(x, len(index)) for x in range_path] + [0], dtype=np.int64)
        names = list(index)
        inner = paths.innermost(s, e, parent, launch)
        placed = in_step & (inner >= 0) & (np.append(range_step, -2)[inner] == at)
        step[mine] = np.where(in_step, st["step"].to_numpy(dtype=np.int64)[np.clip(at, 0, None)], -1)
        code[mine] = np.where(placed, range_code[inner], 0)
    is_comm, start, end = k["is_comm"], k["start_ns"], k["end_ns"]
    keep = ~is_comm & (step >= 0)
    inner = (pd.DataFrame({"step": step[keep], "code": code[keep], "compute_ns": end[keep] - start[keep]})
             .groupby(["step", "code"], as_index=False).agg(compute_ns=("compute_ns", "sum"),
                                                            kernels=("compute_ns", "size")))
    # each innermost path counts toward itself and every enclosing range ('' = the whole step)
    up = pd.DataFrame([(c, key) for c in inner["code"].unique() for key in ("", *paths.prefixes(names[c]))],
                      columns=["code", "path"])
    range_gpu = (inner.merge(up, on="code").groupby(["step", "path"], as_index=False)[["compute_ns", "kernels"]]
                 .sum())[range_cols]
    mine = np.isin(step, np.array(steady_steps, dtype=np.int64)) & keep
    range_kernels = _range_kernels(p, code[mine], k["name_id"][mine], end[mine] - start[mine], names)
    if len(ops):
        comm = pd.DataFrame({"start_ns": start[is_comm], "end_ns": end[is_comm],
                             "stream": k["stream"][is_comm], "device": k["device"][is_comm],
                             "step": step[is_comm], "code": code[is_comm]}).drop_duplicates(
            ["start_ns", "end_ns", "stream", "device"])
        where = ops[["start_ns", "end_ns", "stream", "device"]].merge(comm, how="left")
        ops["step"] = where["step"].fillna(-1).astype("int64").to_numpy()
        ops["path"] = np.array(names, dtype=object)[where["code"].fillna(0).astype("int64").to_numpy()]
    return range_gpu, range_kernels, ops


def _range_kernels(p, code, name_id, duration, paths_of) -> pd.DataFrame:
    """Compute kernels per innermost range path and kernel name: their count and time, summed over the steps given
    (summed here, not per step: the parent holds every rank's). Names and paths as categories; a few dozen to a few
    hundred rows a rank, whatever its kernels and steps."""
    if not len(code):
        return _no_range_kernels()
    names, name_code = np.unique(name_id, return_inverse=True)
    pairs, at = np.unique(code * len(names) + name_code, return_inverse=True)  # one key per (path, name)
    ids = ", ".join(str(int(i)) for i in names)
    text = dict(p.sql(f"SELECT id, value FROM strings WHERE id IN ({ids})").rows)
    return pd.DataFrame({
        "path": pd.Categorical(np.array(paths_of, dtype=object)[pairs // len(names)]),
        "name": pd.Categorical([text.get(int(i), f"[string {int(i)} missing]") for i in names[pairs % len(names)]]),
        "compute_ns": np.bincount(at, weights=duration).astype(np.int64),
        "kernels": np.bincount(at).astype(np.int64)})


def _no_range_kernels() -> pd.DataFrame:
    return pd.DataFrame({"path": pd.Categorical([]), "name": pd.Categorical([]),
                         "compute_ns": pd.Series(dtype="int64"), "kernels": pd.Series(dtype="int64")})


def _slim(ops: pd.DataFrame) -> pd.DataFrame:
    """What the cross-rank matching needs of the NCCL kernels, names as categories: a rank may have tens of
    thousands, and the parent holds every rank's."""
    out = ops[["start_ns", "end_ns", "name", "op", "stream"]].copy()
    out["overlap_ns"] = ops["overlap_ns"].to_numpy() if "overlap_ns" in ops else 0
    out["step"] = ops["step"].to_numpy() if "step" in ops else -1
    out["path"] = ops["path"].to_numpy() if "path" in ops else ""
    for c in ("name", "op", "path"):
        out[c] = out[c].astype("category")
    return out


def repetition_steps(ops: pd.DataFrame, max_period: int = 256) -> pd.DataFrame:
    """Steps detected as a repetition of the NCCL kernels, for profiles without NVTX step ranges.

    A training step ends with its last collective and the next one starts after a long stretch without any
    (the optimizer, data loading, the forward pass). For each period p (a number of NCCL kernels) under which the
    sequence of kernel names repeats (90 % of names equal p places later), the phase is the position in the
    period preceded by the longest idle gap (the time since the previous NCCL kernel ended; its lower quartile
    over the repetitions). The true period finds that long gap at its phase in every repetition; a wrong one
    (half a step, or a step and one kernel) finds it in half of them or once in a while, so its lower quartile is
    short. The shortest period whose gap is within 20 % of the best wins (its multiples do as well); windows run from the kernel at the phase to the
    same kernel one period later, each a step named `rep_K`. The collectives before the first window (start-up:
    NCCL's set-up, the parameters' broadcast) and after the last one are left out. Needs three repetitions."""
    o = ops.sort_values("start_ns").reset_index(drop=True)
    codes = pd.factorize(o["name"])[0]
    starts = o["start_ns"].to_numpy(dtype=np.int64)
    ends = o["end_ns"].to_numpy(dtype=np.int64)
    idle = np.r_[0, starts[1:] - np.maximum.accumulate(ends)[:-1]]  # since the previous NCCL kernel ended
    n = len(codes)
    candidates = []
    for period in range(1, min(max_period, n // 3) + 1):
        if (codes[period:] == codes[:-period]).mean() < 0.9:
            continue
        gaps = np.quantile(idle[:(n // period) * period].reshape(-1, period), 0.25, axis=0)
        phase = int(np.argmax(gaps))
        if len(starts[phase::period]) >= 4:  # three windows
            candidates.append((period, phase, float(gaps[phase])))
    if not candidates:
        return pd.DataFrame(columns=["step", "name", "start_ns", "end_ns", "pid"])
    best = max(gap for _, _, gap in candidates)
    period, phase = next((p, ph) for p, ph, gap in candidates if gap >= best * 0.8)
    bounds = starts[phase::period]
    return pd.DataFrame({"step": range(len(bounds) - 1), "name": [f"rep_{k}" for k in range(len(bounds) - 1)],
                         "start_ns": bounds[:-1], "end_ns": bounds[1:], "pid": int(o["pid"].iloc[0])})


def _step_gpu_time(p, steps: pd.DataFrame, kernels: dict | None = None) -> pd.DataFrame:
    """Busy, compute, communication and overlap time in each step's GPU window (ranks/intervals.py). `kernels`: the
    kernels already read (_kernels): then only the copies and memsets are read here."""
    columns = ["step", "gpu_busy_ns", "compute_ns", "comm_ns", "overlap_ns"]
    if steps.empty:
        return pd.DataFrame(columns=columns)
    lo = steps["start_ns"].to_numpy(dtype="int64")
    hi = steps["gpu_end_ns"].to_numpy(dtype="int64")
    if kernels is None:
        query = f'SELECT * FROM ({sql_files.read("ranks", "gpu_ops").text}) ORDER BY start_ns'
        times = intervals.step_gpu_time(_batches(p, query), lo, hi)
    else:
        query = sql_files.read("ranks", "copy_ops").text
        p.prepare(query)
        copies = p.con.execute(query).fetchnumpy()
        s = np.concatenate([kernels["start_ns"], np.asarray(copies["start_ns"], dtype=np.int64)])
        e = np.concatenate([kernels["end_ns"], np.asarray(copies["end_ns"], dtype=np.int64)])
        n = len(kernels["start_ns"])
        is_kernel = np.arange(len(s)) < n
        is_comm = np.concatenate([kernels["is_comm"], np.zeros(len(s) - n, dtype=bool)])
        order = np.argsort(s, kind="stable")
        times = intervals.step_gpu_time([{"start_ns": s[order], "end_ns": e[order], "is_kernel": is_kernel[order],
                                          "is_comm": is_comm[order]}], lo, hi)
    return pd.DataFrame({"step": steps["step"].to_numpy(), **times})[columns]


def _gpu_windows(p, steps: pd.DataFrame) -> pd.DataFrame:
    """The GPU window of each step: from its start to the next step's start (the GPU runs behind the CPU), and
    for the last step to the end of the last kernel it launched."""
    steps = steps.sort_values("start_ns").reset_index(drop=True)
    if steps.empty:
        return steps.assign(gpu_end_ns=pd.Series(dtype="int64"))
    nxt = steps["start_ns"].shift(-1)
    last = steps.iloc[-1]
    tail = p.sql(sql_files.inline_params(
        'SELECT max(k."end") FROM compat.CUPTI_ACTIVITY_KIND_KERNEL AS k WHERE k.correlationId IN ('
        "SELECT correlationId FROM compat.CUPTI_ACTIVITY_KIND_RUNTIME WHERE start >= $start AND start < $end) "
        "AND k.start >= $start",
        {"start": int(last["start_ns"]), "end": int(last["end_ns"])})).rows[0][0]
    last_end = max(int(last["end_ns"]), int(tail or 0))
    return steps.assign(gpu_end_ns=nxt.fillna(last_end).astype("int64"))


def _batches(p, query: str):
    """The rows of `query` as DataFrames of about a million rows, read while DuckDB produces them."""
    p.prepare(query)  # the compat views it reads (made on first use)
    cur = p.con.execute(query)  # the profile's own connection; nothing else runs on it until every batch is read
    while not (batch := cur.fetch_df_chunk(BATCH_VECTORS)).empty:
        yield batch


def _run(p, name: str, params: dict) -> pd.DataFrame:
    return p.sql(sql_files.inline_params(sql_files.read("ranks", name).text, params)).to_pandas()


def _on_common_clock(df: pd.DataFrame, member, columns) -> pd.DataFrame:
    if member.clock_offset_ns:
        for c in columns:
            df[c] = df[c] + member.clock_offset_ns
    return df


def _empty_nccl() -> pd.DataFrame:
    return pd.DataFrame(columns=["start_ns", "end_ns", "duration_ns", "op", "device", "stream", "pid",
                                 "nvtx_range", "bytes", "overlap_ns", "name"])
