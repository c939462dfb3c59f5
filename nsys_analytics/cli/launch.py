"""The `nsys-analytics` executable: `runs add` forks its catalog process before the CLI is imported (catalog/writer.py),
a report answered before is replayed (replay.py), then main.run() runs the command."""

from __future__ import annotations

import sys


def run() -> None:
    if adds_runs(sys.argv[1:]):
        from ..capabilities.catalog.writer import fork_early

        fork_early()
    from .replay import replay_or_record

    recording = replay_or_record(sys.argv[1:])  # a command line answered before is printed again here, and exits
    from .main import run as run_command

    run_command(before_exit=recording.finish if recording is not None else None)


def adds_runs(args: list[str]) -> bool:
    """Whether the command line is `runs add` with something to add: the group's options are all flags, so the first
    two words that are not options name the command."""
    words = [a for a in args if not a.startswith("-")]
    return words[:2] == ["runs", "add"] and len(words) > 2 and not {"-h", "--help"} & set(args)
