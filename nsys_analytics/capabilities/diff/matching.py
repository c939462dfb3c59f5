"""How `diff` lines up the two sides: NVTX range families (`step_0`, `step_1`, ... as instances of `step_*`), each
kernel's range context, and "variant" pairs of kernels that disappeared and appeared in the same category and range
(a new cuBLAS tile, a Triton autotune pick, cutlass -> nvjet). Pure Python, no I/O."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

_DIGITS = re.compile(r"\d+")
STEP_WORD = re.compile(r"(^|[^a-z])(step|iter|iteration|batch)([^a-z]|$)", re.IGNORECASE)  # a step-like range
_TEMPLATE = re.compile(r"<[^<>]*>")
_ARGS = re.compile(r"\(.*\)\s*$")


def range_families(names: Iterable[str]) -> dict[str, str]:
    """{range name: family}: names that differ only in numbers (`train_loop:step_0`, `step_1`) become one family
    named with `*` for the numbers (`train_loop:step_*`) when at least two such names exist; others keep theirs."""
    names = set(names)
    patterns: dict[str, set[str]] = defaultdict(set)
    for name in names:
        patterns[_DIGITS.sub("*", name)].add(name)
    return {name: (p if len(group) > 1 else name) for p, group in patterns.items() for name in group}


def step_family(totals: dict[str, float]) -> str | None:
    """The step-like range family (a name with step, iter, iteration or batch as a word) holding the most time,
    from {range name: its summed duration}; None where no name is step-like."""
    families = range_families(totals)
    time: dict[str, float] = defaultdict(float)
    for name, ns in totals.items():
        time[families[name]] += ns
    return max((f for f in time if STEP_WORD.search(f)), key=lambda f: (time[f], f), default=None)


def variant_key(name: str) -> str:
    """A kernel name without template arguments, argument list and numbers: what stays when only a tile size,
    a template parameter or a launch configuration changes."""
    key = _ARGS.sub("", name)
    while _TEMPLATE.search(key):
        key = _TEMPLATE.sub("", key)
    return _DIGITS.sub("#", key)


def pair_variants(gone: list[tuple[str, str, str | None, int]],
                  came: list[tuple[str, str, str | None, int]]) -> list[tuple[str, str]]:
    """Pair kernels that disappeared (`gone`) with kernels that appeared (`came`), each given as (name, category,
    range context, total ns). Only kernels of the same category and range context pair; within one, names with the
    same `variant_key` first, then the heaviest with the heaviest. Returns (gone name, came name) pairs."""
    groups: dict[tuple[str, str | None], tuple[list, list]] = defaultdict(lambda: ([], []))
    for side, rows in ((0, gone), (1, came)):
        for name, category, context, total in sorted(rows, key=lambda r: (-r[3], r[0])):
            groups[(category, context)][side].append(name)
    pairs = []
    for key in sorted(groups, key=str):
        old, new = groups[key]
        for name in list(old):  # same key first
            match = next((n for n in new if variant_key(n) == variant_key(name)), None)
            if match is not None:
                pairs.append((name, match))
                old.remove(name)
                new.remove(match)
        pairs += list(zip(old, new))
    return pairs


def pair_renamed(base: dict[str, tuple[int, set[str]]], new: dict[str, tuple[int, set[str]]],
                 min_overlap: float = 0.5) -> list[tuple[str, str]]:
    """Range families renamed between the sides: each given as {family: (instances, kernel names it holds)}. A
    family only in BASE pairs with one only in NEW that has as many instances and whose kernel names overlap most
    (Jaccard index >= min_overlap; without kernels, the only candidate with that instance count)."""
    gone = sorted(f for f in base if f not in new)
    came = [f for f in new if f not in base]
    pairs = []
    for old in gone:
        count, kernels = base[old]
        candidates = [c for c in came if new[c][0] == count]
        if not kernels:
            best = candidates[0] if len(candidates) == 1 and not new[candidates[0]][1] else None
        else:
            scored = [(_jaccard(kernels, new[c][1]), c) for c in candidates]
            score, best = max(scored, key=lambda sc: (sc[0], sc[1]), default=(0.0, None))
            best = best if score >= min_overlap else None
        if best is not None:
            pairs.append((old, best))
            came.remove(best)
    return pairs


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0
