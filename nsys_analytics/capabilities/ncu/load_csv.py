"""Read `ncu -i R --csv --page raw` output (with or without `--print-units base`) into `ReportData`.

The export has a header row, a unit row and one row per result. The first columns describe the
result (ID, process, NVTX state, kernel name, launch configuration); every other column is a metric.
Values are converted to base units with the unit row, so a CSV and its report give the same tables.
The CSV has no mangled names and no instance values.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from ...core.errors import ProfileError
from .data import DEFAULT_DOMAIN, ReportData, function_name
from .units import to_base

_ATTRIBUTES = {
    "ID": "id", "Process ID": "pid", "Process Name": "process_name", "Host Name": "host",
    "Kernel Name": "name", "Context": "context", "Stream": "stream", "Device": "device", "CC": "cc",
}
_PUSH_POP = "thread Domain:Push/Pop_Range"
_START_END = "Id:Domain:Start/Stop_Range"
_NUMBER = re.compile(r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_QUOTED = re.compile(r'"([^"]*)"')
_DIMS = re.compile(r"\((\d+),\s*(\d+),\s*(\d+)\)")
_NVTX_TAIL_FIELDS = 6  # after the range name: PL_Type, PL_Value, CLR_Type, Color, Msg_Type, Msg
_NO_VALUE = ("nan", "no data")  # how ncu prints a metric without a value (a report holds no value for it)


def load(path: Path) -> ReportData:
    """The results of a raw-page CSV export."""
    rows = _rows(path)
    header, units, body = rows[0], rows[1], rows[2:]
    if not body:
        raise ProfileError(f"{path}: holds no profiled kernels (a header and no rows); re-run ncu with a -k / -c "
                           "that matches some launches")
    data = ReportData()
    attribute_cols = {i: _ATTRIBUTES[h] for i, h in enumerate(header) if h in _ATTRIBUTES}
    special = {i for i, h in enumerate(header) if h.startswith((_PUSH_POP, _START_END, "Block Size", "Grid Size"))}
    metric_cols = [i for i in range(len(header)) if i not in attribute_cols and i not in special]
    for n, row in enumerate(body):
        kernel_id = _add_kernel(data, header, row, attribute_cols, n)
        _add_metrics(data, kernel_id, row, header, units, metric_cols)
    data.info.update({"source": str(path), "source_kind": "csv", "units": _unit_style(units)})
    return data


def _rows(path: Path) -> list[list[str]]:
    """Header, unit and value rows; anything before the header (ncu's log lines) is skipped."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID",')), None)
    if start is None:
        raise ProfileError(f"{path}: is not an Nsight Compute CSV (no \"ID\" header row); export one with "
                           "`ncu -i R.ncu-rep --csv --page raw > R.csv`, or pass the .ncu-rep")
    rows = list(csv.reader(lines[start:]))
    header = rows[0]
    if "Metric Name" in header and "Metric Value" in header:
        raise ProfileError(f"{path}: is a `--page details` export; export the raw page instead: "
                           "`ncu -i R.ncu-rep --csv --page raw > R.csv`")
    if len(rows) < 2 or len(rows[1]) != len(header):
        raise ProfileError(f"{path}: has no unit row after the header; export it with `--csv --page raw`")
    return [r for r in rows if r]


def _add_kernel(data: ReportData, header: list[str], row: list[str], attribute_cols: dict[int, str], n: int) -> int:
    values = {name: row[i] for i, name in attribute_cols.items() if i < len(row)}
    kernel_id = _int(values.get("id"))
    kernel_id = n if kernel_id is None else kernel_id
    grid = block = (None, None, None)
    for i, h in enumerate(header):
        if h.startswith("Grid Size"):
            grid = _dims(row[i])
        elif h.startswith("Block Size"):
            block = _dims(row[i])
        elif h.startswith(_PUSH_POP):
            _add_push_pop(data, kernel_id, row[i])
        elif h.startswith(_START_END):
            _add_start_end(data, kernel_id, row[i])
    name = values.get("name") or ""
    data.add_kernel(
        id=kernel_id, range_id=0, action_id=n, workload_type="kernel", name=name, function=function_name(name),
        mangled_name=None, pid=_int(values.get("pid")), process_name=values.get("process_name") or None,
        host=values.get("host") or None, device=_int(values.get("device")), context=_int(values.get("context")),
        stream=_int(values.get("stream")), cc=values.get("cc") or None,
        grid_x=grid[0], grid_y=grid[1], grid_z=grid[2], block_x=block[0], block_y=block[1], block_z=block[2],
    )
    return kernel_id


def _add_metrics(data: ReportData, kernel_id: int, row: list[str], header: list[str], units: list[str],
                 metric_cols: list[int]) -> None:
    cols = data.metrics
    for i in metric_cols:
        cell = row[i] if i < len(row) else ""
        if cell == "":
            continue  # not collected for this result
        base, factor = to_base(units[i])
        number = _number(cell)
        cols["kernel_id"].append(kernel_id)
        cols["metric"].append(header[i])
        cols["value"].append(number * factor if number is not None else None)
        cols["text"].append(None if number is not None or cell in _NO_VALUE else cell)
        cols["unit"].append(base)


def _add_push_pop(data: ReportData, kernel_id: int, cell: str) -> None:
    """'484  "<default domain>:outer:none:…:outer"  "<default domain>:inner:…"' (outermost first)."""
    tid = _int(cell.strip().split(" ", 1)[0]) if cell.strip() else None
    levels: dict[str, int] = {}
    for item in _QUOTED.findall(cell):
        domain, _, rest = item.partition(":")
        level = levels.get(domain, 0)
        levels[domain] = level + 1
        data.add_nvtx(kernel_id, domain or DEFAULT_DOMAIN, "push_pop", level, _range_name(rest), tid)


def _add_start_end(data: ReportData, kernel_id: int, cell: str) -> None:
    """' "0:domain:name:none:…:name" ' (the leading number is the range id)."""
    levels: dict[str, int] = {}
    for item in _QUOTED.findall(cell):
        _, _, item = item.partition(":")
        domain, _, rest = item.partition(":")
        level = levels.get(domain, 0)
        levels[domain] = level + 1
        data.add_nvtx(kernel_id, domain or DEFAULT_DOMAIN, "start_end", level, _range_name(rest), None)


def _range_name(rest: str) -> str:
    """'name:none:none:RGB:0xff:REGISTERED:name' -> 'name', also when the name holds colons (it is repeated
    as the message at the end, so it spans (parts - 6) / 2 of the colon-separated parts)."""
    parts = rest.split(":")
    if len(parts) <= _NVTX_TAIL_FIELDS:
        return parts[0]
    span = max(1, (len(parts) - _NVTX_TAIL_FIELDS + 1) // 2)
    return ":".join(parts[:span])


def _number(cell: str) -> float | int | None:
    if not _NUMBER.fullmatch(cell):
        return None
    text = cell.replace(",", "")
    return float(text) if any(c in text for c in ".eE") else int(text)


def _int(text: str | None) -> int | None:
    number = _number(text) if text else None
    return int(number) if number is not None else None


def _dims(cell: str) -> tuple[int | None, int | None, int | None]:
    m = _DIMS.search(cell)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else (None, None, None)


def _unit_style(units: list[str]) -> str:
    """'base' when the export was made with --print-units base (no scaled unit in the unit row)."""
    return "base" if all(to_base(u)[1] == 1.0 for u in units) else "auto"
