"""`ReportData`: what a loader extracts from a report, as plain column lists, before DuckDB sees it.

Both loaders (`.ncu-rep` through ncu_report, `--page raw` CSV) fill the same columns; the tables
`ncu_kernels`, `ncu_nvtx`, `ncu_metrics` and `ncu_info` are made from them by `sql/ncu/*.sql`
(types and column docs live there); `ncu_metric_instances` is read on first use (INSTANCE_COLUMNS).
"""

from __future__ import annotations

from dataclasses import dataclass, field

KERNEL_COLUMNS = (
    "id", "range_id", "action_id", "workload_type", "name", "function", "mangled_name",
    "pid", "process_name", "host", "device", "context", "stream", "cc",
    "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
)
NVTX_COLUMNS = ("kernel_id", "domain", "kind", "level", "name", "tid")
METRIC_COLUMNS = ("kernel_id", "metric", "value", "text", "unit")
INSTANCE_COLUMNS = ("kernel_id", "metric", "instance", "value", "correlation_id")

WORKLOAD_TYPES = {0: "kernel", 1: "range", 2: "cmdlist", 3: "graph", 4: "subgrid_schedule"}
DEFAULT_DOMAIN = "<default domain>"


def _columns(names: tuple[str, ...]) -> dict[str, list]:
    return {name: [] for name in names}


@dataclass
class ReportData:
    """Columns of the report's tables, plus key/value facts about the report (`ncu_info`)."""

    kernels: dict[str, list] = field(default_factory=lambda: _columns(KERNEL_COLUMNS))
    nvtx: dict[str, list] = field(default_factory=lambda: _columns(NVTX_COLUMNS))
    metrics: dict[str, list] = field(default_factory=lambda: _columns(METRIC_COLUMNS))
    info: dict[str, str] = field(default_factory=dict)

    def add_kernel(self, **row) -> None:
        for name in KERNEL_COLUMNS:
            self.kernels[name].append(row.get(name))

    def add_nvtx(self, kernel_id: int, domain: str, kind: str, level: int, name: str, tid: int | None) -> None:
        for column, value in zip(NVTX_COLUMNS, (kernel_id, domain, kind, level, name, tid)):
            self.nvtx[column].append(value)

    def extend(self, other: ReportData) -> None:
        """Append the rows of `other` (results read by another process)."""
        for mine, theirs in ((self.kernels, other.kernels), (self.nvtx, other.nvtx), (self.metrics, other.metrics)):
            for name, values in theirs.items():
                mine[name].extend(values)

    @property
    def num_kernels(self) -> int:
        return len(self.kernels["id"])


def function_name(demangled: str) -> str:
    """The bare function name of a demangled kernel name, like ncu's `--print-kernel-base function`.

    'void at::<unnamed>::softmax_warp_forward<float, 8>(T2 *, int)' -> 'softmax_warp_forward'.
    """
    text = demangled.strip()
    if text.endswith(")"):
        text = text[: _open_of_last_group(text, "(", ")")]
    if text.endswith(">"):
        text = text[: _open_of_last_group(text, "<", ">")]
    text = text.split("::")[-1] if "::" in text else text
    return text.split(" ")[-1] or demangled


def _open_of_last_group(text: str, opening: str, closing: str) -> int:
    """Index of the bracket that opens the group closed by the last character."""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        if text[i] == closing:
            depth += 1
        elif text[i] == opening:
            depth -= 1
            if depth == 0:
                return i
    return len(text)
