"""Where a change over the ranks of one job lies, rank by rank: each rank's change of compute kernel time (NCCL's
left out) and of NCCL's kernel time, and the rank the others wait for. A collective's kernels run until the last
rank arrives, so the rank whose NCCL time grew least is the one the others wait for; the ranks that wait can run
their own kernels slower beside the waiting collectives (fixtures/ranks: +13-20 ms per step on the waiting ranks of
a job whose rank 1 does 25 ms more work), so the sum over ranks overstates the work added. No I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .summary import run_kernel_ns

# report.py's Side (not imported: report imports the verdict, which imports this module); read by attribute only
Side = Any

LISTED = 4  # ranks named one by one in a sentence; more are summed up as a range of values


@dataclass(frozen=True)
class RankChange:
    rank: int
    compute_ns: float  # change of compute kernel time per step (new - base)
    nccl_ns: float  # change of NCCL kernel time per step


@dataclass(frozen=True)
class RankSplit:
    changes: list[RankChange]  # by rank
    paced_by: int | None  # the rank the others wait for (least NCCL growth), None without NCCL or a clear one

    def pace(self) -> RankChange | None:
        return next((c for c in self.changes if c.rank == self.paced_by), None)

    def words(self, signed_ms) -> str:
        """'rank 1 +25.1 ms (the others wait for it), rank 0 +13.5 ms': compute kernel time per rank, the largest
        change first; past LISTED ranks, the rest as a span."""
        ordered = sorted(self.changes, key=lambda c: (-abs(c.compute_ns), c.rank))
        shown = ordered if len(ordered) <= LISTED else ordered[:LISTED - 1]
        parts = [f"rank {c.rank} {signed_ms(c.compute_ns)}"
                 + (" (the others wait for it)" if c.rank == self.paced_by else "") for c in shown]
        rest = ordered[len(shown):]
        if rest:
            low, high = min(c.compute_ns for c in rest), max(c.compute_ns for c in rest)
            parts.append(f"{len(rest)} more ranks {signed_ms(low)} to {signed_ms(high)}")
        return ", ".join(parts)


def rank_split(b: Side, n: Side) -> RankSplit | None:
    """One run a side, the same ranks on both, two or more: each rank's changes, else None."""
    if len(b.runs) != 1 or len(n.runs) != 1 or b.unit != "per step" or n.unit != "per step":
        return None
    base, new = {p.rank: p for p in b.runs[0]}, {p.rank: p for p in n.runs[0]}
    if len(base) < 2 or base.keys() != new.keys():
        return None
    changes = []
    for rank in sorted(base):
        (cb, nb), (cn, nn) = _per_step([base[rank]]), _per_step([new[rank]])
        changes.append(RankChange(rank, cn - cb, nn - nb))
    paced_by = None
    if any(c.nccl_ns for c in changes):
        least = min(changes, key=lambda c: (c.nccl_ns, c.rank))
        others = [c.nccl_ns for c in changes if c.rank != least.rank]
        paced_by = least.rank if min(others) > least.nccl_ns else None
    return RankSplit(changes, paced_by)


def _per_step(rank: list) -> tuple[float, float]:
    """(compute, NCCL) kernel time per steady step of one rank."""
    compute = run_kernel_ns(rank, "per step", compute_only=True)
    return compute, run_kernel_ns(rank, "per step") - compute
