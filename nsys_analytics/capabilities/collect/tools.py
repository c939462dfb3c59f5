"""Where the Nsight command-line tools are: `NSYS=` / `NCU=`, the PATH, then the usual install folders.

Nsight Systems ships its CLI in `/opt/nvidia/nsight-systems/<version>/bin` (and `target-linux-x64/`), CUDA
toolkits in `/usr/local/cuda*/bin`, and an Nsight Compute install carries an Nsight Systems CLI in
`host/target-linux-x64/`. Newest version first where several are installed.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ...core.errors import NsysAnalyticsError

# (environment variable, executable, install-folder globs, how to install)
NSYS_GLOBS = (
    "/opt/nvidia/nsight-systems*/*/bin/nsys",
    "/opt/nvidia/nsight-systems*/bin/nsys",
    "/opt/nvidia/nsight-systems*/*/target-linux-x64/nsys",
    "/opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys",
    "/usr/local/cuda*/bin/nsys",
)
NCU_GLOBS = (
    "/opt/nvidia/nsight-compute/*/ncu",
    "/usr/local/cuda*/nsight-compute*/ncu",
    "/usr/local/cuda*/bin/ncu",
)
INSTALL_HINT = {
    "nsys": "install Nsight Systems (https://developer.nvidia.com/nsight-systems, or the CUDA toolkit's "
            "`nsight-systems` package) or name it with NSYS=/path/to/nsys",
    "ncu": "install Nsight Compute (https://developer.nvidia.com/nsight-compute, or the CUDA toolkit's "
           "`nsight-compute` package) or name it with NCU=/path/to/ncu",
}


class ToolNotFound(NsysAnalyticsError):
    """No nsys / ncu executable was found."""


@dataclass(frozen=True)
class Tool:
    name: str  # "nsys" or "ncu"
    path: Path
    found_by: str  # "NSYS=", "PATH", or the install folder


def find_tool(name: str, env: dict[str, str] | None = None, globs: tuple[str, ...] | None = None) -> Tool:
    """The `name` executable ("nsys" or "ncu"): `$NSYS`/`$NCU`, then PATH, then the install globs."""
    env = os.environ if env is None else env
    variable = name.upper()
    globs = (NSYS_GLOBS if name == "nsys" else NCU_GLOBS) if globs is None else globs
    if env.get(variable):
        path = Path(env[variable]).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ToolNotFound(f"{variable}={env[variable]}: not an executable file; {INSTALL_HINT[name]}")
        return Tool(name, path, f"{variable}=")
    on_path = shutil.which(name, path=env.get("PATH", ""))
    if on_path:
        return Tool(name, Path(on_path), "PATH")
    for pattern in globs:
        hits = [Path(p) for p in glob.glob(pattern) if os.access(p, os.X_OK)]
        if hits:
            return Tool(name, max(hits, key=_version_key), pattern)
    looked = ", ".join([f"${variable}", "PATH", *globs])
    raise ToolNotFound(f"no {name} found (looked in {looked}); {INSTALL_HINT[name]}")


def _version_key(path: Path) -> tuple:
    """Sort key: the version numbers in the path (2025.3.1 > 2024.6.2 > 2024.6), then the path."""
    return tuple(int(n) for n in re.findall(r"\d+", str(path))), str(path)


def importer_beside(nsys: Path) -> Path | None:
    """The QdstrmImporter that converts an .qdstrm stream into an .nsys-rep, in nsys' install, if present."""
    root = nsys.resolve().parent.parent
    for pattern in ("*/QdstrmImporter", "host-linux-x64/QdstrmImporter"):
        hits = sorted(root.glob(pattern))
        if hits:
            return hits[0]
    return None
