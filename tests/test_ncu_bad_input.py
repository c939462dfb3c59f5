"""Bad Nsight Compute input: one clear line saying what is wrong and what to do, and exit code 1 (2 for usage)."""

from __future__ import annotations

import shutil
import struct

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.cli.main import cli
from nsys_analytics.core.errors import ProfileError, UsageError

from .conftest import PROFILES
from .test_ncu_fixtures import NCU, open_report, report_path

HEADER_ONLY = b"NVR\x00" + struct.pack("<I", 2) + b"\x08"  # + the file format version (one byte)


def error_of(path) -> str:
    with pytest.raises(ProfileError) as e:
        nsys_analytics.open(path)
    message = str(e.value)
    assert "\n" not in message
    return message


def test_text_file_named_like_a_report(tmp_path):
    path = tmp_path / "notes.ncu-rep"
    path.write_text("hello\n" * 10)
    assert "is not an Nsight Compute report (no NVR header)" in error_of(path)


def test_nsys_export_named_like_a_report(tmp_path):
    path = tmp_path / "run.ncu-rep"
    shutil.copy(PROFILES / "no_nvtx.sqlite", path)
    assert "is not an Nsight Compute report" in error_of(path)


def test_empty_file(tmp_path):
    path = tmp_path / "empty.ncu-rep"
    path.write_bytes(b"")
    assert "is empty (0 bytes)" in error_of(path)


def test_truncated_report(tmp_path):
    data = report_path("matmul_full").read_bytes()
    path = tmp_path / "cut.ncu-rep"
    path.write_bytes(data[: len(data) // 2])
    assert "is truncated" in error_of(path)


def test_report_of_a_newer_nsight_compute(tmp_path):
    data = report_path("matmul_full").read_bytes()
    assert data.count(b"2025.3.1.0 (build") == 1
    path = tmp_path / "new.ncu-rep"
    path.write_bytes(data.replace(b"2025.3.1.0 (build", b"2099.1.0.0 (build"))
    message = error_of(path)
    assert "was written by Nsight Compute 2099.1.0.0, newer than this reader (ncu-report" in message
    assert "pip install -U ncu-report" in message


def test_newer_file_format_that_reads_as_nothing(tmp_path):
    path = tmp_path / "format99.ncu-rep"
    path.write_bytes(HEADER_ONLY + bytes([99]))
    assert "newer Nsight Compute (file format 99" in error_of(path)


def test_empty_report(tmp_path):
    path = tmp_path / "nothing.ncu-rep"
    path.write_bytes(HEADER_ONLY + bytes([7]))
    assert "holds no profiled kernels or ranges (an empty report)" in error_of(path)


def test_csv_that_is_not_an_ncu_export(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("a,b\n1,2\n")
    assert "is not an Nsight Compute CSV" in error_of(path)


def test_details_page_csv(tmp_path):
    path = tmp_path / "details.csv"
    path.write_text('"ID","Kernel Name","Section Name","Metric Name","Metric Unit","Metric Value"\n'
                    '"0","k","SOL","Duration","us","1.0"\n')
    assert "is a `--page details` export; export the raw page" in error_of(path)


def test_csv_without_rows(tmp_path):
    lines = (NCU / "matmul_full_raw.csv").read_text().splitlines()
    path = tmp_path / "header_only.csv"
    path.write_text("\n".join(lines[:2]) + "\n")
    assert "holds no profiled kernels" in error_of(path)


def test_csv_after_ncu_log_lines(tmp_path):
    """`ncu --csv` without -i prints the program's output and ncu's log before the CSV."""
    path = tmp_path / "with_log.csv"
    path.write_text("==PROF== Connected to process 1\nprogram output\n" + (NCU / "matmul_full_raw.csv").read_text())
    assert nsys_analytics.open(path).num_kernels == 4


def test_missing_file_and_directory(tmp_path):
    assert "no such file" in error_of(tmp_path / "gone.ncu-rep")
    folder = tmp_path / "dir.ncu-rep"
    folder.mkdir()
    assert "is a directory" in error_of(folder)


def test_unknown_metric_names_the_closest():
    from nsys_analytics.capabilities.ncu.analysis import Options, analyze

    with pytest.raises(UsageError) as e:
        analyze(open_report("matmul_full"), Options(metrics=["gpu__time_duraton.sum", "sm__throughput"]))
    message = str(e.value)
    assert message.startswith("metrics not in the report: 'gpu__time_duraton.sum' (closest: gpu__time_duration.sum,")
    assert "'sm__throughput' (closest: sm__throughput.avg" in message
    assert "--list-metrics" in message


def test_cli_exit_codes_and_one_line(tmp_path):
    path = tmp_path / "bad.ncu-rep"
    path.write_text("nope")
    result = CliRunner().invoke(cli, ["ncu", str(path)])
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and result.output.startswith("Error: ")
    full = str(report_path("matmul_full"))
    result = CliRunner().invoke(cli, ["ncu", full, "--metrics", "no_such_metric"])
    assert result.exit_code == 2 and "closest" in result.output


@pytest.mark.parametrize("command", [["kernels"], ["info"]])
def test_nsys_only_commands_keep_the_nsys_error(command):
    result = CliRunner().invoke(cli, [*command, str(report_path("matmul_full"))])
    assert result.exit_code == 1
    assert "is an Nsight Compute report, not an Nsight Systems export" in result.output
    assert "nsys-analytics ncu" in result.output
