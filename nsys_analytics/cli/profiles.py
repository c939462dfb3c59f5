"""Opening the profiles a command names, with what the user should know about them on stderr."""

from __future__ import annotations

import click

from ..api import open as open_any_profile
from ..api import open_nsys
from ..output.render import escape_controls


def open_profile(path):
    """An Nsight Systems profile (Nsight Compute input is refused); notes about its data go to stderr."""
    return _noted(open_nsys(path))


def open_any(path):
    """An Nsight Systems profile or an Nsight Compute report (for `sql`)."""
    return _noted(open_any_profile(path))


def _noted(profile):
    """The profile, which says on stderr how many kernel rows it leaves out when it first reads its kernels."""
    if hasattr(profile, "on_note"):
        profile.on_note = lambda note: click.echo(escape_controls(f"Note: {profile.path}: {note}"), err=True)
    return profile
