"""The cache folder: where every file nsys-analytics derives from a profile lives, never beside the profile.

`$NSYS_ANALYTICS_CACHE`, else `~/.cache/nsys-analytics`. Settings (environment):
  NSYS_ANALYTICS_CACHE            the folder
  NSYS_ANALYTICS_NO_CACHE=1       read profiles directly, never build or read a columnar cache (= --no-cache)
  NSYS_ANALYTICS_CACHE_MIN_SIZE   profiles smaller than this are read directly (default 4M; see docs/cache.md)
  NSYS_ANALYTICS_CACHE_MAX_SIZE   the folder's size bound; least recently used caches go first (default 20G)
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ...core.errors import UsageError

DEFAULT_MIN_SIZE = 4 * 2**20  # measured: the cache pays back within a few runs above it (docs/cache.md)
DEFAULT_MAX_SIZE = 20 * 2**30
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)
_disabled = False  # set by --no-cache


def cache_dir() -> Path:
    """The cache folder (not created): `$NSYS_ANALYTICS_CACHE`, else `~/.cache/nsys-analytics`; the one definition."""
    env = os.environ.get("NSYS_ANALYTICS_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "nsys-analytics"


def columnar_dir() -> Path:
    """Where the profiles' columnar caches live: `columnar/` in the cache folder."""
    return cache_dir() / "columnar"


def disable() -> None:
    """No columnar cache in this process (the CLI's --no-cache)."""
    global _disabled
    _disabled = True


def enabled() -> bool:
    return not _disabled and os.environ.get("NSYS_ANALYTICS_NO_CACHE", "") in ("", "0")


def min_size() -> int:
    return parse_size(os.environ.get("NSYS_ANALYTICS_CACHE_MIN_SIZE"), DEFAULT_MIN_SIZE, "NSYS_ANALYTICS_CACHE_MIN_SIZE")


def max_size() -> int:
    return parse_size(os.environ.get("NSYS_ANALYTICS_CACHE_MAX_SIZE"), DEFAULT_MAX_SIZE, "NSYS_ANALYTICS_CACHE_MAX_SIZE")


def parse_size(text: str | None, default: int, what: str) -> int:
    """'64M', '20G', '1.5GiB', '0' -> bytes."""
    if text is None or text == "":
        return default
    m = _SIZE.match(text)
    if not m:
        raise UsageError(f"{what}={text!r}: write a size such as 512M or 20G")
    return int(float(m.group(1)) * 1024 ** " kmgt".find(m.group(2).lower() or " "))
