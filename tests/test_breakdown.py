"""`breakdown` and `classify`: numbers against nsys' own CSVs, the busy-time sweep against hand-worked and
brute-force answers, every output format, the plot file, and the Python API."""

from __future__ import annotations

import csv
import io
import itertools
import json
import random
import re
import sqlite3
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.capabilities.categories import load_rules
from nsys_analytics.cli.main import cli
from nsys_analytics.core.filters import KernelFilter
from nsys_analytics.capabilities.breakdown.report import breakdown_report
from nsys_analytics.capabilities.categories.data import name_times

from .conftest import FIXTURE_NAMES, PROFILES, oracle_csv, read_csv

RULES = load_rules()


def run(*args: str):
    return CliRunner().invoke(cli, [str(a) for a in args])


def ok_output(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output
    return result.output


def categories_json(*args: str) -> dict[str, dict]:
    doc = json.loads(ok_output("breakdown", *args, "--format", "json"))
    return {row["category"]: row for row in doc["sections"]["categories"]["rows"]}


# -- against nsys: cuda_gpu_kern_sum and cuda_gpu_mem_time_sum summed by category in the test ---------------

def oracle_by_category(profile: Path) -> dict[str, list[int]]:
    """{category: [total ns, instances]} from nsys' kernel summary, classified name by name here."""
    rows = read_csv(oracle_csv(profile, "cuda_gpu_kern_sum"))
    header = rows[0]
    total, count, name = header.index("Total Time (ns)"), header.index("Instances"), header.index("Name")
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows[1:]:
        entry = out[RULES.classify(row[name]).category]
        entry[0] += int(row[total])
        entry[1] += int(row[count])
    return dict(out)


def oracle_memory_ops(profile: Path) -> dict[str, list[int]]:
    """{'[CUDA memcpy ...]': [total ns, count]} from nsys' memory-operation summary."""
    rows = read_csv(oracle_csv(profile, "cuda_gpu_mem_time_sum"))
    if not rows:
        return {}
    header = rows[0]
    total, count, op = header.index("Total Time (ns)"), header.index("Count"), header.index("Operation")
    return {row[op]: [int(row[total]), int(row[count])] for row in rows[1:]}


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_kernel_categories_match_nsys_totals(name):
    profile = PROFILES / f"{name}.sqlite"
    ours = categories_json(profile, "--kernels-only", "--window", "all")  # nsys counts the whole capture
    expected = oracle_by_category(profile)
    graphs = graph_executions(profile)  # graphs traced whole: nsys leaves them out, breakdown counts them
    if graphs[1]:
        expected["cuda graph"] = graphs
    assert {c: [r["time_ns"], r["instances"]] for c, r in ours.items()} == expected
    assert sum(r["time_pct"] for r in ours.values()) == pytest.approx(100.0)


def graph_executions(profile: Path) -> list[int]:
    """[summed GPU time, executions] of the whole CUDA graph executions, read with sqlite3."""
    con = sqlite3.connect(f"file:{profile}?mode=ro", uri=True)
    try:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_GRAPH_TRACE'").fetchone():
            return [0, 0]
        total, n = con.execute('SELECT coalesce(sum("end" - start), 0), count(*) '
                               "FROM CUPTI_ACTIVITY_KIND_GRAPH_TRACE").fetchone()
        return [total, n]
    finally:
        con.close()


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_memory_category_adds_nsys_memory_operations(name):
    profile = PROFILES / f"{name}.sqlite"
    memops = oracle_memory_ops(profile)
    kernels = oracle_by_category(profile).get("memory", [0, 0])
    memory = categories_json(profile, "--window", "all").get("memory", {"time_ns": 0, "instances": 0})
    assert memory["time_ns"] == kernels[0] + sum(t for t, _ in memops.values())
    assert memory["instances"] == kernels[1] + sum(n for _, n in memops.values())


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_memory_operation_labels_are_nsys_labels(name):
    profile = PROFILES / f"{name}.sqlite"
    with nsys_analytics.open(profile) as p:
        rows = [r for r in name_times(p, RULES) if r.rule in ("memcpy", "memset")]
    ours: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        ours[r.name][0] += r.total_ns
        ours[r.name][1] += r.instances
    assert dict(ours) == oracle_memory_ops(profile)


@pytest.mark.parametrize("name", ["gpt_forward", "gpt_train"])
def test_the_loss_log_softmax_is_loss_not_softmax(name):
    """Cross-entropy's log-softmax (cunn_SoftMax*<..., LogSoftMax*Epilogue>) is loss; softmax is the attention's
    softmax_warp_* kernels alone. Expected: nsys' cuda_gpu_kern_sum rows, picked by name here, not by our rules."""
    profile = PROFILES / f"{name}.sqlite"
    rows = read_csv(oracle_csv(profile, "cuda_gpu_kern_sum"))
    total, kernel = rows[0].index("Total Time (ns)"), rows[0].index("Name")

    def summed(*words: str) -> int:
        return sum(int(r[total]) for r in rows[1:] if any(w in r[kernel] for w in words))

    ours = categories_json(profile, "--kernels-only", "--window", "all")
    assert ours["softmax"]["time_ns"] == summed("softmax_warp_forward<", "softmax_warp_backward<")
    assert ours["loss"]["time_ns"] == summed("LogSoftMaxForwardEpilogue", "LogSoftMaxBackwardEpilogue", "nll_loss_")
    assert "log-softmax" in ok_output("breakdown", profile)  # the note under the categories says where it went


def test_classify_totals_match_nsys():
    profile = PROFILES / "gpt_sdpa_train.sqlite"
    rows = list(csv.DictReader(io.StringIO(ok_output("classify", profile, "--format", "csv"))))
    expected = {r[-1]: int(r[1]) for r in read_csv(oracle_csv(profile, "cuda_gpu_kern_sum"))[1:]}
    assert {r["Name"]: int(r["Total Time (ns)"]) for r in rows} == expected
    assert all(r["Category"] == RULES.classify(r["Name"]).category for r in rows)


# -- hand-built profiles ------------------------------------------------------------------------------------

NAMES = {
    "gemm": "nvjet_sm90_tst_128x64_64x8_1x2_h_bz_NNT",
    "softmax": "void <unnamed>::softmax_warp_forward<float, float, float, (int)8>(T2 *)",
    "add": "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<float>>(int, T2, T3)",
    "mystery": "my_kernel(int)",
}


def make_profile(path: Path, kernels, memsets=(), capture=None) -> Path:
    """An nsys-shaped SQLite file. kernels: (start, end, device, stream, NAMES key); memsets: (start, end,
    device, stream); capture: (start, stop) for ANALYSIS_DETAILS."""
    ids = {key: i for i, key in enumerate(NAMES, start=1)}
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", [(ids[k], v) for k, v in NAMES.items()])
    con.execute('CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, "end" INT, deviceId INT, streamId INT, '
                "globalPid INT, correlationId INT, demangledName INT, shortName INT)")
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(s, e, d, st, 7 << 24, i, ids[n], ids[n]) for i, (s, e, d, st, n) in enumerate(kernels)])
    if memsets:
        con.execute('CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INT, "end" INT, deviceId INT, streamId INT, '
                    "globalPid INT, correlationId INT, bytes INT, value INT, memKind INT)")
        con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (?, ?, ?, ?, ?, ?, 64, 0, 2)",
                        [(s, e, d, st, 7 << 24, 1000 + i) for i, (s, e, d, st) in enumerate(memsets)])
    if capture:
        con.execute("CREATE TABLE ANALYSIS_DETAILS (duration INT, startTime INT, stopTime INT)")
        con.execute("INSERT INTO ANALYSIS_DETAILS VALUES (?, ?, ?)", (capture[1] - capture[0], *capture))
    con.commit()
    con.close()
    return path


@pytest.fixture
def overlapping(tmp_path) -> Path:
    """Device 0: gemm [0,100) on stream 1 overlaps softmax [50,150) on stream 2, which a memset [120,130)
    on stream 3 overlaps; add [200,300) alone. Device 1: gemm [0,100). Capture [0, 400).

    Busy, per device: [0,150) + [200,300) = 250 and 100. Shared equally where they overlap:
    gemm 50 + 50/2 = 75, softmax 50/2 + 20 + 10/2 + 20 = 70, memset 10/2 = 5, add 100; device 1 gemm 100.
    """
    return make_profile(
        tmp_path / "overlap.sqlite",
        kernels=[(0, 100, 0, 1, "gemm"), (50, 150, 0, 2, "softmax"), (200, 300, 0, 1, "add"),
                 (0, 100, 1, 1, "gemm")],
        memsets=[(120, 130, 0, 3)],
        capture=(0, 400),
    )


def times(rows: dict) -> dict[str, int]:
    return {c: r["time_ns"] for c, r in rows.items()}


def test_kernel_basis_sums_durations(overlapping):
    rows = categories_json(overlapping)
    assert times(rows) == {"matmul": 200, "softmax": 100, "elementwise": 100, "memory": 10}
    assert rows["matmul"]["time_pct"] == pytest.approx(100 * 200 / 410)
    assert rows["matmul"]["instances"] == 2


def test_gpu_busy_shares_overlaps_and_adds_up_to_the_union(overlapping):
    rows = categories_json(overlapping, "--basis", "gpu-busy")
    assert times(rows) == {"matmul": 175, "softmax": 70, "elementwise": 100, "memory": 5}
    assert rows["matmul"]["time_pct"] == pytest.approx(100 * 175 / 350)
    assert sum(r["time_pct"] for r in rows.values()) == pytest.approx(100.0)


def test_gpu_busy_with_a_device_filter(overlapping):
    rows = categories_json(overlapping, "--basis", "gpu-busy", "--device", "1")
    assert times(rows) == {"matmul": 100}


def test_wall_basis_has_idle(overlapping):
    rows = categories_json(overlapping, "--basis", "wall")
    # window 400 ns x 2 devices; busy 350
    assert rows["idle"]["time_ns"] == 450
    assert rows["matmul"]["time_pct"] == pytest.approx(100 * 175 / 800)
    assert sum(r["time_pct"] for r in rows.values()) == pytest.approx(100.0)
    window = categories_json(overlapping, "--basis", "wall", "--start", "0ns", "--end", "200ns", "--device", "0")
    assert times(window) == {"matmul": 75, "softmax": 70, "memory": 5, "idle": 50}


def test_stream_filter_and_kernels_only(overlapping):
    assert times(categories_json(overlapping, "--stream", "1")) == {"matmul": 200, "elementwise": 100}
    assert "memory" not in categories_json(overlapping, "--kernels-only")


def test_gpu_busy_matches_brute_force(tmp_path):
    rng = random.Random(4)
    kernels = []
    for _ in range(400):
        start = rng.randrange(0, 3000)
        kernels.append((start, start + rng.choice([0, 1, 7, 30, 200]), rng.randrange(2), rng.randrange(3),
                        rng.choice(list(NAMES))))
    path = make_profile(tmp_path / "random.sqlite", kernels)
    expected = brute_force_shares(kernels)
    with nsys_analytics.open(path) as p:
        rows = name_times(p, RULES, busy=True)
    got: dict[str, float] = defaultdict(float)
    for r in rows:
        got[r.name] += r.busy_ns
    assert set(got) == set(expected)
    for name, share in expected.items():
        assert got[name] == pytest.approx(share, abs=1e-6)


def brute_force_shares(kernels) -> dict[str, float]:
    """Every elementary interval between two event times, shared among the kernels covering it."""
    shares: dict[str, float] = defaultdict(float)
    for device in {k[2] for k in kernels}:
        ops = [k for k in kernels if k[2] == device]
        points = sorted({k[0] for k in ops} | {k[1] for k in ops})
        for a, b in itertools.pairwise(points):
            active = [k for k in ops if k[0] <= a and k[1] >= b]
            for k in active:
                shares[NAMES[k[4]]] += (b - a) / len(active)
    for k in kernels:
        shares.setdefault(NAMES[k[4]], 0.0)
    return dict(shares)


def test_two_profiles_side_by_side_with_the_change(tmp_path):
    forward = make_profile(tmp_path / "forward.sqlite", [(0, 80, 0, 1, "gemm"), (100, 120, 0, 1, "softmax")])
    train = make_profile(tmp_path / "train.sqlite", [(0, 50, 0, 1, "gemm"), (100, 150, 0, 1, "add")])
    doc = json.loads(ok_output("breakdown", forward, train, "--format", "json"))
    rows = {r["category"]: r for r in doc["sections"]["categories"]["rows"]}
    assert rows["matmul"]["forward_time_pct"] == pytest.approx(80.0)
    assert rows["matmul"]["train_time_pct"] == pytest.approx(50.0)
    assert rows["matmul"]["change_pct_points"] == pytest.approx(-30.0)
    assert rows["elementwise"]["forward_time_ns"] == 0 and rows["elementwise"]["train_time_ns"] == 50
    rollup = {r["group"]: r for r in doc["sections"]["rollup"]["rows"]}
    assert rollup["non-matmul"]["change_pct_points"] == pytest.approx(30.0)
    assert {"top_forward", "top_train"} <= set(doc["sections"])


def test_top_lists_non_matmul_kernels_only(overlapping):
    doc = json.loads(ok_output("breakdown", overlapping, "--top", "2", "--format", "json"))
    top = doc["sections"]["top"]["rows"]
    assert [r["category"] for r in top] == ["softmax", "elementwise"]
    assert top[0]["time_pct"] == pytest.approx(100 * 100 / 410)


def test_classify_unmatched(tmp_path):
    path = make_profile(tmp_path / "m.sqlite", [(0, 10, 0, 1, "mystery"), (10, 50, 0, 1, "gemm")])
    rows = list(csv.DictReader(io.StringIO(ok_output("classify", path, "--unmatched", "--format", "csv"))))
    assert [(r["Name"], r["Category"], r["Rule"]) for r in rows] == [("my_kernel(int)", "other", "")]
    assert "1 matched none" in ok_output("classify", path)


def test_user_rules_change_the_breakdown(tmp_path, overlapping):
    rules = tmp_path / "r.toml"
    rules.write_text('[[rule]]\nname = "sm"\ncategory = "attention"\npattern = "softmax_warp"\n')
    assert "attention" in categories_json(overlapping, "--rules", rules)


# -- formats, plot, API -----------------------------------------------------------------------------------

GOOD = PROFILES / "gpt_train.sqlite"


def test_table_prints_the_basis_under_every_table():
    text = ok_output("breakdown", GOOD)
    assert "GPU time by category" in text and "Matmul vs non-matmul" in text and "Top 8 non-matmul" in text
    assert text.count("Time (%) is of") == 3
    assert "memcpy/memset (in memory)" in text


def test_markdown():
    text = ok_output("breakdown", GOOD, "--basis", "gpu-busy", "--format", "markdown")
    assert text.count("### ") == 3 and "|---|" in text and text.count("(basis gpu-busy)") == 3


def test_csv_is_one_table_the_categories_by_default():
    rows = list(csv.reader(io.StringIO(ok_output("breakdown", GOOD, "--format", "csv"))))
    assert rows[0] == ["Category", "Group", "Time (ns)", "Time (%)", "Instances"]
    assert len({len(r) for r in rows}) == 1 and len(rows) > 1
    top = list(csv.reader(io.StringIO(ok_output("breakdown", GOOD, "--format", "csv", "--table", "top"))))
    assert top[0][0] == "Position"  # "Rank" read as the GPU rank over rank files


def test_json_and_output_file(tmp_path):
    out = tmp_path / "b.json"
    ok_output("breakdown", GOOD, "--format", "json", "-o", out)
    doc = json.loads(out.read_text())
    assert doc["basis"] == "kernel" and set(doc["sections"]) == {"categories", "rollup", "top"}
    assert all(s["notes"] for s in doc["sections"].values())


def test_plot(tmp_path):
    png = tmp_path / "shares.png"
    ok_output("breakdown", PROFILES / "gpt_forward.sqlite", GOOD, "--plot", png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    bad = run("breakdown", GOOD, "--plot", tmp_path / "shares.jpg")
    assert bad.exit_code == 2 and ".png" in bad.output


def test_a_profile_given_twice_is_read_once():  # any number of profiles is allowed (tests/test_breakdown_many.py)
    result = run("breakdown", GOOD, GOOD, GOOD, "--format", "json")
    assert result.exit_code == 0 and result.output.count("(given twice)") == 2
    assert list(json.loads(result.stdout)["sections"]["categories"]["rows"][0]) == \
        ["category", "group", "time_ns", "time_pct", "instances"]


def test_python_api(overlapping):
    with nsys_analytics.open(overlapping) as p:
        df = p.breakdown(basis="gpu-busy")
        assert dict(zip(df["category"], df["time_ns"])) == {"matmul": 175, "softmax": 70, "elementwise": 100,
                                                           "memory": 5}
        groups = p.breakdown(level="group")
        assert list(groups["group"]) == ["matmul", "non-matmul"]
        assert list(p.breakdown(level="kernel", top=1)["category"]) == ["softmax"]
        kinds = p.kernel_categories()
        assert set(kinds["category"]) == {"matmul", "softmax", "elementwise"}
        report = breakdown_report([p], basis="kernel", stream=1)
        assert set(report.frames()) == {"categories", "rollup", "top"}
        assert report.shares[overlapping.stem]["matmul"] == pytest.approx(100 * 200 / 300)


def test_filters_reach_the_query(overlapping):
    with nsys_analytics.open(overlapping) as p:
        rows = name_times(p, RULES, KernelFilter(match="softmax"))
    assert [r.name for r in rows] == [NAMES["softmax"]]


# -- --by range: the process rule, checked against a brute-force reading of the SQLite file ------------------

def launched_inside(profile: Path, range_name: str, same_thread: bool = False) -> set[tuple[int, int]]:
    """(pid, correlation id) of the API calls that ran inside a `range_name` range of the same process (and, with
    `same_thread`, on the range's own thread: nsys' rule)."""
    con = sqlite3.connect(f"file:{profile}?mode=ro", uri=True)
    ranges = con.execute(
        "SELECT start, \"end\", globalTid FROM NVTX_EVENTS AS e LEFT JOIN StringIds AS s ON s.id = e.textId "
        "WHERE eventType IN (59, 60) AND \"end\" IS NOT NULL AND coalesce(e.text, s.value) = ?", (range_name,)
    ).fetchall()
    calls = con.execute('SELECT start, "end", globalTid, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME').fetchall()
    con.close()
    return {
        (tid >> 24, corr) for start, end, tid, corr in calls
        if any(s <= start and end <= e and tid >> 24 == rtid >> 24 and (not same_thread or tid == rtid)
               for s, e, rtid in ranges)
    }


def brute_force_range(profile: Path, range_name: str, same_thread: bool = False) -> tuple[int, int]:
    """(kernels, summed ns) launched by an API call that ran inside a `range_name` range of the same process
    (and, with `same_thread`, on the range's own thread: nsys' rule)."""
    inside = launched_inside(profile, range_name, same_thread)
    con = sqlite3.connect(f"file:{profile}?mode=ro", uri=True)
    kernels = con.execute('SELECT globalPid, correlationId, "end" - start FROM CUPTI_ACTIVITY_KIND_KERNEL').fetchall()
    con.close()
    picked = [d for gpid, corr, d in kernels if (gpid >> 24, corr) in inside]
    return len(picked), sum(picked)


@pytest.mark.parametrize("range_name", ["forward", "backward", "optimizer_step"])
def test_by_range_matches_brute_force(range_name):
    profile = PROFILES / "gpt_train.sqlite"
    doc = json.loads(ok_output("breakdown", profile, "--by", "range", "--range-names", range_name,
                               "--kernels-only", "--format", "json"))
    rows = doc["sections"]["categories"]["rows"]
    assert (sum(r["instances"] for r in rows), sum(r["time_ns"] for r in rows)) == brute_force_range(profile, range_name)


def test_by_range_with_nested_names_matches_brute_force():
    """Several names at once, nested (a kernel of `computing_softmax` is also in `scaled_dot_product_attention`,
    `forward` and `train_loop:step_1`): each range holds every kernel launched inside it, once."""
    from nsys_analytics.capabilities.breakdown.ranges import range_name_times

    profile = PROFILES / "gpt_train.sqlite"
    names = {"train_loop:step_1": "step_1", "forward": "forward",  # the range's name: its text
             "scaled_dot_product_attention": "scaled_dot_product_attention", "computing_softmax": "computing_softmax",
             "backward": "backward"}
    with nsys_analytics.open(profile) as p:
        rows = range_name_times(p, RULES, KernelFilter(), memory_ops=False, chosen=list(names), busy=False)
    for name, text in names.items():
        got = [r for r in rows if r.part == name]
        assert (sum(r.instances for r in got), sum(r.total_ns for r in got)) == brute_force_range(profile, text), name


def brute_force_by_name(spec, match: str | None = None) -> dict[tuple[str, str], tuple[int, int]]:
    """{(range name, kernel): (kernels, summed ns)} from a test_nvtx_attribution spec, by the process rule: a kernel
    is in a name when its launching call lies inside any instance of that name in its process; once per name."""
    totals: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for launch in spec.launches:
        if match is not None and not re.search(match, launch.name):
            continue
        names = {r.text for r in spec.ranges if not r.mark and r.end is not None and r.pid == launch.pid
                 and r.start <= launch.start and launch.end <= r.end}
        for name in names:
            for start, end in launch.gpu:
                totals[name, launch.name][0] += 1
                totals[name, launch.name][1] += end - start
    return {key: tuple(value) for key, value in totals.items()}


def by_name(rows) -> dict[tuple[str, str], tuple[int, int]]:
    totals: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        totals[r.part, r.name][0] += r.instances
        totals[r.part, r.name][1] += r.total_ns
    return {key: tuple(value) for key, value in totals.items()}


def test_by_range_counts_an_operation_once_in_overlapping_instances_of_a_name(tmp_path):
    """Worked by hand: two instances of `step` overlap on [5, 10] (one per thread of the process). A call inside
    both counts once; one that runs from the first into the second lies in neither; one inside the second alone,
    and one launched by a third thread, count too."""
    from nsys_analytics.capabilities.breakdown.ranges import range_name_times

    from .test_nvtx_attribution import Launch, Profile, Range, write_profile

    spec = Profile(
        ranges=[Range("step", 0, 10, tid=1), Range("step", 5, 20, tid=2), Range("step", 5, 8, tid=2)],
        launches=[Launch(6, 8, [(30, 37)], "both"), Launch(3, 12, [(40, 45)], "across"),
                  Launch(12, 15, [(50, 52)], "second"), Launch(10, 10, [(60, 61)], "edge", tid=3)])
    path = write_profile(tmp_path / "p.sqlite", spec)
    with nsys_analytics.open(path) as p:
        rows = range_name_times(p, RULES, KernelFilter(), memory_ops=False, chosen=["step"], busy=False)
    assert by_name(rows) == {("step", "both"): (1, 7), ("step", "second"): (1, 2), ("step", "edge"): (1, 1)}
    assert brute_force_by_name(spec) == by_name(rows)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("match", [None, "k[13]"])
def test_by_range_on_random_overlapping_ranges_matches_brute_force(tmp_path, seed, match):
    """Random stacks of the same names on two threads of a process, start/end ranges ended on a third thread,
    launches from three threads (test_nvtx_attribution's profiles): every name at once, with and without a filter
    (a filter makes the query check each kernel against the filtered operations)."""
    from nsys_analytics.capabilities.breakdown.ranges import range_name_times

    from .test_nvtx_attribution import multiscale_profile, random_profile, write_profile

    make = random_profile if seed < 3 else multiscale_profile
    spec = make(random.Random(seed))
    path = write_profile(tmp_path / "p.sqlite", spec)
    names = sorted({r.text for r in spec.ranges})
    with nsys_analytics.open(path) as p:
        rows = range_name_times(p, RULES, KernelFilter(match=match), memory_ops=False, chosen=names, busy=False)
    expected = brute_force_by_name(spec, match)
    assert len(expected) > 5
    assert by_name(rows) == expected


FILTERS = {  # KernelFilter fields: what each keeps of a kernel (start, device, stream, pid, demangled, short name),
    # given the calls launched inside the range its range filter names (`inside`)
    "time": ({"start_ns": 5_290_000_000, "end_ns": 5_300_000_000},
             lambda k, inside: 5_290_000_000 <= k[0] < 5_300_000_000),
    "match": ({"match": "gemm|softmax"}, lambda k, inside: re.search("gemm|softmax", k[4])),
    "short match": ({"name_kind": "short", "match": "^vectorized"}, lambda k, inside: re.search("^vectorized", k[5])),
    "device, stream, process": ({"device": 0, "stream": 7, "pid": 794}, lambda k, inside: True),
    "another device": ({"device": 1}, lambda k, inside: False),
    "another stream": ({"stream": 8}, lambda k, inside: False),
    "another process": ({"pid": 795}, lambda k, inside: False),
    "in a range": ({"range_name": "forward", "attribution": "process"}, lambda k, inside: (k[7] >> 24, k[8]) in inside),
    "not in a range": ({"exclude_range_name": "train_loop:step_1", "attribution": "process"},
                       lambda k, inside: (k[7] >> 24, k[8]) not in inside),
}


@pytest.mark.parametrize("case", FILTERS)
def test_by_range_with_filters_matches_brute_force(case):
    """Each kernel filter with --by range (the range query filters the attributed kernels itself), against the
    SQLite file read by hand: per range name, the kernels launched inside it that the filter keeps."""
    from nsys_analytics.capabilities.breakdown.ranges import range_name_times

    fields, keep = FILTERS[case]
    profile = PROFILES / "gpt_train.sqlite"
    con = sqlite3.connect(f"file:{profile}?mode=ro", uri=True)
    kernels = con.execute(
        'SELECT k.start, k.deviceId, k.streamId, k.globalPid >> 24, d.value, s.value, k."end" - k.start, '
        "k.globalPid, k.correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL AS k "
        "JOIN StringIds AS d ON d.id = k.demangledName JOIN StringIds AS s ON s.id = k.shortName").fetchall()
    con.close()
    names = ["forward", "backward", "optimizer_step"]
    ranged = fields.get("range_name") or fields.get("exclude_range_name")
    filtered = launched_inside(profile, ranged.rpartition(":")[2]) if ranged else set()
    expected = {}
    for name in names:
        inside = launched_inside(profile, name)
        picked = [k[6] for k in kernels if (k[7] >> 24, k[8]) in inside and keep(k, filtered)]
        expected[name] = (len(picked), sum(picked))
    assert expected["forward"][0] > 0 or case.startswith("another")
    with nsys_analytics.open(profile) as p:
        rows = range_name_times(p, RULES, KernelFilter(**fields), memory_ops=False, chosen=names, busy=False)
    assert {n: (sum(r.instances for r in rows if r.part == n), sum(r.total_ns for r in rows if r.part == n))
            for n in names} == expected


def test_backward_kernels_from_autograd_thread_land_in_backward():
    profile = PROFILES / "gpt_train.sqlite"
    on_range_thread, _ = brute_force_range(profile, "backward", same_thread=True)
    any_thread, _ = brute_force_range(profile, "backward")
    assert any_thread > on_range_thread  # the autograd thread launched some
    with nsys_analytics.open(profile) as p:
        df = p.breakdown(by="range", ranges=["forward", "backward", "optimizer_step"], memory_ops=False)
    assert list(df.columns) == ["category", "forward_time_pct", "backward_time_pct", "optimizer_step_time_pct"]
    optimizer = dict(zip(df["category"], df["optimizer_step_time_pct"]))
    assert optimizer["optimizer"] == pytest.approx(100.0)


def test_by_range_formats_and_plot(tmp_path):
    text = ok_output("breakdown", GOOD, "--by", "range", "--range-names", "forward,backward",
                     "--range-names", "optimizer_step", "--basis", "gpu-busy", "--plot", tmp_path / "r.png")
    assert "forward (ns)" not in text and "forward (%)" in text and "optimizer_step (%)" in text
    # the columns' notes once, under the first table; the second says where they are
    assert text.count("Time (%) is of, per column:") == 1 and "Top" not in text
    assert text.count("as under the tables above") == 1
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
    wall = json.loads(ok_output("breakdown", GOOD, "--by", "range", "--basis", "wall", "--format", "json"))
    columns = wall["sections"]["categories"]["rows"][0].keys()
    assert len([c for c in columns if c.endswith("_time_pct")]) == 8  # the default: 8 heaviest ranges
    idle = next(r for r in wall["sections"]["categories"]["rows"] if r["category"] == "idle")
    assert all(0 <= v <= 100 for k, v in idle.items() if k.endswith("_pct"))


def test_by_range_errors():
    unknown = run("breakdown", GOOD, "--by", "range", "--range-names", "nope")
    assert unknown.exit_code == 2 and "no NVTX range is named 'nope'" in unknown.output
    two = run("breakdown", GOOD, GOOD, "--by", "range")
    assert two.exit_code == 2 and "one profile" in two.output
    no_nvtx = run("breakdown", PROFILES / "no_nvtx.sqlite", "--by", "range")
    assert no_nvtx.exit_code == 1 and "--trace=cuda,nvtx" in no_nvtx.output


def test_range_filters_keep_kernels_only():
    profile = PROFILES / "gpt_train.sqlite"
    rules = load_rules()
    expected_n, expected_ns = brute_force_range(profile, "backward")
    with nsys_analytics.open(profile) as p:
        inside = breakdown_report([p], rules=rules, range_name="backward", attribution="process")
        outside = breakdown_report([p], rules=rules, exclude_range_name="backward", attribution="process")
        everything = breakdown_report([p], rules=rules, memory_ops=False)

    def totals(report):
        rows = report.sections[0].result.to_records()
        return sum(r["instances"] for r in rows), sum(r["time_ns"] for r in rows)

    assert totals(inside) == (expected_n, expected_ns)
    assert tuple(map(sum, zip(totals(inside), totals(outside)))) == totals(everything)
    assert "memcpy/memset left out" in inside.sections[0].result.notes[0]


def test_by_range_is_remembered_for_the_file_and_its_options(tmp_path, monkeypatch):
    """With the cache on, `breakdown --by range` keeps its columns (summaries/*.breakdown): a second run prints the
    same without attributing a kernel; other options, or other rules, are another memo, computed afresh."""
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")
    args = ["breakdown", GOOD, "--by", "range", "--format", "json"]
    first = ok_output(*args)
    assert len(list((tmp_path / "cache" / "summaries").glob("*.breakdown"))) == 1

    from nsys_analytics.capabilities.breakdown import report as breakdown_module

    calls = []
    summarize = breakdown_module.summarize_ranges
    monkeypatch.setattr(breakdown_module, "summarize_ranges", lambda *a, **k: calls.append(a) or summarize(*a, **k))
    assert ok_output(*args) == first and calls == []
    ok_output(*args, "--basis", "gpu-busy")
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rule]]\nname = "all-matmul"\ncategory = "matmul"\npattern = "."\n')
    mine = json.loads(ok_output(*args, "--rules", rules))
    assert len(calls) == 2  # another basis, other rules: each computed
    assert json.loads(first) != mine  # every kernel is matmul under these rules: not the remembered columns


def test_range_open_time_counts_overlapping_instances_once():
    """`--basis wall` divides by how long each range was open: per process, the union of its instances (worked
    out by hand below), summed over processes; the first start orders the columns."""
    import duckdb

    from nsys_analytics.data import sql_files

    con = duckdb.connect()
    con.execute("CREATE TABLE _nvtx_ranges (pid INT, domain VARCHAR, text VARCHAR, name VARCHAR, start_ns BIGINT,"
                " end_ns BIGINT)")
    con.execute("""INSERT INTO _nvtx_ranges VALUES
        (1, NULL, 'a', ':a', 0, 10), (1, NULL, 'a', ':a', 5, 15), (1, NULL, 'a', ':a', 20, 25),
        (1, NULL, 'a', ':a', 21, 22),                  -- process 1: [0, 15] and [20, 25], 20 ns
        (2, NULL, 'a', ':a', 40, 44),                  -- process 2: 4 ns
        (1, NULL, 'b', ':b', 3, 3), (1, NULL, 'b', ':b', 7, 9),
        (1, 'd', 'b', 'd:b', 1, 100)""")
    rows = con.execute(sql_files.read("breakdown", "breakdown_range_names").text).fetchall()
    assert rows == [("a", 0, 24), ("b", 3, 2), ("d:b", 1, 99)]


def test_the_wall_basis_says_when_work_ran_on_after_its_range():
    """Wall basis of a range open 10 ms whose launches kept the GPU busy 30 ms (they ran on after it closed): the
    shares add up to 300 %, and the basis line says why; at 5 ms busy it does not."""
    from nsys_analytics.capabilities.breakdown.report import make_basis
    from nsys_analytics.capabilities.categories.data import NameTime

    def basis(busy_ms: float):
        row = NameTime("matmul", "gemm", (), 0, 3, int(busy_ms * 1e6), busy_ms * 1e6, 0, 1, "gemm")
        return make_basis("wall", [row], True, (10_000_000, "the time 'forward' was open"))

    over, under = basis(30), basis(5)
    assert over.total_ns == under.total_ns == 10_000_000
    assert "busy 30 ms, longer than that" in over.text and "past 100 %" in over.text
    assert "past 100 %" not in under.text
