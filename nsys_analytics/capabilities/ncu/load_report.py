"""Read an `.ncu-rep` with NVIDIA's `ncu_report` module (PyPI `ncu-report`) into `ReportData`.

Every metric of every profiled result (kernel, range, graph, ...) in every range of the report, with
its value in base units as the report stores it. Reading costs about 6 ms per result of the `basic`
set, almost all of it in `ncu_report`, so large reports are read by several processes, each taking a
contiguous share of the results. Instance values (metrics with several values, e.g. the occupancy
graphs: about 1,750 values per kernel) cost as much again and are read only when asked for
(`load_instances`).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

from ...core.errors import ProfileError
from .container import Container, Process
from .data import DEFAULT_DOMAIN, INSTANCE_COLUMNS, WORKLOAD_TYPES, ReportData

# Kernel attributes that ncu keeps as metrics.
_LAUNCH = {
    "grid_x": "launch__grid_dim_x", "grid_y": "launch__grid_dim_y", "grid_z": "launch__grid_dim_z",
    "block_x": "launch__block_dim_x", "block_y": "launch__block_dim_y", "block_z": "launch__block_dim_z",
    "device": "launch__device_id", "context": "launch__context_id", "stream": "launch__stream_id",
}
_CC = ("device__attribute_compute_capability_major", "device__attribute_compute_capability_minor")
RESULTS_PER_WORKER = 250  # below this a second process costs more than it saves


def load(path: Path, container: Container, workers: int | None = None) -> ReportData:
    """All results of the report at `path` (already checked by `container.read_container`).

    `workers`: processes to read with (default: one per 250 results, at most one per CPU).
    """
    count = len(_items(_open(_import_ncu_report(), path)))
    workers = workers or min(_cpus(), max(1, count // RESULTS_PER_WORKER))
    try:
        data = _extract(path, 0, count) if workers <= 1 or count < 2 else _extract_in_parallel(path, count, workers)
    except (TypeError, UnicodeDecodeError) as e:  # ncu_report handing back a damaged name: not a str
        raise ProfileError(f"{path}: is corrupt: a result could not be read ({type(e).__name__}: damaged bytes); "
                           "copy the report again or profile again") from e
    if data.num_kernels and not any(data.kernels["name"]) and not data.metrics["metric"]:
        # the container parsed but its results hold nothing: damaged bytes read as empty messages
        raise ProfileError(f"{path}: is corrupt: its {data.num_kernels:,} result(s) hold no kernel name and no "
                           "metric (damaged bytes); copy the report again or profile again")
    _set_processes(data, container.result_processes, container.processes)
    data.info.update(_info(path, container))
    return data


def load_instances(path: Path) -> dict[str, list]:
    """`ncu_metric_instances` columns: every value of each metric that has more than one."""
    context = _open(_import_ncu_report(), path)
    rows: dict[str, list] = {name: [] for name in INSTANCE_COLUMNS}
    kernel_id = 0
    for range_id in range(context.num_ranges()):
        rng = context.range_by_idx(range_id)
        for action_id in range(rng.num_actions()):
            action = rng.action_by_idx(action_id)
            for name in action.metric_names():
                metric = action.metric_by_name(name)
                if metric.num_instances() > 1:
                    _add_instances(rows, metric, kernel_id, name)
            kernel_id += 1
    return rows


def _import_ncu_report():
    try:
        import ncu_report
    except ImportError as e:  # an incomplete install; ncu-report is a dependency
        raise ProfileError(f"reading .ncu-rep files needs the ncu-report package ({e}); pip install ncu-report") from e
    return ncu_report


def _open(ncu_report, path: Path):
    try:
        return ncu_report.load_report(str(path))
    except Exception as e:  # the module raises plain exceptions with the reason
        raise ProfileError(f"{path}: ncu_report could not read it ({e}); re-run ncu or update ncu-report") from e


def _items(context) -> list[tuple[int, int]]:
    """(range index, action index) of every result, in report order (= kernel id order)."""
    return [(r, a) for r in range(context.num_ranges()) for a in range(context.range_by_idx(r).num_actions())]


def _set_processes(data: ReportData, processes: list[Process], distinct: list[Process]) -> None:
    """pid, process name and host of each result, from the container's block headers.

    Range-replay results are not counted in the headers; when the report names one process only,
    they belong to it (as ncu's CSV says)."""
    fallback = distinct[0] if len(distinct) == 1 else Process(None, None, None)
    for k in range(data.num_kernels):
        process = processes[k] if k < len(processes) else fallback
        data.kernels["pid"][k] = process.pid
        data.kernels["process_name"][k] = _basename(process.executable)
        data.kernels["host"][k] = process.host


def _extract_in_parallel(path: Path, count: int, workers: int) -> ReportData:
    """Read `count` results with `workers` processes (`python -m` this module: no fork, no re-run of __main__)."""
    size = -(-count // workers)
    with tempfile.TemporaryDirectory(prefix="nsys-analytics-ncu-") as tmp:
        jobs = []
        for first in range(0, count, size):
            out = Path(tmp) / f"{first}.pickle"
            cmd = [sys.executable, "-m", __name__, str(path), str(first), str(min(first + size, count)), str(out)]
            jobs.append((subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=_worker_env()), out))
        parts = [_worker_result(process, out, path) for process, out in jobs]
    data = parts[0]
    for part in parts[1:]:
        data.extend(part)
    return data


def _cpus() -> int:
    """CPUs this process may run on (fewer than os.cpu_count() in a container with a CPU set)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _worker_env() -> dict[str, str]:
    """This environment, with the folder that holds nsys_analytics first on PYTHONPATH (run from a checkout)."""
    root = str(Path(__file__).resolve().parents[len(__package__.split("."))])  # the folder above nsys_analytics
    paths = [root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _worker_result(process: subprocess.Popen, out: Path, path: Path) -> ReportData:
    _, stderr = process.communicate()
    if process.returncode != 0 or not out.exists():
        last = (stderr or "").strip().splitlines()[-1:] or [f"exit code {process.returncode}"]
        raise ProfileError(f"{path}: reading it failed in a worker process ({last[0]})")
    with open(out, "rb") as f:
        return pickle.load(f)


def _extract(path: Path, first: int, last: int) -> ReportData:
    """Read results first..last-1 (in report order) of the report, in this process."""
    context = _open(_import_ncu_report(), path)
    data = ReportData()
    units: dict[str, str] = {}
    ranges: dict[int, object] = {}
    for kernel_id, (range_id, action_id) in enumerate(_items(context)[first:last], start=first):
        if range_id not in ranges:
            ranges[range_id] = context.range_by_idx(range_id)
        action = ranges[range_id].action_by_idx(action_id)
        numeric = _add_metrics(data, action, kernel_id, units)
        _add_kernel(data, action, (kernel_id, range_id, action_id), numeric)
        _add_nvtx(data, action.nvtx_state(), kernel_id)
    return data


def _add_kernel(data: ReportData, action, ids: tuple[int, int, int], numeric: dict) -> None:
    major, minor = (numeric.get(name) for name in _CC)
    workload_type = WORKLOAD_TYPES.get(action.workload_type(), str(action.workload_type()))
    launch = {column: _int_or_none(numeric.get(metric)) for column, metric in _LAUNCH.items()}
    if workload_type == "range":  # a range has no launch configuration or stream of its own (ncu: n/a)
        launch = {c: (v if c in ("device", "context") else None) for c, v in launch.items()}
    data.add_kernel(
        id=ids[0], range_id=ids[1], action_id=ids[2],
        workload_type=workload_type,
        name=action.name(action.NameBase_DEMANGLED), function=action.name(action.NameBase_FUNCTION),
        mangled_name=action.name(action.NameBase_MANGLED),
        cc=f"{int(major)}.{int(minor)}" if major is not None and minor is not None else None,
        **launch,
    )


def _add_metrics(data: ReportData, action, kernel_id: int, units: dict[str, str]) -> dict[str, float]:
    """Append every metric of one result; return {metric: numeric value} for the kernel columns.

    Calls the typed getters directly: `IMetric.value()` builds a dispatch table on every call and
    takes twice as long. A metric's unit is the same for every result, so it is read once.
    """
    import ncu_report

    m = ncu_report.IMetric
    doubles, integers, string = (m.ValueKind_DOUBLE, m.ValueKind_FLOAT), (m.ValueKind_UINT32, m.ValueKind_UINT64), \
        m.ValueKind_STRING
    kind, as_double, as_uint64, as_string = m.kind, m.as_double, m.as_uint64, m.as_string
    cols = data.metrics
    kernel_col, metric_col, value_col, text_col, unit_col = (
        cols["kernel_id"], cols["metric"], cols["value"], cols["text"], cols["unit"])
    by_name = action.metric_by_name
    numeric: dict[str, float] = {}
    for name in action.metric_names():
        metric = by_name(name)
        k = kind(metric)
        value = as_double(metric) if k in doubles else as_uint64(metric) if k in integers else None
        value_col.append(value)
        text_col.append(as_string(metric) if k == string else None)
        if value is not None:
            numeric[name] = value
        kernel_col.append(kernel_id)
        metric_col.append(name)
        unit = units.get(name)
        unit_col.append(unit if unit is not None else units.setdefault(name, metric.unit()))
    return numeric


def _add_instances(rows: dict[str, list], metric, kernel_id: int, name: str) -> None:
    ids = metric.correlation_ids() if metric.has_correlation_ids() else None
    for i in range(metric.num_instances()):
        value = metric.value(i)
        rows["kernel_id"].append(kernel_id)
        rows["metric"].append(name)
        rows["instance"].append(i)
        rows["value"].append(None if isinstance(value, str) else value)
        rows["correlation_id"].append(_int_or_none(ids.value(i)) if ids is not None else None)


def _add_nvtx(data: ReportData, state, kernel_id: int) -> None:
    """The push/pop stack (outermost first) and the open start/end ranges of each NVTX domain.

    ncu_report does not say which thread pushed the ranges (the CSV does): `tid` stays NULL here.
    """
    if state is None:
        return
    for domain_id in state.domains():
        domain = state.domain_by_id(domain_id)
        name = domain.name() or DEFAULT_DOMAIN
        for level in range(len(domain.push_pop_ranges())):
            data.add_nvtx(kernel_id, name, "push_pop", level, domain.push_pop_range(level).name(), None)
        for level in range(len(domain.start_end_ranges())):
            data.add_nvtx(kernel_id, name, "start_end", level, domain.start_end_range(level).name(), None)


def _info(path: Path, container: Container) -> dict[str, str]:
    info = {
        "source": str(path), "source_kind": "ncu-rep", "format_version": str(container.format_version),
        "tool_version": container.tool_version or "", "reader_version": reader_version(),
        "command_line": container.command_line or "",
    }
    info.update({f"session: {k}": v for k, v in container.session.items() if k != "Nsight Compute Target"})
    return info


def reader_version() -> str:
    """The installed ncu-report version ('2026.3.1'), or '' when unknown."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ncu-report")
    except PackageNotFoundError:  # not installed as a distribution (e.g. Nsight Compute's own copy on sys.path)
        return ""


def _basename(executable: str | None) -> str | None:
    return executable.rsplit("/", 1)[-1] if executable else None


def _int_or_none(value) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _worker_main(argv: list[str]) -> None:
    """`python -m nsys_analytics.capabilities.ncu.load_report REPORT FIRST LAST OUT.pickle`: one share of a parallel read."""
    path, first, last, out = Path(argv[0]), int(argv[1]), int(argv[2]), Path(argv[3])
    data = _extract(path, first, last)
    with open(out, "wb") as f:
        pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)


if __name__ == "__main__":
    _worker_main(sys.argv[1:])
