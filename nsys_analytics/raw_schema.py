"""The raw nsys tables and columns the normalized views read, with their types.

nsys adds, renames and drops columns between versions and exports a table only when it has rows.
`compat.<TABLE>` views (built from this list) always have every column listed here: a column the file
lacks is NULL, a table the file lacks is empty. The views in sql/views read only compat.* tables, so
version differences live here alone. `rowid` is SQLite's row id (every nsys table has one): nsys' own
reports use it as the id of a kernel, a copy or an NVTX range.
"""

from __future__ import annotations

I, T, F = "BIGINT", "VARCHAR", "DOUBLE"

_EVENT = {"start": I, "end": I, "deviceId": I, "contextId": I, "streamId": I, "correlationId": I, "globalPid": I}

RAW_TABLES: dict[str, dict[str, str]] = {
    "StringIds": {"id": I, "value": T},
    "CUPTI_ACTIVITY_KIND_KERNEL": {
        **_EVENT,
        "demangledName": I, "shortName": I, "mangledName": I, "launchType": I, "registersPerThread": I,
        "gridX": I, "gridY": I, "gridZ": I, "blockX": I, "blockY": I, "blockZ": I,
        "staticSharedMemory": I, "dynamicSharedMemory": I, "localMemoryTotal": I,
        "graphNodeId": I, "graphId": I, "rowid": I,
    },
    "CUPTI_ACTIVITY_KIND_RUNTIME": {
        "start": I, "end": I, "globalTid": I, "correlationId": I, "nameId": I, "returnValue": I,
    },
    "CUPTI_ACTIVITY_KIND_DRIVER": {
        "start": I, "end": I, "globalTid": I, "correlationId": I, "nameId": I, "returnValue": I,
    },
    "CUPTI_ACTIVITY_KIND_MEMCPY": {
        **_EVENT, "bytes": I, "copyKind": I, "srcKind": I, "dstKind": I, "graphNodeId": I, "rowid": I,
        "greenContextId": I, "srcDeviceId": I, "dstDeviceId": I,
    },
    "CUPTI_ACTIVITY_KIND_MEMSET": {
        **_EVENT, "bytes": I, "value": I, "memKind": I, "graphNodeId": I, "rowid": I, "greenContextId": I,
    },
    # Whole CUDA graph executions (`nsys profile --cuda-graph-trace=graph`, nsys' default): the graph's kernels are
    # then not in CUPTI_ACTIVITY_KIND_KERNEL, only each execution of the graph.
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE": {**_EVENT, "graphId": I, "graphExecId": I, "greenContextId": I, "rowid": I},
    # CUDA profiling overhead: nsys' expert rules count it as GPU time.
    "PROFILER_OVERHEAD": {"start": I, "end": I, "globalTid": I, "nameId": I},
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION": {**_EVENT, "syncType": I, "eventId": I},
    "NVTX_EVENTS": {
        "start": I, "end": I, "eventType": I, "rangeId": I, "category": I, "color": I, "text": T,
        "globalTid": I, "endGlobalTid": I, "textId": I, "domainId": I,
        "uint64Value": I, "int64Value": I, "doubleValue": F, "uint32Value": I, "int32Value": I,
        "floatValue": F, "jsonText": T, "rowid": I,
    },
    "ThreadNames": {"nameId": I, "priority": I, "globalTid": I},
    "PROCESSES": {"globalPid": I, "pid": I, "name": T},
    "TARGET_INFO_GPU": {
        "id": I, "deviceId": I, "name": T, "busLocation": T, "totalMemory": I, "smCount": I,
        "computeMajor": I, "computeMinor": I, "memoryBandwidth": I, "clockRate": I, "chipName": T,
    },
    "TARGET_INFO_CUDA_GPU": {
        "deviceId": I, "name": T, "pciBusId": T, "globalMemorySize": I, "numMultiprocessors": I,
        "computeCapabilityMajor": I, "computeCapabilityMinor": I, "globalMemoryBandwidth": I,
        "coreClockRate": I,
    },
    "META_DATA_EXPORT": {"name": T, "value": T},
    "EXPORT_META_DATA": {"name": T, "value": T},
    "ANALYSIS_DETAILS": {"duration": I, "startTime": I, "stopTime": I},
    "TARGET_INFO_SESSION_START_TIME": {"utcEpochNs": I},
}


def compat_select(raw_columns: dict[str, set[str]], raw: str, table: str, columns: dict[str, str]) -> str:
    """The compat layer's SELECT of one raw table: every listed column, typed; NULL where the export lacks it."""
    present = raw_columns.get(table)
    cols = []
    for name, sql_type in columns.items():
        expr = f'"{name}"' if present is not None and (name in present or name == "rowid") else "NULL"
        cols.append(f'CAST({expr} AS {sql_type}) AS "{name}"')
    body = ", ".join(cols)
    if present is None:
        return f"SELECT {body} WHERE false"
    return f'SELECT {body} FROM "{raw}"."{table}"'
