"""Recognize Nsight Compute input (`.ncu-rep` reports, `ncu --csv --page raw` exports) and check it.

Every failure raises ProfileError with a one-line message: the file, what is wrong, what to do.
"""

from __future__ import annotations

import os
from pathlib import Path

from ...core.errors import ProfileError
from ...data.source import check_regular_file
from .container import KNOWN_FORMAT_VERSION, MAGIC, Container, read_container, tool_version_tuple

REPORT_SUFFIX = ".ncu-rep"
CSV_SUFFIX = ".csv"


def is_ncu_input(path: str | os.PathLike) -> bool:
    """True for a path that names Nsight Compute input: by suffix, or by the report's magic bytes."""
    p = Path(path)
    if p.suffix in (REPORT_SUFFIX, CSV_SUFFIX):
        return True
    if not p.is_file():  # never open a named pipe or a device to look
        return False
    try:
        with open(p, "rb") as f:
            return f.read(4) == MAGIC
    except OSError:
        return False


def check_path(path: str | os.PathLike) -> tuple[Path, str]:
    """(path, 'ncu-rep' | 'csv') after checking that the file exists and can be read."""
    p = Path(path).expanduser()
    check_regular_file(p, "an Nsight Compute report (.ncu-rep) or raw-page CSV")
    if p.stat().st_size == 0:
        raise ProfileError(f"{p}: is empty (0 bytes); re-run ncu (with -o for a report)")
    return p, "csv" if p.suffix == CSV_SUFFIX else "ncu-rep"


def check_report(path: Path, reader_version: str) -> Container:
    """The report's container headers; ProfileError for a foreign, truncated or too-new file."""
    container = read_container(path)
    made_by, reader = tool_version_tuple(container.tool_version), tool_version_tuple(reader_version)
    if made_by and reader and made_by[:3] > reader[:3]:
        raise ProfileError(_too_new(path, f"Nsight Compute {container.tool_version.split(' ')[0]}", reader_version))
    if container.truncated:
        raise ProfileError(f"{path}: is truncated or corrupt (its last block ends past the end of the file); "
                           "copy it again or re-run ncu")
    return container


def _too_new(path: Path, made_by: str, reader_version: str) -> str:
    return (f"{path}: was written by {made_by}, newer than this reader (ncu-report {reader_version or '?'}); "
            "upgrade it: pip install -U ncu-report")


def no_results_error(path: Path, container: Container, reader_version: str) -> ProfileError:
    """The error for a report in which the reader found nothing: too new a format, damaged, or really empty."""
    if container.format_version > KNOWN_FORMAT_VERSION:
        made_by = (f"a newer Nsight Compute (file format {container.format_version}, "
                   f"this reader knows {KNOWN_FORMAT_VERSION})")
        return ProfileError(_too_new(path, made_by, reader_version))
    if container.result_processes:  # the block headers count results that the reader could not find: damage
        return ProfileError(
            f"{path}: is corrupt (its block headers list {len(container.result_processes)} profiled results, but "
            "none could be read: damaged bytes); copy it again or re-run ncu"
        )
    return ProfileError(
        f"{path}: holds no profiled kernels or ranges (an empty report); re-run ncu with a -k / --nvtx-include / -c "
        "that matches some launches"
    )
