"""Structural measures of the package, for comparing two trees (e.g. before and after a reorganisation).

    python bench/structure.py [ROOT ...]      # default: this checkout

Prints, per tree: modules and lines, loose modules at the package root, rooms (sub-packages), rename call sites
outside the cache, `--format` declarations, temporary-file writers, hand-kept command lists, the names that the
NVTX attribution takes, and the start-up time of `--help` (median of 15 runs, `python -m nsys_analytics`).
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


def python_files(root: Path) -> list[Path]:
    return sorted((root / "nsys_analytics").rglob("*.py"))


def count(root: Path, pattern: str, skip: tuple[str, ...] = ()) -> int:
    rx = re.compile(pattern)
    return sum(len(rx.findall(p.read_text())) for p in python_files(root)
               if not any(s in p.relative_to(root).as_posix() for s in skip))


def command_lists(root: Path) -> int:
    """Dict or tuple literals whose keys / items name three or more commands: lists kept by hand."""
    commands = {"info", "kernels", "nvtx", "nvtx-kernels", "breakdown", "diagnose", "ranks", "diff", "classify",
                "attention", "report", "ncu", "timeline", "html"}
    found = 0
    for path in python_files(root):
        for node in ast.walk(ast.parse(path.read_text())):
            items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
            if isinstance(node, (ast.Dict, ast.Tuple, ast.List, ast.Set)) and items:
                names = {k.value for k in items if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                found += len(names & commands) >= 3
    return found


def attribution_names(root: Path) -> list[str]:
    names = {"attribution", "mode", "range_mode", "want_mode", "attribute"}
    seen = set()
    texts = [p.read_text() for p in python_files(root)] + [p.read_text() for p in sorted((root / "sql").rglob("*.sql"))]
    for text in texts:
        for m in re.finditer(r"\$?\b(" + "|".join(names) + r")\b(?=\s*(?::=|=|,|\)|:))", text):
            seen.add(m.group(0))
    return sorted(seen)


def startup(root: Path, runs: int = 15) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "nsys_analytics", "--help"], cwd=root, capture_output=True, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def measure(root: Path) -> dict:
    package = root / "nsys_analytics"
    files = python_files(root)
    return {
        "modules": len(files),
        "lines": sum(len(p.read_text().splitlines()) for p in files),
        "loose root modules": len([p for p in package.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]),
        "rooms (packages)": len([p for p in package.iterdir() if (p / "__init__.py").exists()]),
        "os.replace / rename outside cache/": count(root, r"os\.replace\(|os\.rename\(", skip=("/cache/",)),
        "temporary-file writers (mkstemp)": count(root, r"mkstemp\("),
        "--format declarations": count(root, r"\"--format\""),
        "hand-kept command lists": command_lists(root),
        "attribution spellings": ", ".join(attribution_names(root)),
        "--help start-up (s, median of 15)": round(startup(root), 3),
    }


def main(roots: list[str]) -> None:
    trees = [Path(r).resolve() for r in roots] or [HERE]
    results = {str(t): measure(t) for t in trees}
    width = max(len(k) for k in next(iter(results.values())))
    for key in next(iter(results.values())):
        print(f"{key:<{width}}  " + "  ".join(f"{str(r[key]):>24}" for r in results.values()))
    print("trees: " + "  ".join(results))


if __name__ == "__main__":
    main(sys.argv[1:])
