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


# Text as nsys wrote it where it is valid UTF-8, else with each byte above 0x7F as a replacement character
# (U+FFFD, bytes EF BF BD): SQLite stores whatever bytes it is given, and DuckDB refuses (or, in some functions,
# fails fatally on) invalid UTF-8. encode() hands over the bytes unchecked, decode() checks them; where that fails
# the bytes are rewritten in hex, pair by pair. (A Python decoder would keep the valid sequences of such a text,
# but registering one imports numpy into every command.)
DECODED_TEXT = ("coalesce(try(decode(encode(\"{0}\"))), decode(unhex(replace(regexp_replace(regexp_replace("
                "hex(encode(\"{0}\")), '(..)', '\\1 ', 'g'), '[89A-F][0-9A-F] ', 'EFBFBD ', 'g'), ' ', ''))))")


# A time no clock gives: more than 2^62 ns (146 years) either side of the capture's start (nsys writes times from
# it). Rows with one are skipped, so that durations, sums and windows stay within 64-bit integers.
TIME_LIMIT_NS = 2**62

# Event tables other than the kernel table (bad_rows.py handles that one): the columns nsys always writes (most
# declared NOT NULL) that the views read, and whether the row must have an end. A row that lacks one, ends before it
# starts, or has a time beyond TIME_LIMIT_NS is left out of the compat view; bad_rows.event_note counts them
# (README: Bad input).
CHECKED_EVENTS: dict[str, tuple[tuple[str, ...], bool]] = {
    "CUPTI_ACTIVITY_KIND_RUNTIME": (("start", "end", "nameId", "globalTid"), True),
    "CUPTI_ACTIVITY_KIND_DRIVER": (("start", "end", "nameId", "globalTid"), True),
    "CUPTI_ACTIVITY_KIND_MEMCPY": (("start", "end", "deviceId", "streamId", "bytes", "copyKind"), True),
    "CUPTI_ACTIVITY_KIND_MEMSET": (("start", "end", "deviceId", "streamId", "bytes"), True),
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE": (("start", "end", "deviceId", "streamId"), True),
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION": (("start", "end"), True),
    "PROFILER_OVERHEAD": (("start", "end"), True),
    "NVTX_EVENTS": (("start", "eventType", "globalTid"), False),  # marks and ranges left open have no end
    # not events, but rows the views key on: a GPU, thread or process without its id
    "TARGET_INFO_GPU": (("id",), False), "TARGET_INFO_CUDA_GPU": (("deviceId",), False),
    "ThreadNames": (("globalTid", "nameId"), False), "PROCESSES": (("globalPid", "pid"), False),
}


# The kernel table's columns nsys always writes (NOT NULL in every version): without one, no kernel has a time, a
# place or a name.
KERNEL_REQUIRED = ("start", "end", "deviceId", "streamId", "demangledName")


def missing_required(table: str, present: set[str]) -> str | None:
    """The first column nsys always writes that the export's `table` (its columns `present`) lacks, or None: the
    table was altered (a renamed or dropped column), not one nsys wrote."""
    if table == "CUPTI_ACTIVITY_KIND_KERNEL":
        required = KERNEL_REQUIRED
    elif table in CHECKED_EVENTS and CHECKED_EVENTS[table][1]:  # the event tables (the id tables vary by version)
        required = CHECKED_EVENTS[table][0]
    else:
        return None
    return next((c for c in required if c not in present), None)


# The columns that name a string of StringIds (nsys writes each string once and refers to it by id).
NAME_IDS: dict[str, tuple[str, ...]] = {
    "CUPTI_ACTIVITY_KIND_KERNEL": ("demangledName", "shortName", "mangledName"),
    "CUPTI_ACTIVITY_KIND_RUNTIME": ("nameId",), "CUPTI_ACTIVITY_KIND_DRIVER": ("nameId",),
    "NVTX_EVENTS": ("textId",), "ThreadNames": ("nameId",), "PROFILER_OVERHEAD": ("nameId",),
}


def bad_event_conditions(table: str, present: set[str]) -> dict[str, str]:
    """{reason: SQL condition true for a row of `table` (raw columns) that no report can use}, each reason's rows
    not counted again by a later one; {} for a table that is not checked."""
    if table not in CHECKED_EVENTS:
        return {}
    required, _ = CHECKED_EVENTS[table]
    missing = [c for c in required if c in present]
    times = [c for c in ("start", "end") if c in present]
    conditions = {}
    if missing:
        conditions["incomplete"] = " OR ".join(f'"{c}" IS NULL' for c in missing)
    if "end" in present:
        conditions["negative"] = '"end" < start'
    if times:
        conditions["out_of_range"] = " OR ".join(f'"{c}" <= -{TIME_LIMIT_NS} OR "{c}" >= {TIME_LIMIT_NS}'
                                                 for c in times)
    return conditions


def sound_rows(table: str, present: set[str]) -> str | None:
    """The condition on the raw columns that keeps the rows of `table` a report can use (None: every row)."""
    conditions = bad_event_conditions(table, present)
    if not conditions:
        return None
    return "NOT coalesce(" + " OR ".join(f"({c})" for c in conditions.values()) + ", false)"


def compat_select(raw_columns: dict[str, set[str]], raw: str, table: str, columns: dict[str, str],
                  all_sound: bool = False) -> str:
    """The compat layer's SELECT of one raw table: every listed column, typed; NULL where the export lacks it.
    `all_sound`: its rows were counted and none is bad (bad_rows.count_events), so none is filtered out: a query
    then reads only the columns it names (a count of 25 M API calls per process: 1.0 s, not 2.0 s)."""
    present = raw_columns.get(table)
    cols = []
    for name, sql_type in columns.items():
        expr = f'"{name}"' if present is not None and (name in present or name == "rowid") else "NULL"
        if sql_type == T and expr != "NULL":
            expr = DECODED_TEXT.format(name)
        cols.append(f'CAST({expr} AS {sql_type}) AS "{name}"')
    body = ", ".join(cols)
    if present is None:
        return f"SELECT {body} WHERE false"
    if table == "StringIds":  # nsys writes each string once; an id written twice would join its rows twice over
        return f'SELECT id, min(value) AS value FROM (SELECT {body} FROM "{raw}"."{table}") AS s GROUP BY id'
    sound = None if all_sound else sound_rows(table, present)
    if sound is not None:  # the sound rows only, under the table's own name (a caller may add a WHERE)
        rowid = ", rowid" if "rowid" in columns and "rowid" not in present else ""  # SQLite's is hidden from *
        return f'SELECT {body} FROM (SELECT *{rowid} FROM "{raw}"."{table}" WHERE {sound}) AS "{table}"'
    return f'SELECT {body} FROM "{raw}"."{table}"'
