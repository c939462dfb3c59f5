"""Every file a command writes (-o, --plot) is checked against its inputs before the command runs (core/files.py
writes them, whole)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

from ..core.files import check_output

OUTPUT_PARAMS = ("output", "plot", "plot_path")  # the options that name a file a command writes


def guarded(command):
    """`command` with its outputs checked against its inputs before it runs (idempotent)."""
    if getattr(command, "_outputs_guarded", False) or command.callback is None:
        return command
    callback = command.callback

    @functools.wraps(callback)
    def checked(*args, **kwargs):
        outputs = [Path(v) for k, v in kwargs.items() if k in OUTPUT_PARAMS and v]
        inputs = [p for k, v in kwargs.items() if k not in OUTPUT_PARAMS for p in _paths(v)]
        for output in outputs:
            check_output(output, inputs, folder=True)  # a folder output is the writer's to refuse
        return callback(*args, **kwargs)

    command.callback = checked
    command._outputs_guarded = True
    return command


def _paths(value) -> list[Path]:
    """The file paths in one parameter's value: paths, lists of them, ALIAS=PATH, open files."""
    if isinstance(value, (list, tuple)):
        return [p for v in value for p in _paths(v)]
    if isinstance(value, Path):
        return [value]
    if isinstance(value, str):
        candidate = value.partition("=")[2] if "=" in value else value
        return [Path(candidate)] if candidate and os.path.lexists(candidate) else []
    name = getattr(value, "name", None)  # a click.File
    return [Path(name)] if isinstance(name, str) and os.path.lexists(name) else []
