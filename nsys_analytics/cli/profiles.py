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


def note_one_rank(given, profile, by_rank: str = "") -> None:
    """Say on stderr when the one profile a command was given is one rank's file of a larger job (diagnose,
    breakdown, html read NCCL time that may be waiting), or holds the ranks of a launch, read as one profile
    (`by_rank`: the command line that reads them as ranks, where the command has --by-rank); not for a rank of a
    set the command reads whole."""
    from ..data.profile_set import one_rank_of_job, whole_launch_note

    if getattr(given, "is_rank", False) or not getattr(profile, "sqlite_path", None):
        return
    for note in (one_rank_of_job(profile.sqlite_path), whole_launch_note(profile.sqlite_path, by_rank)):
        if note:
            click.echo(escape_controls(f"Note: {profile.path}: {note}"), err=True)
