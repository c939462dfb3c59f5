"""An `.ncu-rep` with flipped bytes is called corrupt (one line, exit 1), never "an empty report": its block headers
still count the results that `ncu_report` then cannot find."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import nsys_analytics
from nsys_analytics.cli.main import cli
from nsys_analytics.core.errors import ProfileError
from nsys_analytics.capabilities.ncu.container import read_container

from .test_ncu_fixtures import report_path


@pytest.fixture(scope="module")
def basic() -> bytes:
    return report_path("matmul_basic").read_bytes()


def _flipped(data: bytes, start: int, count: int, path):
    damaged = bytearray(data)
    for i in range(start, start + count):
        damaged[i] ^= 0xFF
    path.write_bytes(bytes(damaged))
    return path


def test_the_fixture_counts_40_results_in_its_headers(basic, tmp_path):
    """The independent count the messages rely on: `ncu_report` itself reads 40 results from the sound file."""
    import ncu_report

    context = ncu_report.load_report(str(report_path("matmul_basic")))
    results = sum(context.range_by_idx(r).num_actions() for r in range(context.num_ranges()))
    assert results == 40 == len(read_container(report_path("matmul_basic")).result_processes)


@pytest.mark.parametrize("start", [16, 40])
def test_flipped_bytes_that_hide_every_result_say_corrupt(basic, tmp_path, start):
    path = _flipped(basic, start, 64, tmp_path / "flipped.ncu-rep")
    with pytest.raises(ProfileError) as e:
        nsys_analytics.open(path)
    assert "is corrupt" in str(e.value) and "40 profiled results" in str(e.value)
    assert "empty report" not in str(e.value)
    result = CliRunner().invoke(cli, ["ncu", str(path)])
    assert result.exit_code == 1 and result.output.count("\n") == 1 and "is corrupt" in result.output


def test_a_damaged_file_header_says_corrupt_not_truncated(basic, tmp_path):
    path = _flipped(basic, 8, 2, tmp_path / "header.ncu-rep")  # the 2-byte file header: format version field
    with pytest.raises(ProfileError) as e:
        nsys_analytics.open(path)
    assert "is corrupt" in str(e.value) and "truncated" not in str(e.value)


def test_flips_anywhere_in_the_headers_never_read_as_an_empty_report(basic, tmp_path):
    """8 flipped bytes at each of 17 places of the first 400: the report reads whole, or the message says what
    happened (corrupt, truncated); an empty report it is not."""
    outcomes = {"read": 0, "refused": 0}
    for start in range(8, 400, 24):
        path = _flipped(basic, start, 8, tmp_path / f"at_{start}.ncu-rep")
        try:
            report = nsys_analytics.open(path)
        except ProfileError as e:
            message = str(e)
            assert "empty report" not in message and ("corrupt" in message or "truncated" in message), message
            assert "\n" not in message
            outcomes["refused"] += 1
        else:
            assert report.num_kernels == 40
            outcomes["read"] += 1
    assert outcomes["refused"] >= 3, outcomes


def test_a_report_with_no_results_is_still_an_empty_report(tmp_path):
    import struct

    path = tmp_path / "nothing.ncu-rep"
    path.write_bytes(b"NVR\x00" + struct.pack("<I", 2) + b"\x08\x07")
    with pytest.raises(ProfileError) as e:
        nsys_analytics.open(path)
    assert "an empty report" in str(e.value)


@pytest.mark.parametrize("name, seed", [("matmul_full", 2), ("matmul_full", 3), ("matmul_basic", 10)])
def test_bytes_damaged_all_over_say_corrupt(tmp_path, name, seed):
    """3,000 bytes changed past the file header (seeded): the container still parses, but its results hold no name
    and no metric (read as one all-empty row, exit 0), or ncu_report hands back a name that is no text (an
    internal error, exit 3). Either way: corrupt, one line, exit 1."""
    import random

    rng = random.Random(seed)
    data = bytearray(report_path(name).read_bytes())
    for i in rng.sample(range(100, len(data)), 3000):
        data[i] ^= rng.randrange(1, 256)
    path = tmp_path / "damaged.ncu-rep"
    path.write_bytes(bytes(data))
    result = CliRunner().invoke(cli, ["ncu", str(path), "--format", "json"])
    assert result.exit_code == 1 and result.output.count("\n") == 1 and "is corrupt" in result.output, result.output
