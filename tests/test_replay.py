"""A report command run again with the same words on the same profile prints what it printed before without reading
the profile (cli/replay.py); anything its output depends on makes it run again. Real processes of the executable."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from .conftest import PROFILES


@pytest.fixture
def setup(tmp_path):
    profile = tmp_path / "train.sqlite"
    shutil.copyfile(PROFILES / "gpt_train.sqlite", profile)
    cache = tmp_path / "cache"
    env = {**os.environ, "NSYS_ANALYTICS_CACHE": str(cache), "NSYS_ANALYTICS_CACHE_MIN_SIZE": "0"}
    env.pop("NSYS_ANALYTICS_NO_CACHE", None)
    return profile, cache, env


def cli(env, *args, cwd=None):
    done = subprocess.run([sys.executable, "-m", "nsys_analytics", *map(str, args)], capture_output=True, env=env,
                          cwd=cwd)
    return done.returncode, done.stdout, done.stderr


def records(cache):
    return sorted((cache / "summaries").glob("*.replay")) if (cache / "summaries").is_dir() else []


def mark(record):
    """Put a marker into a record's output: a run that prints it was replayed from that record."""
    kept = json.loads(record.read_text())
    kept["stdout"] = "REPLAYED\n" + kept["stdout"]
    record.write_text(json.dumps(kept))


@pytest.mark.parametrize("command", [["kernels"], ["nvtx"], ["info"], ["diagnose", "--format", "json"],
                                     ["nvtx-kernels", "--format", "csv"], ["nvtx-gpu"]])
def test_a_second_run_prints_what_the_first_printed(setup, command):
    profile, cache, env = setup
    first = cli(env, command[0], profile, *command[1:])
    assert first[0] == 0 and first[1]
    [record] = records(cache)
    again = cli(env, command[0], profile, *command[1:])
    uncached = cli({**env, "NSYS_ANALYTICS_NO_CACHE": "1"}, command[0], profile, *command[1:])
    assert again == first == uncached
    mark(record)
    assert cli(env, command[0], profile, *command[1:])[1] == b"REPLAYED\n" + first[1]


def test_the_notes_and_the_exit_code_are_printed_again(setup):
    profile, cache, env = setup
    with sqlite3.connect(profile) as db:  # a kernel row that ends before it starts: a SKIPPED note on stderr
        db.execute('UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start - 5 WHERE rowid = 3')
    first = cli(env, "kernels", profile)
    assert first[0] == 0 and b"SKIPPED" in first[2]
    mark(records(cache)[0])
    again = cli(env, "kernels", profile)
    assert again[1].startswith(b"REPLAYED\n") and again[2] == first[2] and again[0] == 0


def test_other_words_settings_or_content_run_again(setup, tmp_path):
    profile, cache, env = setup
    cli(env, "kernels", profile)
    mark(records(cache)[0])
    assert b"REPLAYED" not in cli(env, "kernels", profile, "--limit", "2")[1]
    assert b"REPLAYED" not in cli({**env, "NSYS_ANALYTICS_MEMORY": "512MB"}, "kernels", profile)[1]
    assert b"REPLAYED" not in cli({**env, "COLUMNS": "60"}, "kernels", profile)[1]
    assert b"REPLAYED" not in cli(env, "kernels", profile.name, cwd=tmp_path)[1]  # the same file, other words
    # the same path with other content: what it prints now
    before = cli(env, "kernels", profile, "--format", "csv")[1]
    with sqlite3.connect(profile) as db:
        db.execute('UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = "end" + 1000000 WHERE rowid = 3')
    after = cli(env, "kernels", profile, "--format", "csv")
    assert after[0] == 0 and after[1] != before
    assert after == cli({**env, "NSYS_ANALYTICS_NO_CACHE": "1"}, "kernels", profile, "--format", "csv")


def test_what_is_not_kept(setup, tmp_path):
    profile, cache, env = setup
    out = tmp_path / "k.csv"
    assert cli(env, "kernels", profile, "--format", "csv", "-o", out)[0] == 0  # writes a file: runs every time
    assert cli(env, "--no-cache", "kernels", profile)[0] == 0
    assert cli({**env, "NSYS_ANALYTICS_NO_CACHE": "1"}, "kernels", profile)[0] == 0
    assert cli({**env, "NSYS_ANALYTICS_REPLAY": "0"}, "kernels", profile)[0] == 0
    assert cli(env, "diagnose", profile, "--fail-on", "warning")[0] == 4  # a failed run
    assert cli(env, "sql", profile, "SELECT 1")[0] == 0  # not a report command
    assert records(cache) == []


def test_a_profile_read_directly_is_replayed_too(setup):
    """Under the cache's minimum size the profile is read directly (no columnar cache), and its answer is kept."""
    profile, cache, env = setup
    env = {**env, "NSYS_ANALYTICS_CACHE_MIN_SIZE": "64M"}
    first = cli(env, "nvtx", profile)
    assert first[0] == 0 and first[1]
    [record] = records(cache)
    assert not (cache / "columnar").exists() or not any((cache / "columnar").iterdir())
    mark(record)
    assert cli(env, "nvtx", profile)[1] == b"REPLAYED\n" + first[1]


def test_a_damaged_record_is_run_again(setup):
    profile, cache, env = setup
    first = cli(env, "nvtx", profile)
    [record] = records(cache)
    record.write_text(record.read_text()[:40])
    assert cli(env, "nvtx", profile) == first
    assert json.loads(record.read_text())["stdout"] == first[1].decode()


def test_an_output_cut_off_by_a_closed_pipe_is_not_kept(setup):
    """`... | head`: the reader goes away, the command stops writing; what it had written is not the answer."""
    import fcntl

    profile, cache, env = setup
    read, write = os.pipe()
    fcntl.fcntl(write, 1031, 4096)  # F_SETPIPE_SZ: a pipe smaller than the output (34 kB of JSON)
    proc = subprocess.Popen([sys.executable, "-m", "nsys_analytics", "nvtx-gpu", str(profile), "--trace", "--format",
                             "json"], stdout=write, stderr=subprocess.DEVNULL, env=env)
    os.close(write)
    assert os.read(read, 100)
    os.close(read)
    proc.wait(timeout=120)
    assert records(cache) == []
    whole = cli(env, "nvtx-gpu", profile, "--trace", "--format", "json")
    assert len(whole[1]) > 4096 and whole == cli({**env, "NSYS_ANALYTICS_NO_CACHE": "1"}, "nvtx-gpu", profile,
                                                  "--trace", "--format", "json")
    assert len(records(cache)) == 1
