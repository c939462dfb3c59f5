#!/usr/bin/env python3
"""Check a scaled profile against its source with Nsight Systems' own ``nsys stats``.

    python bench/verify_scale.py SRC.sqlite SCALED.sqlite --copies N [--nsys nsys]

For gpukernsum, nvtxsum and nvtxkernsum (2022.4 report names) every row of the scaled file must
have N times the instances and N times the total time of the same row of the source, and the
same min, max, median, mean and time share. Exit status 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import tempfile
from pathlib import Path

# report -> (key columns, columns multiplied by N, columns that must not change)
REPORTS: dict[str, tuple[list[str], list[str], list[str]]] = {
    "gpukernsum": (
        ["GridXYZ", "BlockXYZ", "Name"],
        ["Instances", "Total Time (ns)"],
        ["Time (%)", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)"],
    ),
    "nvtxsum": (
        ["Style", "Range"],
        ["Instances", "Total Time (ns)"],
        ["Time (%)", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)"],
    ),
    "nvtxkernsum": (
        ["NVTX Range", "Style", "PID", "TID", "Kernel Name"],
        ["NVTX Inst", "Kern Inst", "Total Time (ns)"],
        ["Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)"],
    ),
}
Rows = dict[tuple[str, ...], dict[str, str]]


def run_report(nsys: str, report: str, sqlite: Path, out_dir: Path) -> Path | None:
    """Run one ``nsys stats`` report to CSV; None when nsys skips it (no such data)."""
    prefix = out_dir / f"{sqlite.stem}"
    subprocess.run(
        [
            nsys,
            "stats",
            "--report",
            report,
            "--format",
            "csv",
            "-o",
            str(prefix),
            "--force-overwrite",
            "true",
            str(sqlite),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    path = out_dir / f"{sqlite.stem}_{report}.csv"
    return path if path.exists() and path.stat().st_size > 0 else None


def load(path: Path, keys: list[str]) -> Rows:
    """CSV rows keyed by the ``keys`` columns."""
    with path.open(newline="") as f:
        return {tuple(row[k] for k in keys): row for row in csv.DictReader(f)}


def same_number(a: str, b: str) -> bool:
    """Equal up to the last printed decimal (nsys prints means with one decimal)."""
    return abs(float(a) - float(b)) <= 0.1 + 1e-9


def compare(src: Rows, scaled: Rows, copies: int, scaled_cols: list[str], fixed_cols: list[str]) -> list[str]:
    """Descriptions of every mismatch between the two reports."""
    if src.keys() != scaled.keys():
        return [f"different rows: {sorted(set(src) ^ set(scaled))[:5]}"]
    problems = []
    for key, a in src.items():
        b = scaled[key]
        bad = [c for c in scaled_cols if int(b[c]) != copies * int(a[c])]
        bad += [c for c in fixed_cols if not same_number(a[c], b[c])]
        if bad:
            problems.append(f"{key}: {', '.join(f'{c} {a[c]} -> {b[c]}' for c in bad)}")
    return problems


def verify(nsys: str, src: Path, scaled: Path, copies: int) -> bool:
    """Run every report on both files, print one line per report; True when all match."""
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for report, (keys, scaled_cols, fixed_cols) in REPORTS.items():
            out_src, out_scaled = Path(tmp, "src"), Path(tmp, "scaled")
            out_src.mkdir(exist_ok=True)
            out_scaled.mkdir(exist_ok=True)
            a = run_report(nsys, report, src, out_src)
            b = run_report(nsys, report, scaled, out_scaled)
            if a is None or b is None:
                print(f"{report}: skipped (no data)" if a is b else f"{report}: only one has data")
                ok &= a is b
                continue
            rows = load(a, keys)
            problems = compare(rows, load(b, keys), copies, scaled_cols, fixed_cols)
            print(
                f"{report}: {len(rows)} rows, {len(problems)} mismatches "
                f"({' and '.join(scaled_cols)} x{copies})"
            )
            for line in problems[:10]:
                print(f"  {line}")
            ok &= not problems
    return ok


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("src", type=Path)
    p.add_argument("scaled", type=Path)
    p.add_argument("--copies", type=int, required=True)
    p.add_argument("--nsys", default="nsys", help="nsys executable (2022.4 report names)")
    args = p.parse_args(argv)
    return 0 if verify(args.nsys, args.src, args.scaled, args.copies) else 1


if __name__ == "__main__":
    sys.exit(main())
