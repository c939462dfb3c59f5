"""Merges over ranks that run a command's own body per rank (CLI glue, so not in capabilities/ranks/merges.py)."""

from __future__ import annotations

from .many import diagnose_set


def diagnose(pset, **options):
    """diagnose over many ranks: the cross-rank findings, then each rank's own (cli/many.diagnose_set)."""
    from ..core.registry import find

    return diagnose_set(pset, find("diagnose").module, options)
