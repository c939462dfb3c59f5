"""Hand-checked NVTX attribution on small profiles written here with sqlite3: each mode, nesting, cross-thread
and unterminated ranges, CUDA graphs, several processes; and the sweep checked against a plain range join."""

from __future__ import annotations

import random
import statistics
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import nsys_analytics
from nsys_analytics.core.errors import MissingDataError
from nsys_analytics.capabilities.nvtx import report as nvtx

PID = 100


@dataclass
class Range:
    """An NVTX range (or a mark when `mark`). end=None: left open (an export before nsys closed them)."""

    text: str
    start: int
    end: int | None
    tid: int = 1
    pid: int = PID
    style: str = "PushPop"
    domain: str | None = None
    end_tid: int | None = None
    category: int | None = None
    payload: int | None = None
    mark: bool = False


@dataclass
class Launch:
    """One API call on a thread launching GPU work: kernels (several: a CUDA graph launch) or copies."""

    start: int
    end: int
    gpu: list[tuple[int, int]]
    name: str = "kernel"
    tid: int = 1
    pid: int = PID
    api: str = "cudaLaunchKernel_v7000"
    kind: str = "kernel"


@dataclass
class Profile:
    ranges: list[Range] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)


def gtid(pid: int, tid: int) -> int:
    return (pid << 24) | tid


def write_profile(path: Path, spec: Profile) -> Path:
    """An nsys-like SQLite export with the tables and columns the NVTX reports read."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        CREATE TABLE NVTX_EVENTS (start INTEGER, "end" INTEGER, eventType INTEGER, rangeId INTEGER,
            category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
            domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER,
            int32Value INTEGER, floatValue REAL, jsonText TEXT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, "end" INTEGER, eventClass INTEGER,
            globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, "end" INTEGER, deviceId INTEGER,
            contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER,
            shortName INTEGER, mangledName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER,
            blockY INTEGER, blockZ INTEGER, graphNodeId INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, "end" INTEGER, deviceId INTEGER,
            contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER,
            copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
    """)
    strings: dict[str, int] = {}

    def sid(text: str) -> int:
        if text not in strings:
            strings[text] = len(strings) + 1
            con.execute("INSERT INTO StringIds VALUES (?, ?)", (strings[text], text))
        return strings[text]

    _write_ranges(con, spec.ranges, sid)
    _write_launches(con, spec.launches, sid)
    con.commit()
    con.close()
    return path


def _write_ranges(con: sqlite3.Connection, ranges: list[Range], sid) -> None:
    domains: dict[tuple[int, str], int] = {}
    for r in ranges:
        domain_id = 0
        if r.domain is not None:
            key = (r.pid, r.domain)
            if key not in domains:
                domains[key] = len(domains) + 1
                con.execute("INSERT INTO NVTX_EVENTS (start, eventType, text, globalTid, domainId) "
                            "VALUES (0, 75, ?, ?, ?)", (r.domain, gtid(r.pid, r.tid), domains[key]))
            domain_id = domains[key]
        event_type = 34 if r.mark else (59 if r.style == "PushPop" else 60)
        end_gtid = gtid(r.pid, r.end_tid) if r.end_tid is not None else None
        con.execute(
            'INSERT INTO NVTX_EVENTS (start, "end", eventType, category, textId, globalTid, endGlobalTid, domainId, '
            "int64Value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (r.start, None if r.mark else r.end, event_type, r.category, sid(r.text), gtid(r.pid, r.tid), end_gtid,
             domain_id, r.payload),
        )


def _write_launches(con: sqlite3.Connection, launches: list[Launch], sid) -> None:
    for corr, launch in enumerate(launches, start=1):
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0, NULL)",
                    (launch.start, launch.end, gtid(launch.pid, launch.tid), corr, sid(launch.api)))
        for node, (gpu_start, gpu_end) in enumerate(launch.gpu):
            if launch.kind == "memcpy":
                con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, 7, ?, ?, 4096, 1, 0, 2)",
                            (gpu_start, gpu_end, corr, launch.pid << 24))
                continue
            graph_node = node + 1 if len(launch.gpu) > 1 else None
            name = sid(launch.name)
            con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, 7, ?, ?, ?, ?, NULL, "
                        "1, 1, 1, 128, 1, 1, ?)",
                        (gpu_start, gpu_end, corr, launch.pid << 24, name, name, graph_node))


# The worked example of docs/nvtx.md: a training step on thread 1, backward kernels launched by thread 2.
EXAMPLE = Profile(
    ranges=[
        Range("step", 0, 1000, style="StartEnd", domain="train_loop"),
        Range("forward", 100, 400),
        Range("attention", 150, 300),
        Range("backward", 500, 900),
    ],
    launches=[
        Launch(160, 170, [(200, 260)], "gemm"),
        Launch(350, 360, [(375, 395)], "softmax"),
        Launch(600, 610, [(650, 750)], "gemm_bwd", tid=2),
        Launch(950, 960, [(1100, 1200)], "sgd"),
    ],
)


@pytest.fixture
def example(tmp_path):
    return write_profile(tmp_path / "example.sqlite", EXAMPLE)


def kernel_ranges(path: Path, mode: str, innermost: bool = False) -> set[tuple[str, str]]:
    """{(kernel name, range name)} of kernel_ranges in one mode."""
    with nsys_analytics.open(path) as p:
        where = "AND innermost" if innermost else ""
        rows = p.sql(f"SELECT name, range FROM kernel_ranges WHERE attribution = '{mode}' {where}").rows
    return set(rows)


def totals(path: Path, mode: str, exclusive: bool = False) -> dict[str | None, int]:
    """Kernel GPU time per range name from nvtx-kernels (None: kernels in no range)."""
    with nsys_analytics.open(path) as p:
        result = nvtx.nvtx_kernel_summary(p, mode, exclusive)
    out: dict[str | None, int] = {}
    for row in result.to_records():
        out[row["range"]] = out.get(row["range"], 0) + row["total_time_ns"]
    return out


def test_thread_mode_is_nsys_rule(example):
    assert kernel_ranges(example, "thread") == {
        ("gemm", "train_loop:step"), ("gemm", ":forward"), ("gemm", ":attention"),
        ("softmax", "train_loop:step"), ("softmax", ":forward"), ("sgd", "train_loop:step"),
    }
    assert totals(example, "thread") == {None: 100, "train_loop:step": 180, ":forward": 80, ":attention": 60}


def test_process_mode_puts_other_thread_launches_in_the_window(example):
    assert ("gemm_bwd", ":backward") in kernel_ranges(example, "process")
    assert totals(example, "process") == {"train_loop:step": 280, ":forward": 80, ":attention": 60, ":backward": 100}


def test_gpu_mode_follows_execution(example):
    assert totals(example, "gpu") == {
        None: 100, "train_loop:step": 180, ":forward": 80, ":attention": 60, ":backward": 100,
    }


@pytest.mark.parametrize("mode", ["thread", "process", "gpu"])
def test_exclusive_totals_add_up_to_the_kernel_total(example, mode):
    exclusive = totals(example, mode, exclusive=True)
    assert sum(exclusive.values()) == 60 + 20 + 100 + 100
    assert exclusive[":attention"] == 60  # the innermost range keeps gemm
    inner = kernel_ranges(example, mode, innermost=True)
    assert len({k for k, _ in inner}) == len(inner)  # one innermost range per kernel


def test_depth_is_the_nesting_level(example):
    with nsys_analytics.open(example) as p:
        rows = dict(p.sql("SELECT range, max(depth) FROM kernel_ranges WHERE attribution = 'thread' GROUP BY 1").rows)
    assert rows == {"train_loop:step": 0, ":forward": 1, ":attention": 2}


def test_process_mode_warns_about_launches_from_other_threads(example):
    with nsys_analytics.open(example) as p:
        notes = nvtx.nvtx_kernel_summary(p, "process").notes
    warnings = [n for n in notes if n.startswith("Warning")]
    assert any(":backward (thread 1)" in n and "(2)" in n for n in warnings), notes


def test_thread_mode_report_cells(example):
    with nsys_analytics.open(example) as p:
        rows = [r[:8] + (r[12],) for r in nvtx.nvtx_kernel_summary(p).rows]
    assert rows == [
        (None, None, PID, 2, 0, 1, 100, 100.0, "gemm_bwd"),
        (":attention", "PushPop", PID, 1, 1, 1, 60, 60.0, "gemm"),
        (":forward", "PushPop", PID, 1, 1, 1, 60, 60.0, "gemm"),
        (":forward", "PushPop", PID, 1, 1, 1, 20, 20.0, "softmax"),
        ("train_loop:step", "StartEnd", PID, 1, 1, 1, 100, 100.0, "sgd"),
        ("train_loop:step", "StartEnd", PID, 1, 1, 1, 60, 60.0, "gemm"),
        ("train_loop:step", "StartEnd", PID, 1, 1, 1, 20, 20.0, "softmax"),
    ]


def test_same_named_nested_ranges_count_a_kernel_once_and_its_time_twice(tmp_path):
    """nsys: NVTX Inst counts both ranges, Kern Inst the kernel once, Total Time sums every (range, kernel) pair."""
    spec = Profile(ranges=[Range("layer", 0, 100), Range("layer", 10, 50)],
                   launches=[Launch(20, 25, [(30, 40)], "k"), Launch(60, 65, [(70, 75)], "k")])
    with nsys_analytics.open(write_profile(tmp_path / "p.sqlite", spec)) as p:
        (row,) = nvtx.nvtx_kernel_summary(p).rows
    assert row[0] == ":layer" and row[4:7] == (2, 2, 10 + 10 + 5)


def test_start_end_range_ended_on_another_thread(tmp_path):
    """nsys leaves such a range out of its kernel reports (thread mode); process mode attributes to it."""
    spec = Profile(ranges=[Range("handoff", 0, 100, style="StartEnd", end_tid=2), Range("mark", 5, None, mark=True)],
                   launches=[Launch(10, 20, [(30, 40)], "k")])
    path = write_profile(tmp_path / "p.sqlite", spec)
    assert kernel_ranges(path, "thread") == set()
    assert kernel_ranges(path, "process") == {("k", ":handoff")}
    with nsys_analytics.open(path) as p:
        summary = nvtx.nvtx_summary(p)
    assert [(r[1], r[8], r[9]) for r in summary.rows] == [(100, "StartEnd", ":handoff")]  # no mark, counted


def test_unterminated_ranges_close_at_the_last_nvtx_timestamp(tmp_path):
    spec = Profile(ranges=[Range("open", 10, None), Range("later", 50, 500)],
                   launches=[Launch(400, 410, [(420, 430)], "k")])
    path = write_profile(tmp_path / "p.sqlite", spec)
    with nsys_analytics.open(path) as p:
        durations = {r[9]: r[1] for r in nvtx.nvtx_summary(p).rows}
    assert durations == {":open": 490, ":later": 450}
    assert kernel_ranges(path, "thread") == {("k", ":open"), ("k", ":later")}


def test_graph_launch_kernels_and_projection(tmp_path):
    """A cudaGraphLaunch: one API call, one correlation id, several kernels (nodes)."""
    spec = Profile(ranges=[Range("replay", 0, 100)],
                   launches=[Launch(10, 20, [(30, 40), (41, 50), (51, 70)], "node", api="cudaGraphLaunch_v10000"),
                             Launch(80, 90, [(95, 99)], "h2d", kind="memcpy")])
    path = write_profile(tmp_path / "p.sqlite", spec)
    with nsys_analytics.open(path) as p:
        (kern,) = nvtx.nvtx_kernel_summary(p).rows
        (trace,) = nvtx.nvtx_gpu_projection(p).rows
    assert kern[0] == ":replay" and kern[5:7] == (3, 10 + 9 + 19)
    # projected from the first node's start to the copy's end; the graph counts as one GPU operation
    assert trace[:5] == (":replay", 30, 69, 0, 100) and trace[8] == 2


def test_domains_registered_strings_categories_and_payloads(tmp_path):
    spec = Profile(ranges=[Range("copy", 0, 100, domain="io", category=1, payload=16), Range("plain", 0, 100)],
                   launches=[Launch(10, 20, [(30, 40)], "k")])
    path = write_profile(tmp_path / "p.sqlite", spec)
    assert kernel_ranges(path, "thread") == {("k", "io:copy"), ("k", ":plain")}


def test_several_processes_stay_apart(tmp_path):
    spec = Profile(ranges=[Range("work", 0, 100, pid=1), Range("work", 0, 100, pid=2)],
                   launches=[Launch(10, 20, [(30, 40)], "a", pid=1, tid=7), Launch(10, 20, [(30, 45)], "b", pid=2)])
    path = write_profile(tmp_path / "p.sqlite", spec)
    with nsys_analytics.open(path) as p:
        rows = p.sql("SELECT attribution, name, pid FROM kernel_ranges ORDER BY ALL").rows
    assert rows == [("gpu", "a", 1), ("gpu", "b", 2), ("process", "a", 1), ("process", "b", 2), ("thread", "b", 2)]


def test_projection_tree_of_nested_ranges(example):
    with nsys_analytics.open(example) as p:
        trace = {r[0]: r for r in nvtx.nvtx_gpu_projection(p).rows}
    step, forward, attention = trace["train_loop:step"], trace[":forward"], trace[":attention"]
    assert (step[9], step[10], step[13]) == (0, 1, f":{step[11]}")  # level, children, stack
    assert (forward[9], forward[12]) == (1, step[11])
    assert attention[13] == f":{step[11]}:{forward[11]}:{attention[11]}"


def test_no_nvtx_names_the_nsys_option(tmp_path):
    path = write_profile(tmp_path / "p.sqlite", Profile(launches=[Launch(0, 1, [(2, 3)])]))
    with nsys_analytics.open(path) as p, pytest.raises(MissingDataError, match="--trace=cuda,nvtx"):
        nvtx.nvtx_kernel_summary(p)


def random_profile(rng: random.Random) -> Profile:
    """Nested push/pop stacks on two threads, overlapping start/end ranges, launches from three threads."""
    ranges: list[Range] = []
    for tid in (1, 2):
        t = 0
        while t < 2000:
            t = _random_stack(rng, ranges, tid, t + rng.randint(0, 30), depth=0)
    for _ in range(8):
        start = rng.randint(0, 2000)
        ranges.append(Range(f"se{rng.randint(0, 3)}", start, start + rng.randint(0, 400), tid=rng.choice((1, 2)),
                            style="StartEnd", end_tid=rng.choice((None, None, 3))))
    launches = []
    for _ in range(300):
        start = rng.randint(0, 2100)
        gpu = start + rng.randint(0, 300)
        launches.append(Launch(start, start + rng.randint(0, 20), [(gpu, gpu + rng.randint(0, 60))],
                               f"k{rng.randint(0, 4)}", tid=rng.choice((1, 2, 3))))
    return Profile(ranges, launches)


def _random_stack(rng: random.Random, ranges: list[Range], tid: int, start: int, depth: int) -> int:
    """Push a range, maybe nest children, pop; return the end."""
    t = start
    for _ in range(rng.randint(0, 3) if depth < 3 else 0):
        t = _random_stack(rng, ranges, tid, t + rng.randint(0, 20), depth + 1)
    end = t + rng.randint(0, 50)
    ranges.append(Range(f"r{depth}{rng.randint(0, 2)}", start, end, tid=tid))
    return end


NAIVE = """
SELECT m.attribution, o.op_id, k.range_id
FROM _range_ops AS o
CROSS JOIN (VALUES ('thread'), ('process'), ('gpu')) AS m(attribution)
LEFT JOIN _range_keys AS k ON k.attribution = m.attribution AND CASE m.attribution
    WHEN 'thread' THEN k.key = o.launch_global_tid AND k.start_ns <= o.launch_start_ns AND k.end_ns >= o.launch_end_ns
    WHEN 'process' THEN k.key = o.global_pid AND k.start_ns <= o.launch_start_ns AND k.end_ns >= o.launch_end_ns
    ELSE k.key = o.global_pid AND k.start_ns <= o.end_ns AND k.end_ns >= o.start_ns END
"""




def multiscale_profile(rng: random.Random) -> Profile:
    """Ranges of very different lengths at nsys-sized timestamps: one range over everything, a dense cluster of
    ranges of 0-3 ns, medium ranges, on two threads; launches that start or end exactly on range boundaries."""
    base = 1_700_000_000_000
    ranges = [Range("all", base, base + 10_000_000, tid=1)]
    cluster = base + rng.randint(0, 9_000_000)
    t = cluster
    for _ in range(300):  # tiny pushes/pops packed back to back
        length = rng.randint(0, 3)
        ranges.append(Range(f"tiny{rng.randint(0, 2)}", t, t + length, tid=1))
        t += length + rng.randint(0, 2)
    for _ in range(40):
        start = base + rng.randint(0, 9_900_000)
        ranges.append(Range(f"mid{rng.randint(0, 1)}", start, start + rng.randint(1_000, 100_000), tid=2,
                            style="StartEnd"))
    boundaries = [b for r in ranges for b in (r.start, r.end)]
    launches = []
    for _ in range(400):
        if rng.random() < 0.5:
            start = rng.choice(boundaries) - rng.choice((0, 0, 1))
        else:
            start = rng.choice((cluster, base)) + rng.randint(0, 2_000 if rng.random() < 0.7 else 10_000_000)
        end = start + rng.choice((0, 1, 2, rng.randint(0, 50)))
        launches.append(Launch(start, end, [(end + 5, end + 50)], f"k{rng.randint(0, 2)}", tid=rng.choice((1, 2))))
    return Profile(ranges, launches)


@pytest.mark.parametrize(("make", "seed"), [(random_profile, s) for s in range(6)]
                         + [(multiscale_profile, s) for s in range(4)])
def test_attribution_equals_a_plain_range_join(tmp_path, make, seed):
    path = write_profile(tmp_path / "p.sqlite", make(random.Random(seed)))
    with nsys_analytics.open(path) as p:
        fast = p.sql("SELECT attribution, op_id, range_id FROM _op_ranges").rows
        naive = p.sql(NAIVE).rows
    assert sorted(fast, key=str) == sorted(naive, key=str)


BRUTE = """
SELECT m.attribution, o.op_id, o.duration_ns, s.value AS kernel, o.launch_global_tid, r.range_id, r.name, r.style,
    r.pid, r.tid
FROM _range_ops AS o
CROSS JOIN (VALUES ('thread'), ('process'), ('gpu')) AS m(attribution)
JOIN strings AS s ON s.id = o.name_id
LEFT JOIN _range_keys AS k ON k.attribution = m.attribution AND CASE m.attribution
    WHEN 'thread' THEN k.key = o.launch_global_tid AND k.start_ns <= o.launch_start_ns AND k.end_ns >= o.launch_end_ns
    WHEN 'process' THEN k.key = o.global_pid AND k.start_ns <= o.launch_start_ns AND k.end_ns >= o.launch_end_ns
    ELSE k.key = o.global_pid AND k.start_ns <= o.end_ns AND k.end_ns >= o.start_ns END
LEFT JOIN _nvtx_ranges AS r ON r.range_id = k.range_id
WHERE o.kind = 'kernel'
"""


def brute_kernel_groups(rows: list[tuple], mode: str) -> dict[tuple, tuple]:
    """nvtx_kernel_groups(mode, false, 'demangled', false) from every (kernel, range) pair by hand: {(range, style,
    pid, tid, kernel): (ranges, kernels, total, mean, median, min, max, stddev, foreign kernels, foreign threads)}."""
    groups: dict[tuple, list[tuple]] = {}
    for attribution, op, duration, kernel, launch, range_id, name, style, pid, tid in rows:
        if attribution == mode:
            label = (name, style, pid, tid) if range_id is not None else (None, None, launch >> 24 & 0xFFFFFF,
                                                                           launch & 0xFFFFFF)
            groups.setdefault((*label, kernel), []).append((op, duration, range_id, launch & 0xFFFFFF))
    expected = {}
    for key, members in groups.items():
        durations = [d for _, d, _, _ in members]
        foreign = [t for *_, t in members if mode == "process" and t != key[3]]
        expected[key] = (len({r for _, _, r, _ in members if r is not None}), len({op for op, *_ in members}),
                         sum(durations), sum(durations) / len(durations), statistics.median(durations),
                         min(durations), max(durations), statistics.stdev(durations) if len(durations) > 1 else 0,
                         len(foreign), sorted(set(foreign)) or None)
    return expected


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("mode", ["thread", "process", "gpu"])
def test_kernel_groups_equal_a_count_by_hand(tmp_path, seed, mode):
    # overlapping same-named start/end ranges (a kernel counted once, its time twice), launches from a third thread
    path = write_profile(tmp_path / "p.sqlite", random_profile(random.Random(seed)))
    with nsys_analytics.open(path) as p:
        expected = brute_kernel_groups(p.sql(BRUTE).rows, mode)
        got = p.sql(f"SELECT * FROM nvtx_kernel_groups('{mode}', false, 'demangled', false)")
    assert len(got.rows) == len(expected)
    for row in got.rows:
        r = dict(zip(got.columns, row))
        want = expected[(r["range"], r["style"], r["pid"], r["tid"], r["kernel_name"])]
        assert (r["range_instances"], r["kernel_instances"], r["total_time_ns"]) == want[:3]
        assert r["avg_ns"] == pytest.approx(want[3], rel=1e-12) and r["med_ns"] == want[4]
        assert (r["min_ns"], r["max_ns"]) == want[5:7] and r["stddev_ns"] == pytest.approx(want[7], rel=1e-9)
        assert (r["foreign_kernels"], r["foreign_tids"]) == want[8:]
