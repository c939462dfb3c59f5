"""What `modules` reads from a profile, remembered in the cache folder so that a second run does not read it again.

Attributing a 1 M-kernel emit_nvtx profile's kernels to their module and op ranges (5.5 M NVTX ranges) takes
seconds even with the columnar cache built; what it yields is small: a few thousand kernel groups and forward ops.
They are kept as JSON in `summaries/<stem>-<path hash>-<key>.modules` in the cache folder, the key hashing the
file's identity (cache/identity.py) with the window options and FORMAT, and read back in milliseconds: `--depth`
and `--top` then fold and list them anew. As with diff/memo.py: only for profiles of at least the cache's minimum
size, only if the file did not change while it was read, gone with the profile's caches (`cache clear`), never
with `--no-cache`, and nothing is written beside the file.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import astuple, dataclass
from pathlib import Path

from .data import ForwardOp, KernelGroup

FORMAT = "modules-v3"  # change it when what data.py reads changes (v2: the chain of module ranges; v3: wall_ns)
KEEP = 64
MAX_BYTES = 16 * 2**20  # a larger one is computed each time


@dataclass(frozen=True)
class Inputs:
    """Everything `modules` reads from a profile for one window."""

    window: str  # the steady state's sentence
    steps: int   # step instances in it (0: the whole capture)
    wall_ns: int  # the window's wall time: its steps' span, or the capture's kernels' span (0: none)
    source: str
    groups: list[KernelGroup]
    forward: dict[tuple[int, int], ForwardOp]

    def to_json(self) -> dict:
        return {"window": self.window, "steps": self.steps, "wall_ns": self.wall_ns, "source": self.source,
                "groups": [astuple(g) for g in self.groups],
                "forward": [[pid, seq, *astuple(op)] for (pid, seq), op in self.forward.items()]}

    @classmethod
    def from_json(cls, d: dict) -> Inputs:
        return cls(str(d["window"]), int(d["steps"]), int(d["wall_ns"]), str(d["source"]),
                   [KernelGroup(*g) for g in d["groups"]],
                   {(pid, seq): ForwardOp(*op) for pid, seq, *op in d["forward"]})


def remembered(path: Path, options: tuple, compute: Callable[[], Inputs]) -> Inputs:
    """`compute()`, or what it returned before for the file's present content and these window `options`."""
    from ...data.cache.remembered import per_file

    salt = "\0".join([FORMAT, *map(str, options)])
    return per_file(path, "modules", salt, compute, _load, _dump, KEEP, MAX_BYTES)


def _load(text: str) -> Inputs | None:
    try:
        return Inputs.from_json(json.loads(text))
    except (ValueError, KeyError, TypeError):
        return None


def _dump(inputs: Inputs) -> str:
    return json.dumps(inputs.to_json(), separators=(",", ":"))
