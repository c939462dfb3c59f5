"""`diff` per NVTX range when a kernel moved from one range to another between the runs: its old range reads
"moved out" and its new one "moved in", not "disappeared" and "appeared" (it ran as often as before); a kernel
that truly left the run keeps "disappeared", and the verdict tells that one, not the move. Two hand-made exports:
the same three steps, `k_moved` launched inside `loss` in the base and inside `backward` in the new run, 10 us each
time."""

from __future__ import annotations

import json

from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .test_nvtx_attribution import Launch, Profile, Range, write_profile


def step_profile(moved_into: str, with_gone: bool) -> Profile:
    """Three 1 ms steps, each `loss` (100-300 us) then `backward` (400-800 us): `k_common` in backward, `k_moved`
    in `moved_into`, and `k_gone` in backward where `with_gone`."""
    ranges, launches = [], []
    for i in range(3):
        t = 10_000 + i * 1_000_000
        spans = {"loss": (t + 100_000, t + 300_000), "backward": (t + 400_000, t + 800_000)}
        ranges += [Range(f"step_{i}", t, t + 1_000_000), *(Range(n, a, b) for n, (a, b) in spans.items())]
        b0 = spans["backward"][0]
        launches.append(Launch(b0 + 10_000, b0 + 20_000, [(b0 + 30_000, b0 + 50_000)], name="k_common"))
        m0 = spans[moved_into][0]
        launches.append(Launch(m0 + 60_000, m0 + 70_000, [(m0 + 80_000, m0 + 90_000)], name="k_moved"))
        if with_gone:
            launches.append(Launch(b0 + 200_000, b0 + 210_000, [(b0 + 220_000, b0 + 225_000)], name="k_gone"))
    return Profile(ranges, launches)


def test_a_kernel_that_moved_between_ranges_reads_moved(tmp_path):
    base = write_profile(tmp_path / "base.sqlite", step_profile("loss", with_gone=True))
    new = write_profile(tmp_path / "new.sqlite", step_profile("backward", with_gone=False))
    result = CliRunner().invoke(cli, ["diff", str(base), str(new), "--window", "all", "--attribution", "process",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    rows = {(r["name"], r["range"]): r for r in doc["kernels"]}
    out, into = rows[("k_moved", ":loss")], rows[("k_moved", ":backward")]
    assert out["status"] == "moved out" and into["status"] == "moved in"
    assert out["base_total_ns"] == into["new_total_ns"] == 30_000  # 3 x 10 us
    assert out["new_total_ns"] == into["base_total_ns"] == 0
    assert rows[("k_gone", ":backward")]["status"] == "disappeared"  # gone from the run: 3 x 5 us fewer
    assert rows[("k_common", ":backward")]["status"] == "same"
    # the kernel time fell by k_gone's 15 us in backward; the move changed where 30 us ran, not how long
    verdict = doc["verdict"]
    assert "0.105 ms -> 0.090 ms" in verdict  # 3 x (10 + 20 + 5) us, then 3 x (10 + 20)
    assert "mostly other kernels in :backward (-0.015 ms): gone: k_gone" in verdict, verdict
    assert ":loss" not in verdict and "k_moved" not in verdict, verdict
