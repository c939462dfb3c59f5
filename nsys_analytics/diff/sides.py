"""The two sides of `diff` from its arguments: `BASE NEW`, or `--base A B ... --new C D ...` for several ranks."""

from __future__ import annotations

from ..errors import UsageError


def split_sides(args: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """`A B` -> ([A], [B]); `--base A B --new C D` -> ([A, B], [C, D])."""
    if "--base" not in args and "--new" not in args:
        if len(args) != 2:
            raise UsageError("give BASE NEW, or several profiles per side as --base A B ... --new C D ...")
        return [args[0]], [args[1]]
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
    return sides["--base"], sides["--new"]
