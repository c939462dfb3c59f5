"""Structural measures of the package, for comparing two trees (e.g. before and after a reorganisation).

    python bench/structure.py [ROOT ...]      # default: this checkout

Prints, per tree: modules and lines, loose modules at the package root, rooms (sub-packages), rename call sites
outside the cache, `--format` declarations, temporary-file writers, hand-kept command lists, the names that the
NVTX attribution takes, and the start-up time of `--help` (median of 25 interleaved runs, `python -m nsys_analytics`).
"""

from __future__ import annotations

import ast
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
RUNS = 25


def python_files(root: Path) -> list[Path]:
    return sorted((root / "nsys_analytics").rglob("*.py"))


def count(root: Path, pattern: str, skip: tuple[str, ...] = ()) -> int:
    rx = re.compile(pattern)
    return sum(len(rx.findall(p.read_text())) for p in python_files(root)
               if not any(s in p.relative_to(root).as_posix() for s in skip))


def writer_modules(root: Path) -> int:
    """Modules that write a file by their own temporary-file-then-rename route, outside the cache's own files and
    core/files.py (the one writer)."""
    rx = re.compile(r"os\.replace\(|os\.rename\(|mkstemp\(")
    return sum(1 for p in python_files(root) if rx.search(p.read_text())
               and "/cache/" not in p.as_posix() and not p.as_posix().endswith("core/files.py"))


def command_lists(root: Path) -> int:
    """Dict or tuple literals in the CLI whose keys / items name three or more commands: lists kept by hand."""
    commands = {"info", "kernels", "nvtx", "nvtx-kernels", "breakdown", "diagnose", "ranks", "diff", "classify",
                "attention", "report", "ncu", "timeline", "html"}
    found = 0
    for path in python_files(root):
        if "/cli/" not in path.as_posix():
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
            if isinstance(node, (ast.Dict, ast.Tuple, ast.List, ast.Set)) and items:
                names = {k.value for k in items if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                found += len(names & commands) >= 3
    return found


def attribution_names(root: Path) -> list[str]:
    """The spellings the NVTX attribution takes from the option to the SQL (parameters, macro arguments, columns)."""
    spellings = r"\$mode\b|\bmode :=|\brange_mode\b|\bwant_mode\b|\$attribution\b|\battribution :=|\bwant_attribution\b"
    texts = [p.read_text() for p in python_files(root)] + [p.read_text() for p in sorted((root / "sql").rglob("*.sql"))]
    return sorted({m.group(0) for text in texts for m in re.finditer(spellings, text)})


def startup(roots: list[Path], runs: int = 15) -> dict[Path, float]:
    """Median seconds of `python -m nsys_analytics --help` per tree, the trees' runs interleaved (a busy machine
    slows them alike)."""
    times: dict[Path, list[float]] = {root: [] for root in roots}
    for _ in range(runs):
        for root in roots:
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "nsys_analytics", "--help"], cwd=root, capture_output=True,
                           check=True)
            times[root].append(time.perf_counter() - t)
    return {root: statistics.median(t) for root, t in times.items()}


def measure(root: Path) -> dict:
    package = root / "nsys_analytics"
    files = python_files(root)
    return {
        "modules": len(files),
        "lines": sum(len(p.read_text().splitlines()) for p in files),
        "loose root modules": len([p for p in package.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]),
        "rooms (packages)": len([p for p in package.iterdir() if (p / "__init__.py").exists()]),
        "modules writing files by their own rename": writer_modules(root),
        "--format declarations": count(root, r"\"--format\""),
        "hand-kept command lists": command_lists(root),
        "attribution spellings": ", ".join(attribution_names(root)),
    }


def main(roots: list[str]) -> None:
    trees = [Path(r).resolve() for r in roots] or [HERE]
    results = {str(t): measure(t) for t in trees}
    for tree, seconds in startup(trees, RUNS).items():
        results[str(tree)][f"--help start-up (s, median of {RUNS}, interleaved)"] = round(seconds, 3)
    width = max(len(k) for k in next(iter(results.values())))
    for key in next(iter(results.values())):
        print(f"{key:<{width}}  " + "  ".join(f"{str(r[key]):>24}" for r in results.values()))
    print("trees: " + "  ".join(results))


if __name__ == "__main__":
    main(sys.argv[1:])
