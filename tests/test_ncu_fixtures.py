"""The project's own ncu fixtures (fixtures/ncu/), decompressed once per test run; no tests here.

`report_path("matmul_basic")` -> a temporary `.ncu-rep` decompressed from fixtures/ncu/matmul_basic.ncu-rep.xz;
`open_report(name)` -> an `NcuReport` shared by the tests that only read it.
"""

from __future__ import annotations

import atexit
import lzma
import shutil
import tempfile
from functools import cache
from pathlib import Path

from nsys_analytics.capabilities.ncu.report import NcuReport

from .conftest import FIXTURES, SHARED

NCU = FIXTURES / "ncu"
SHARED_NCU = SHARED / "ncu"
REPORTS = ("matmul_basic", "matmul_full")
NSYS_PROFILE = NCU / "matmul_nsys.sqlite"


@cache
def scratch() -> Path:
    path = Path(tempfile.mkdtemp(prefix="nsys-analytics-ncu-tests-"))
    atexit.register(shutil.rmtree, path, True)
    return path


@cache
def report_path(name: str, folder: Path = NCU) -> Path:
    """The decompressed report fixtures/ncu/NAME.ncu-rep.xz (or FOLDER/NAME.ncu-rep.xz)."""
    target = scratch() / f"{name}.ncu-rep"
    with lzma.open(folder / f"{name}.ncu-rep.xz") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 22)
    return target


@cache
def open_report(name: str) -> NcuReport:
    """A shared, read-only NcuReport of a fixture (a .ncu-rep name, or a CSV file name in fixtures/ncu)."""
    return NcuReport(NCU / name if name.endswith(".csv") else report_path(name))


def raw_csv(name: str, base: bool = False, folder: Path = NCU) -> Path:
    return folder / f"{name}_raw{'_base' if base else ''}.csv"
