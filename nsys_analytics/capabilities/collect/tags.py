"""Tags that say where a profile came from: the git commit of the working folder (and whether it had
uncommitted changes), the command line, the host and the GPUs."""

from __future__ import annotations

import shlex
import socket
import subprocess
from pathlib import Path


def git_state(folder: Path) -> dict[str, str]:
    """{'git_commit': sha, 'git_dirty': 'true'|'false'}, or {} outside a git work tree (or without git)."""
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, timeout=10,
                             check=False)
        if sha.returncode != 0:
            return {}
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=folder,
                                capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return {"git_commit": sha.stdout.strip(), "git_dirty": "true" if status.stdout.strip() else "false"}


def run_tags(command: list[str], folder: Path, gpus: list[str]) -> dict[str, str]:
    tags = {**git_state(folder), "command": shlex.join(command), "host": socket.gethostname()}
    if gpus:
        tags["gpu"] = ", ".join(dict.fromkeys(gpus))
    return tags
