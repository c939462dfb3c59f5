"""The `nsys-analytics` executable: `runs add` forks its catalog process before the CLI is imported (catalog/writer.py),
then main.run() runs the command."""

from __future__ import annotations

import sys


def run() -> None:
    if adds_runs(sys.argv[1:]):
        from ..capabilities.catalog.writer import fork_early

        fork_early()
    from .main import run as run_command

    run_command()


def adds_runs(args: list[str]) -> bool:
    """Whether the command line is `runs add` with something to add: the group's options are all flags, so the first
    two words that are not options name the command."""
    words = [a for a in args if not a.startswith("-")]
    return words[:2] == ["runs", "add"] and len(words) > 2 and not {"-h", "--help"} & set(args)
