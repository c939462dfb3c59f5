"""Temporary files in the cache folder whose writer was killed (SIGKILL: no chance to remove them): found by the
process id in their names and removed."""

from __future__ import annotations

import re
from pathlib import Path

from ...core.files import pid_alive

# What this package's writers in the cache folder name their temporary files: `.<name>.<pid>[.<token>].partial<sfx>`
# (a copy, an export or a remembered result being written) and `.<name>.<pid>.<token>.private.sqlite` (a --no-cache
# WAL copy).
_OURS = re.compile(r"^\..+\.(\d+)\.(?:[a-z0-9_]{8}\.)?(?:partial|private)(?:\.[A-Za-z0-9-]+)?$")


def remove_partials(folder: Path) -> None:
    """Remove this package's temporary files in `folder` whose process is gone (killed while it wrote them)."""
    try:
        found = list(folder.iterdir())
    except OSError:
        return
    for path in found:
        m = _OURS.match(path.name)
        if m and not pid_alive(int(m.group(1))):
            path.unlink(missing_ok=True)
