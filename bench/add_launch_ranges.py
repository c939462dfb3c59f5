#!/usr/bin/env python3
"""Add an NVTX push/pop range around every CUDA API call that launched a kernel, as PyTorch's emit_nvtx() gives
every operator its range: a profile with about as many ranges as kernels, for the NVTX benchmarks.

    python bench/add_launch_ranges.py SRC.sqlite DST.sqlite

DST is a copy of SRC (SRC is only read). Each range starts 1 ns before its call and ends 1 ns after it, on the
call's thread, named aten::op_0 .. aten::op_6 by the kernel's name id. Standard library only.
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
from pathlib import Path

ADD_RANGES = """
INSERT INTO NVTX_EVENTS (start, "end", eventType, text, globalTid)
SELECT r.start - 1, r."end" + 1, 59, 'aten::op_' || (k.demangledName % 7), r.globalTid
FROM CUPTI_ACTIVITY_KIND_KERNEL AS k
JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = k.correlationId AND r.globalTid >> 24 = k.globalPid >> 24
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    args = parser.parse_args(argv)
    if args.target.exists():
        parser.error(f"{args.target} exists")
    shutil.copyfile(args.source, args.target)
    with sqlite3.connect(args.target) as con:
        added = con.execute(ADD_RANGES).rowcount
    print(f"{args.target}: {added:,} ranges added")
    return 0


if __name__ == "__main__":
    sys.exit(main())
