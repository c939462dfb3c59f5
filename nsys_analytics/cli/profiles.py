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


def note_one_rank(given, profile) -> None:
    """Say on stderr when the one profile a command was given is one rank's file of a larger job (diagnose,
    breakdown, html read NCCL time that may be waiting); not for a rank of a set the command reads whole."""
    from ..data.profile_set import one_rank_of_job

    if getattr(given, "is_rank", False) or not getattr(profile, "sqlite_path", None):
        return
    note = one_rank_of_job(profile.sqlite_path)
    if note:
        click.echo(escape_controls(f"Note: {profile.path}: {note}"), err=True)
