"""`diagnose` and NVTX: the ranges each finding happens in, and `--range` restricting the diagnosis."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.cli.main import cli
from nsys_analytics.capabilities.diagnose import NsysOptions, diagnose

from .conftest import PROFILES
from .test_diagnose_rules import GLOBAL_PID, PID, US, write_profile

GAPS_OVER_1MS = NsysOptions(gap_ms=1)


def profile_with_ranges(path: Path) -> Path:
    """Range ':busy' [0.9, 2.5) ms: kernels every 100 us. Range ':idle' [2.6, 10) ms, with ':wait' [3, 7) ms
    nested in it: one 5 ms GPU gap [2.99, 8) ms, then kernels again."""
    kernels = [(1_000 * US + i * 100 * US, 1_090 * US + i * 100 * US, 7, i + 1) for i in range(20)]
    kernels += [(8_000 * US + i * 100 * US, 8_090 * US + i * 100 * US, 7, i + 21) for i in range(10)]
    calls = [(s - 20 * US, s - 10 * US, c, 2) for s, _, _, c in kernels]
    write_profile(path, kernels, calls)
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE NVTX_EVENTS (start INTEGER, "end" INTEGER, eventType INTEGER, text TEXT, '
                "globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER)")
    con.executemany('INSERT INTO NVTX_EVENTS (start, "end", eventType, text, globalTid, domainId) '
                    "VALUES (?, ?, 59, ?, ?, 0)",
                    [(900 * US, 2_500 * US, "busy", GLOBAL_PID + PID),
                     (2_600 * US, 10_000 * US, "idle", GLOBAL_PID + PID),
                     (3_000 * US, 7_000 * US, "wait", GLOBAL_PID + PID)])
    con.commit()
    con.close()
    return path


def gap_findings(path: Path, range_name: str | None = None):
    with nsys_analytics.open(path) as p:
        return diagnose(p, ("gpu_gaps",), nsys_options=GAPS_OVER_1MS, range_name=range_name).findings


def test_a_finding_names_the_ranges_it_happens_in_outermost_first(tmp_path):
    [finding] = gap_findings(profile_with_ranges(tmp_path / "p.sqlite"))
    assert finding.windows == [(2_990 * US, 8_000 * US)]
    assert finding.ranges == [":idle", ":wait"]  # not ':busy', which ends before the gap


def test_range_restricts_the_diagnosis_to_its_span(tmp_path):
    path = profile_with_ranges(tmp_path / "p.sqlite")
    assert gap_findings(path, "busy") == []  # no gap inside ':busy'
    [finding] = gap_findings(path, ":idle")
    assert finding.ranges == [":idle", ":wait"]
    assert [f.rule for f in gap_findings(path, "i*")] == ["gpu_gaps"]  # a glob, as `kernels --range`


def test_range_in_the_cli_json(tmp_path):
    path = profile_with_ranges(tmp_path / "p.sqlite")
    result = CliRunner().invoke(cli, ["diagnose", str(path), "--rule", "gpu_gaps", "--gap", "1", "--range", "idle",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["range"] == {"name": "idle", "instances": 1, "from_ns": 2_600 * US, "to_ns": 10_000 * US}
    assert [f["ranges"] for f in report["findings"]] == [[":idle", ":wait"]]
    table = CliRunner().invoke(cli, ["diagnose", str(path), "--rule", "gpu_gaps", "--gap", "1"])
    assert "NVTX ranges" in table.output and ":idle, :wait" in table.output


def test_a_range_name_that_matches_nothing_is_a_usage_error(tmp_path):
    path = profile_with_ranges(tmp_path / "p.sqlite")
    result = CliRunner().invoke(cli, ["diagnose", str(path), "--range", "nope"])
    assert result.exit_code == 2
    assert "nope" in result.output and "':busy'" in result.output


def test_range_on_a_profile_without_nvtx_names_the_trace_option(tmp_path):
    kernels = [(1_000 * US, 1_090 * US, 7, 1), (8_000 * US, 8_090 * US, 7, 2)]
    path = write_profile(tmp_path / "p.sqlite", kernels, [(900 * US, 910 * US, 1, 2), (7_900 * US, 7_910 * US, 2, 2)])
    result = CliRunner().invoke(cli, ["diagnose", str(path), "--range", "step"])
    assert result.exit_code == 1
    assert "--trace=cuda,nvtx" in result.output
    [finding] = gap_findings(path)  # without --range, no NVTX is no error: the finding lists no range
    assert finding.ranges == []


def test_findings_on_a_real_profile_list_their_ranges():
    result = CliRunner().invoke(cli, ["diagnose", str(PROFILES / "gpt_train.sqlite"), "--format", "json"])
    assert result.exit_code == 0, result.output
    findings = json.loads(result.output)["findings"]
    with_ranges = [f for f in findings if f["ranges"]]
    assert with_ranges
    for f in with_ranges:
        assert len(f["ranges"]) == len(set(f["ranges"])) <= 5
        assert all(isinstance(r, str) and r for r in f["ranges"])


def test_finding_ranges_match_brute_force(tmp_path):
    """Random nested, crossing, equal and empty ranges of two processes, random finding windows (one finding of any
    process): the names and order attach_ranges gives equal a +1/-1 sweep over each finding's overlapping ranges,
    done in Python (the definition in docs/diagnose.md)."""
    import random

    from nsys_analytics.capabilities.diagnose.data import Window, prepare
    from nsys_analytics.capabilities.diagnose.findings import Finding
    from nsys_analytics.capabilities.diagnose.ranges import MAX_RANGES, attach_ranges

    rng = random.Random(3)
    path = write_profile(tmp_path / "p.sqlite", [(1_000, 2_000, 7, 1)], [])
    rows = []
    for i in range(3_000):
        start = rng.randrange(0, 1_000_000, 1_000)  # coarse: many equal starts and ends
        end = start + rng.choice([0, 1_000, 5_000, 20_000, 100_000, 400_000])
        tid = GLOBAL_PID + PID if i % 4 else (300 << 24) + 300
        rows.append((start, end, f"r{rng.randrange(40)}", tid))
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE NVTX_EVENTS (start INTEGER, "end" INTEGER, eventType INTEGER, text TEXT, '
                "globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER)")
    con.executemany('INSERT INTO NVTX_EVENTS (start, "end", eventType, text, globalTid, domainId) '
                    "VALUES (?, ?, 59, ?, ?, 0)", rows)
    con.commit()
    con.close()
    findings = []
    for i in range(12):
        windows = sorted((s, s + rng.choice([1, 3_000, 50_000, 600_000]))
                         for s in (rng.randrange(0, 1_000_000) for _ in range(rng.randrange(1, 4))))
        findings.append(Finding("r", "warning", "", "", 0, windows, {}, None if i == 5 else (PID if i % 3 else 300)))
    with nsys_analytics.open(path) as p:
        ranges = p.sql("SELECT range_id, pid, name, start_ns, end_ns FROM _nvtx_ranges").rows
        prepare(p, Window())
        attach_ranges(p, findings)

    for f in findings:
        hits = [r for r in ranges
                if (f.pid is None or r[1] == f.pid) and any(r[3] < e and r[4] > s for s, e in f.windows)]
        depth = {}
        for pid in {r[1] for r in hits}:
            edges = sorted([(r[3], 1, -r[4], r[0]) for r in hits if r[1] == pid]
                           + [(r[4], -1, -r[4], r[0]) for r in hits if r[1] == pid])
            level = 0
            for _, step, _, range_id in edges:
                level += step
                if step == 1:
                    depth[range_id] = level - 1
        best = {}
        for range_id, _, name, start, _ in hits:
            d, first = best.get(name, (depth[range_id], start))
            best[name] = (min(d, depth[range_id]), min(first, start))
        expected = [n for n, _ in sorted(best.items(), key=lambda kv: (kv[1][0], kv[1][1], kv[0]))][:MAX_RANGES]
        assert f.ranges == expected
    assert sum(len(f.ranges) == MAX_RANGES for f in findings) >= 4
