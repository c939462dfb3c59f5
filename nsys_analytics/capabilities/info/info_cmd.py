"""`nsys-analytics info`."""

from __future__ import annotations

import json

import click

from .report import info_rows, info_text, profile_info
from ...core.result import Result
from ...cli.options import PROFILE_ARG, emit, output_options
from ...cli.outputs import deliver
from ...cli.profiles import open_profile


@click.command("info")
@PROFILE_ARG
@output_options
def command(profile, fmt, output):
    """What a profile holds: nsys version, capture, GPUs, processes, row counts, and what is missing.

    \b
    Examples:
      nsys-analytics info run.sqlite
      nsys-analytics info run.nsys-rep --format json
    """
    with open_profile(profile) as p:
        info = profile_info(p)
    if fmt == "table":
        text = info_text(info)
    elif fmt == "json":
        text = json.dumps(info, indent=2, default=str) + "\n"
    else:
        columns, rows = info_rows(info)
        emit(Result(columns, rows), fmt, output, [profile])
        return
    deliver(text, fmt, output)
