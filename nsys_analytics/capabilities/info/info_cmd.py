"""`nsys-analytics info`."""

from __future__ import annotations

import click

from .report import build
from ...cli.options import PROFILE_ARG, output_options
from ...cli.profiles import open_profile
from ...output.write import write


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
        p.build_cache = False  # counts and metadata: a scan of the export is faster than building the cache first
        report = build(p)
    write(report, fmt, output, inputs=[profile])
