"""The profiles a server was started with, each under a short name: the only files its tools may read."""

from __future__ import annotations

import os
from pathlib import Path

from ...core.errors import UsageError


class Served:
    """{name: absolute path} of the profiles named at start-up; a tool's `profile` argument is looked up here."""

    def __init__(self, paths: list[Path]):
        self.given = [str(p) for p in paths]
        self.paths = [Path(os.path.abspath(p)) for p in paths]
        self.names = _names(self.paths)

    def listing(self) -> list[dict]:
        return [{"name": n, "path": str(p)} for n, p in zip(self.names, self.paths)]

    def path(self, name: str) -> str:
        """The file of `name` (a name of `listing`, or the path as given at start-up); anything else is refused:
        no argument opens a file the server was not started with."""
        for n, given, p in zip(self.names, self.given, self.paths):
            if name in (n, given, str(p)):
                return str(p)
        raise UsageError(f"{name!r} is not one of this server's profiles ({', '.join(self.names)}): its tools read "
                         "only the profiles named when it started (`nsys-analytics mcp PROFILE...`)")


def _names(paths: list[Path]) -> list[str]:
    """Each file's name, or its path below the folder the paths share where two files have one name (rank0/a.sqlite,
    rank1/a.sqlite)."""
    names = [p.name for p in paths]
    if len(set(names)) == len(names):
        return names
    common = Path(os.path.commonpath(paths)) if len(paths) > 1 else paths[0].parent
    return [str(p.relative_to(common)) for p in paths]
