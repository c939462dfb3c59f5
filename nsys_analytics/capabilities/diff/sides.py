"""The two sides of `diff` from its arguments: `BASE NEW`, `--base A B ... --new C D ...` for several ranks, or
`A1 A2 ... --vs B1 B2 ...` for several runs per side; and whether the sides match."""

from __future__ import annotations

import glob
from pathlib import Path

from ...core.errors import UsageError


def split_sides(args: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """`A B` -> ([A], [B]); `--base A B --new C D` -> ([A, B], [C, D]). A folder of rank files stands for its
    profiles (one run's ranks): `diff before/ after/`."""
    if "--base" not in args and "--new" not in args:
        if len(args) != 2:
            raise UsageError("give BASE NEW, or several profiles per side as --base A B ... --new C D ...")
        return ranks_of(args[0]), ranks_of(args[1])
    if "--base" not in args or "--new" not in args:
        raise UsageError("with several profiles per side give both --base A ... and --new C ...")
    sides: dict[str, list[str]] = {"--base": [], "--new": []}
    current = None
    for arg in args:
        if arg in sides:
            current = arg
        elif current is None:
            raise UsageError(f"{arg}: put it after --base or --new")
        else:
            sides[current].append(arg)
    if not sides["--base"] or not sides["--new"]:
        raise UsageError("--base and --new each need at least one profile")
    return ([p for arg in sides["--base"] for p in ranks_of(arg)],
            [p for arg in sides["--new"] for p in ranks_of(arg)])


def ranks_of(arg: str) -> list[str]:
    """A folder of nsys profiles -> its profiles, sorted (a run's ranks; ProfileSet's reading of a folder); anything
    else, a columnar export's folder included, as given (opening it says what is wrong)."""
    path = Path(arg)
    if not path.is_dir():
        return [arg]
    from ...data import columnar
    from ...data.profile_set import expand_inputs, refuse_folder_of_runs

    if columnar.is_export_dir(path):
        return [arg]
    files = expand_inputs([arg]).files
    if not files:
        refuse_folder_of_runs([path])
    return [str(f) for f in files] or [arg]


def split_runs(args: tuple[str, ...]) -> tuple[list[list[str]], list[list[str]]]:
    """The runs of each side: `A1 A2 --vs B1 B2` (each a profile, a folder of one run's rank files, or a glob of
    profiles, one run each), else `split_sides` (one run per side, of one or more ranks). A profile given twice on
    one side is refused (`refuse_repeats`)."""
    base_runs, new_runs = _split_runs(args)
    for runs, side in ((base_runs, "base"), (new_runs, "new")):
        refuse_repeats(runs, side)
        refuse_ranks_as_runs(runs, side)
    return base_runs, new_runs


def refuse_ranks_as_runs(runs: list[list[str]], side: str,
                         how: str = "give a job's ranks as one run, --base A.0 A.1 --new B.0 B.1") -> None:
    """UsageError when two runs of one side are ranks of one job (the same torchrun launch): a job's ranks share
    its step time, so Welch's t would find no spread between them and call any difference beyond noise (identical
    FSDP jobs, their ranks given as runs: p = 0.00044). `how`: what to do instead."""
    if len(runs) < 2:
        return
    from ...data.profile_set import launch_of

    seen: dict[tuple[str, int], str] = {}
    for run in runs:
        if len(run) != 1 or not Path(run[0]).is_file() or not run[0].endswith(".sqlite"):
            continue
        launch = launch_of(run[0])
        if launch is None:
            continue
        if launch in seen:
            where = f" on the {side} side" if side else ""
            raise UsageError(f"{seen[launch]} and {run[0]}{where} are ranks of one job (torchrun launch {launch[0]}, "
                             f"WORLD_SIZE {launch[1]}), not separate runs: {how}")
        seen[launch] = run[0]


def refuse_repeats(runs: list[list[str]], side: str) -> None:
    """UsageError when one side names a run twice, by its path or as a byte-identical copy: one capture counted as
    two runs has no spread, and any difference would read as beyond noise. Two captures are never byte-identical.
    Both sides may name the same profile (it reads as no change)."""
    if len(runs) < 2:  # one run: nothing to repeat, and no file read for it
        return
    from ...data.cache.digest import content_digest

    seen: dict[tuple[str, ...], list[str]] = {}
    for run in runs:
        if not all(Path(p).is_file() or Path(p).is_dir() for p in run):
            continue  # missing, a pipe, a socket: reading it says what is wrong (a pipe is never read twice)
        try:
            key = tuple(content_digest(p) for p in run)
        except OSError:
            continue  # unreadable (no permission): opening it says so
        if key in seen:
            first, again = " ".join(seen[key]), " ".join(run)
            same = "given twice" if [Path(p).resolve() for p in seen[key]] == [Path(p).resolve() for p in run] \
                else "identical copies"
            raise UsageError(f"{first} and {again} on the {side} side are one run ({same}): give each run once; "
                             "repeated runs are separate captures")
        seen[key] = run


def _split_runs(args: tuple[str, ...]) -> tuple[list[list[str]], list[list[str]]]:
    if "--vs" not in args:
        base, new = split_sides(args)
        return [base], [new]
    if args.count("--vs") > 1 or "--base" in args or "--new" in args:
        raise UsageError("give runs as A1 A2 ... --vs B1 B2 ... (one --vs, no --base/--new)")
    at = args.index("--vs")
    base, new = _expand(args[:at]), _expand(args[at + 1:])
    if not base or not new:
        raise UsageError("--vs needs at least one profile on each side: A1 A2 ... --vs B1 B2 ...")
    return [ranks_of(p) for p in base], [ranks_of(p) for p in new]


def _expand(items: tuple[str, ...]) -> list[str]:
    """Profiles and globs (`'runs/a_*.sqlite'`, quoted so the shell leaves it) -> profiles, sorted per glob."""
    out: list[str] = []
    for item in items:
        if any(ch in item for ch in "*?[") and not Path(item).exists():
            hits = sorted(glob.glob(item))
            if not hits:
                raise UsageError(f"{item}: matches no file")
            out += hits
        else:
            out.append(item)
    return out


def mismatch(base_runs: list[list], new_runs: list[list]) -> str | None:
    """Why the two sides cannot be compared as they are (runs of different rank counts: a missing rank would read
    as a change), or None. Runs are lists of per-rank summaries."""
    counts = {"base": sorted({len(r) for r in base_runs}), "new": sorted({len(r) for r in new_runs})}
    if len(set(counts["base"]) | set(counts["new"])) <= 1:
        return None
    words = {side: " or ".join(str(c) for c in found) for side, found in counts.items()}
    return (f"the sides do not match: base runs have {words['base']} rank(s), new runs {words['new']} (a missing "
            "rank reads as a change); compare runs of the same world size (--strict refuses)")
