"""`profile`: command lines, finding the tools, and every error path, with stand-in `nsys` / `ncu` scripts
(tests/fake_tools/) that run the program and then write a known fixture. They check the wiring, not results:
the headline's numbers are compared with NVIDIA's `nsys stats` oracle of the fixture the stand-in copies."""

from __future__ import annotations

import csv
import json
import os
import shutil
import sqlite3
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli
from nsys_analytics.capabilities.collect import commands, tools
from nsys_analytics.capabilities.collect.commands import NcuOptions, NsysOptions, Outputs

from .conftest import ORACLE, PROFILES
from .test_ncu_fixtures import report_path

FAKES = Path(__file__).parent / "fake_tools"
FIXTURE = PROFILES / "gpt_forward.sqlite"


def _install(src: Path, target: Path) -> Path:
    """A fake tool as an executable run by this interpreter."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"#!{sys.executable}\n" + src.read_text())
    target.chmod(target.stat().st_mode | stat.S_IXUSR)
    return target


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """A bin/ folder with nsys and ncu stand-ins on PATH (nothing else there), the install globs emptied."""
    bin_dir = tmp_path / "opt" / "bin"
    _install(FAKES / "nsys.py", bin_dir / "nsys")
    _install(FAKES / "ncu.py", bin_dir / "ncu")
    log = tmp_path / "calls.jsonl"
    monkeypatch.setattr(tools, "NSYS_GLOBS", ())
    monkeypatch.setattr(tools, "NCU_GLOBS", ())
    git = Path(shutil.which("git") or "/usr/bin/git").parent  # for the run's git tags
    env = {"PATH": os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), str(git)]),
           "FAKE_NSYS_LOG": str(log),
           "FAKE_NSYS_FIXTURE": str(FIXTURE), "NSYS": None, "NCU": None, "FAKE_NSYS_MODE": None,
           "FAKE_NCU_MODE": None, "FAKE_IMPORTER_OK": None}

    class Fake:
        root, bin, out = tmp_path / "opt", bin_dir, tmp_path / "runs"

        def run(self, *args, code=0, **more_env):
            result = CliRunner().invoke(cli, list(args), env={**env, **more_env}, catch_exceptions=False)
            assert result.exit_code == code, result.output
            return result

        def run_python(self, fn, more_env):
            """fn() with the stand-ins' environment in os.environ (for the Python API)."""
            with pytest.MonkeyPatch.context() as mp:
                for key, value in {**env, **more_env}.items():
                    mp.delenv(key, raising=False) if value is None else mp.setenv(key, value)
                return fn()

        def calls(self):
            return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    return Fake()


def program(tmp_path: Path, code: int = 0) -> list[str]:
    """A program that leaves a marker file, prints two lines and exits with `code`."""
    marker = tmp_path / "ran"
    code_text = (f"import sys; open({str(marker)!r}, 'w').write('x'); print('step 1 ok'); "
                 f"print('boom at step 2'); sys.exit({code})")
    return [sys.executable, "-c", code_text]


# -- command lines ---------------------------------------------------------------------------------------------
def test_nsys_command_states_every_default():
    out = Outputs(Path("runs"), "train")
    cmd = commands.nsys_profile(Path("/x/nsys"), NsysOptions(), out, ["python", "train.py"], force=False)
    assert cmd == ["/x/nsys", "profile", "--trace=cuda,nvtx", "--sample=none", "--cpuctxsw=none",
                   "--cuda-graph-trace=node", "--output", "runs/train", "--force-overwrite=false",
                   "python", "train.py"]


def test_nsys_range_capture_uses_nsys_spelling():
    cmd = commands.nsys_profile(Path("nsys"), NsysOptions(range_name="train_loop:step_3"), Outputs(Path("."), "a"),
                                ["./a.out"], force=True)
    assert "--capture-range=nvtx" in cmd and "--nvtx-capture=step_3@train_loop" in cmd
    assert "--capture-range-end=stop" in cmd and "--force-overwrite=true" in cmd
    assert commands.nvtx_capture("forward") == "forward"
    assert commands.nvtx_capture("step@dom") == "step@dom"


def test_export_and_ncu_commands():
    out = Outputs(Path("d"), "r")
    assert commands.nsys_export(Path("nsys"), out) == ["nsys", "export", "--type", "sqlite", "--output",
                                                       "d/r.sqlite", "--force-overwrite", "true", "d/r.nsys-rep"]
    cmd = commands.ncu_profile(Path("ncu"), NcuOptions("basic", "regex:gemm", 6, ["fwd/"], ["--cache-control", "all"]),
                               out, ["python", "b.py"], force=False)
    assert cmd == ["ncu", "--nvtx", "--set", "basic", "-k", "regex:gemm", "-c", "6", "--nvtx-include", "fwd/",
                   "-o", "d/r", "--cache-control", "all", "python", "b.py"]


@pytest.mark.parametrize("command, name", [
    (["python", "train.py", "--steps", "3"], "train"), (["python3", "-m", "pkg.bench"], "bench"),
    (["./a.out"], "a"), (["torchrun", "--nproc=2", "x/y z.py"], "y_z"),
])
def test_default_name(command, name):
    assert commands.default_name(command) == name


# -- finding the tools -----------------------------------------------------------------------------------------
def test_find_order_env_then_path_then_newest_install(tmp_path):
    for version in ("2024.6.2", "2025.3.1", "2025.1.0"):
        _install(FAKES / "nsys.py", tmp_path / f"nsight-systems-{version}" / "bin" / "nsys")
    on_path = _install(FAKES / "nsys.py", tmp_path / "path" / "nsys")
    globs = (str(tmp_path / "nsight-systems*" / "bin" / "nsys"),)
    found = tools.find_tool("nsys", {"PATH": str(tmp_path / "empty")}, globs)
    assert found.path.parent.parent.name == "nsight-systems-2025.3.1" and found.found_by == globs[0]
    assert tools.find_tool("nsys", {"PATH": str(on_path.parent)}, globs).path == on_path
    assert tools.find_tool("nsys", {"PATH": str(on_path.parent), "NSYS": str(found.path)}, globs).path == found.path


def test_no_tool_says_where_it_looked_and_how_to_install(fake):
    result = fake.run("profile", "--", sys.executable, "-c", "pass", code=1, PATH=str(fake.root / "empty"))
    assert "no nsys found (looked in $NSYS, PATH)" in result.output
    assert "install Nsight Systems" in result.output and "NSYS=/path/to/nsys" in result.output
    result = fake.run("profile", "--", "x", code=1, NSYS=str(fake.root / "missing"))
    assert "NSYS=" in result.output and "not an executable file" in result.output


def test_the_nsight_compute_bundled_nsys_is_found(tmp_path):
    bundled = _install(FAKES / "nsys.py", tmp_path / "nsight-compute" / "2025.3.1" / "host" / "target-linux-x64"
                       / "nsys")
    found = tools.find_tool("nsys", {"PATH": ""}, (str(tmp_path / "nsight-compute/*/host/target-linux-x64/nsys"),))
    assert found.path == bundled


# -- a run, end to end with the stand-in -----------------------------------------------------------------------
def test_profile_runs_nsys_exports_and_prints_the_headline(fake, tmp_path):
    result = fake.run("profile", "--dir", str(fake.out), "--format", "json", "--", *program(tmp_path))
    assert (tmp_path / "ran").exists()
    assert (fake.out / "python.nsys-rep").exists() and (fake.out / "python.sqlite").exists()
    profile_call, export_call = fake.calls()
    assert profile_call["argv"][:6] == ["profile", "--trace=cuda,nvtx", "--sample=none", "--cpuctxsw=none",
                                        "--cuda-graph-trace=node", "--output"]
    assert export_call["argv"][:3] == ["export", "--type", "sqlite"]
    doc = json.loads(result.stdout)
    top = doc["sections"]["kernels"]["tables"][0]["rows"][0]
    with open(ORACLE / "gpt_forward" / "gpt_forward_cuda_gpu_kern_sum.csv", newline="") as f:
        oracle = next(csv.DictReader(f))
    assert (top["total_time_ns"], top["instances"]) == (int(oracle["Total Time (ns)"]), int(oracle["Instances"]))
    assert "findings" in doc["sections"] and "info" in doc["sections"]
    inputs = "\n".join(doc["inputs"])
    assert f"file: {fake.out / 'python.sqlite'}" in inputs and "command: " in inputs and "host: " in inputs
    assert "gpu: NVIDIA H200" in inputs
    assert "step 1 ok" in result.stderr  # the program's output passes through, on stderr


def test_an_existing_report_is_never_replaced_without_force(fake, tmp_path):
    fake.out.mkdir()
    (fake.out / "mine.nsys-rep").write_text("precious")
    result = fake.run("profile", "--dir", str(fake.out), "--name", "mine", "--", *program(tmp_path), code=2)
    assert "mine.nsys-rep exists" in result.output and "--force" in result.output
    assert (fake.out / "mine.nsys-rep").read_text() == "precious" and not (tmp_path / "ran").exists()
    fake.run("profile", "--dir", str(fake.out), "--name", "mine", "--force", "--", *program(tmp_path))
    assert (fake.out / "mine.nsys-rep").read_text() == "fake report"
    assert "--force-overwrite=true" in fake.calls()[0]["argv"]


def test_range_capture_lets_nsys_match_plain_strings(fake, tmp_path):
    fake.run("profile", "--dir", str(fake.out), "--range", "step_2", "--", *program(tmp_path))
    call = fake.calls()[0]
    assert "--nvtx-capture=step_2" in call["argv"] and call["register_only"] == "0"


def test_program_failure_gives_its_code_and_last_lines(fake, tmp_path):
    result = fake.run("profile", "--dir", str(fake.out), "--", *program(tmp_path, code=7), code=1)
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    # the program's last lines, not nsys' own that followed them ('Generating ...', 'Generated:', the report)
    assert "the program exited with code 7; last lines: step 1 ok | boom at step 2 (the report" in error


def test_nsys_failure_gives_its_message(fake, tmp_path):
    result = fake.run("profile", "--dir", str(fake.out), "--", *program(tmp_path), code=1, FAKE_NSYS_MODE="fail")
    assert "nsys profile failed (exit code 1)" in result.stderr and "unrecognised option" in result.stderr


def test_a_raw_stream_without_report_explains_libdw(fake, tmp_path):
    result = fake.run("profile", "--dir", str(fake.out), "--", *program(tmp_path), code=1, FAKE_NSYS_MODE="qdstrm")
    assert "python.qdstrm but no .nsys-rep" in result.stderr and "libdw.so.1" in result.stderr
    # with nsys' importer beside it, the stream is converted: first failing as without libdw, then working
    _install(FAKES / "QdstrmImporter.py", fake.root / "host-linux-x64" / "QdstrmImporter")
    result = fake.run("profile", "--dir", str(fake.out), "--force", "--", *program(tmp_path), code=1,
                      FAKE_NSYS_MODE="qdstrm")
    assert "QdstrmImporter failed" in result.stderr and "libdw.so.1: cannot open" in result.stderr
    fake.run("profile", "--dir", str(fake.out), "--force", "--", *program(tmp_path), FAKE_NSYS_MODE="qdstrm",
             FAKE_IMPORTER_OK="1")
    assert (fake.out / "python.sqlite").exists()


def test_no_kernels_captured(fake, tmp_path):
    empty = tmp_path / "empty.sqlite"
    shutil.copyfile(FIXTURE, empty)
    with sqlite3.connect(empty) as con:
        con.execute("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL")
    result = fake.run("profile", "--dir", str(fake.out), "--", *program(tmp_path), code=1,
                      FAKE_NSYS_FIXTURE=str(empty))
    assert "no CUDA kernel was captured" in result.stderr and "WSL2" in result.stderr
    assert "--trace=cuda" in result.stderr


# -- ncu -------------------------------------------------------------------------------------------------------
def test_ncu_run_writes_the_report_and_shows_our_table(fake, tmp_path):
    result = fake.run("profile", "--ncu", "--dir", str(fake.out), "--name", "mm", "--set", "basic", "-k",
                      "regex:gemm", "-c", "4", "--nvtx-include", "matmul/", "--format", "json", "--",
                      *program(tmp_path),
                      FAKE_NCU_FIXTURE=str(report_path("matmul_basic")))
    assert (fake.out / "mm.ncu-rep").exists()
    assert fake.calls()[0]["argv"][:11] == ["--nvtx", "--set", "basic", "-k", "regex:gemm", "-c", "4",
                                            "--nvtx-include", "matmul/", "-o", str(fake.out / "mm")]
    rows = json.loads(result.stdout)
    with open(FAKES.parent.parent / "fixtures" / "ncu" / "matmul_basic_raw.csv", newline="") as f:
        oracle = list(csv.DictReader(f))[1:]  # ncu's own raw page of the same report; row 0 holds the units
    assert len(rows) == len(oracle) == 40
    assert [r["duration_ns"] for r in rows] == [float(o["gpu__time_duration.sum"]) * 1000 for o in oracle]  # us


def test_ncu_without_kernels_and_ncu_options_without_ncu(fake, tmp_path):
    result = fake.run("profile", "--ncu", "--dir", str(fake.out), "--", *program(tmp_path), code=1,
                      FAKE_NCU_MODE="nokernels")
    assert "ncu profiled no kernel" in result.stderr
    result = fake.run("profile", "-k", "gemm", "--", "python", "x.py", code=2)
    assert "-k is an ncu option: add --ncu" in result.output
    assert "Missing argument" in fake.run("profile", code=2).output


def test_catalog_stores_the_run_with_its_tags(fake, tmp_path):
    from nsys_analytics.capabilities.catalog.connect import Catalog
    from nsys_analytics.capabilities.catalog.data import list_runs, run_details

    db = f"sqlite:///{tmp_path / 'runs.db'}"
    args = ("profile", "--catalog", "--db", db, "--tag", "branch=exp", "--dir", str(fake.out), "--")
    result = fake.run(*args, *program(tmp_path))
    assert "added to the run catalog" in result.stderr
    (run,) = list_runs(Catalog(db))
    details = run_details(Catalog(db), run["id"])
    tags = details["tags"]
    assert tags["branch"] == "exp" and tags["gpu"] == "NVIDIA H200" and tags["host"]
    assert tags["command"].startswith(sys.executable) and "boom at step 2" in tags["command"]
    assert tags["git_dirty"] in ("true", "false") and len(tags["git_commit"]) == 40  # the tests run in a git tree
    assert details["findings"]  # stored as `runs add --diagnose` does
    result = fake.run(*args[:-1], "--force", "--", *program(tmp_path))
    assert "already in the run catalog" in result.stderr  # same content (the stand-in's fixture): stored once


def test_git_tags_of_the_working_folder(tmp_path, monkeypatch):
    import subprocess

    from nsys_analytics.capabilities.collect.tags import git_state

    assert git_state(tmp_path) == {}  # not a work tree
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run([*git, "init", "-q"], check=True)
    (tmp_path / "a.txt").write_text("1")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    sha = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    assert git_state(tmp_path) == {"git_commit": sha, "git_dirty": "false"}
    (tmp_path / "a.txt").write_text("2")
    assert git_state(tmp_path) == {"git_commit": sha, "git_dirty": "true"}
    (tmp_path / "a.txt").write_text("1")
    (tmp_path / "new.txt").write_text("untracked files do not make it dirty")
    assert git_state(tmp_path)["git_dirty"] == "false"


def test_catalog_options_are_checked_before_anything_runs(fake, tmp_path):
    assert "goes with --catalog" in fake.run("profile", "--tag", "a=b", "--", *program(tmp_path), code=2).output
    assert "write key=value" in fake.run("profile", "--catalog", "--tag", "ab", "--", *program(tmp_path),
                                         code=2).output
    assert "not go with --ncu" in fake.run("profile", "--catalog", "--ncu", "--", *program(tmp_path), code=2).output
    assert not (tmp_path / "ran").exists() and fake.calls() == []
