"""`nsys-analytics nvtx`."""

from __future__ import annotations

import click

from .report import nvtx_summary
from ...cli.options import PROFILE_ARG, output_options
from ...cli.profiles import open_profile
from ...output.write import write


@click.command("nvtx")
@PROFILE_ARG
@output_options
def command(profile, fmt, output):
    """Time per NVTX range name, equal to `nsys stats --report nvtx_sum`.

    Names are printed as nsys prints them: 'domain:text', ':text' in the default domain. Ranges left open
    at the end of the capture count up to the end, as in nsys.

    \b
    Examples:
      nsys-analytics nvtx run.sqlite
      nsys-analytics nvtx run.sqlite --format csv -o nvtx_sum.csv
    """
    with open_profile(profile) as p:
        write(nvtx_summary(p), fmt, output, inputs=[profile])
