"""The `.ncu-rep` container, read without Nsight Compute: file format version, tool version, processes.

A report is `NVR\\0`, a little-endian uint32 size and a FileHeader message (field 1: format version),
then blocks: a uint32 size, a BlockHeader message (1: number of sources, 2: number of results,
3: session details, 5: payload size, 6: process {1: pid, 2: host, 3: executable}) and the payload.
Only headers are read (payloads are skipped with seek), so this is cheap even for large reports. It
lets a bad file fail with a clear message before `ncu_report` (which accepts anything and returns an
empty report) sees it, and gives the process of each result, which `ncu_report` does not expose.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

from ...core.errors import ProfileError

MAGIC = b"NVR\x00"
# The file format version written by Nsight Compute 2025.1 and 2025.3; ncu-report reads these.
KNOWN_FORMAT_VERSION = 7
_VERSION = re.compile(r"(\d{4})\.(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True)
class Process:
    pid: int | None
    host: str | None
    executable: str | None


@dataclass
class Container:
    """What the block headers of a report say."""

    format_version: int
    tool_version: str | None = None  # "2025.3.1.0 (build 36398880) (public-release)"
    command_line: str | None = None
    session: dict[str, str] = field(default_factory=dict)  # e.g. {"CUDA Version": "13.0"}
    result_processes: list[Process] = field(default_factory=list)  # one per profiled result, in file order
    processes: list[Process] = field(default_factory=list)  # every distinct process named in a block header
    truncated: bool = False


def read_container(path: Path) -> Container:
    """Read the headers of an `.ncu-rep`; ProfileError if it is not one."""
    with open(path, "rb") as f:
        head = f.read(8)
        _check_magic(path, head)
        (size,) = struct.unpack("<I", head[4:8])
        header = f.read(size)
        version = _first_varint(header, 1)
        if version is None and len(header) == size:  # all its bytes are there, yet no version: damaged
            raise ProfileError(f"{path}: is corrupt (its file header holds no format version); copy it again or "
                               "re-run ncu")
        if version is None:
            raise ProfileError(f"{path}: is truncated (no file header); copy it again or re-run ncu")
        container = Container(format_version=version)
        _read_blocks(f, container)
    return container


def _check_magic(path: Path, head: bytes) -> None:
    if not head:
        raise ProfileError(f"{path}: is empty (0 bytes); re-run ncu with -o, or check -k/-c/--nvtx-include")
    if head[:4] != MAGIC:
        raise ProfileError(
            f"{path}: is not an Nsight Compute report (no NVR header); pass a .ncu-rep written by `ncu -o` "
            "or a CSV from `ncu -i R --csv --page raw` (Nsight Systems exports are .sqlite or .nsys-rep files)"
        )
    if len(head) < 8:
        raise ProfileError(f"{path}: is truncated ({len(head)} bytes); copy it again or re-run ncu")


def _read_blocks(f, container: Container) -> None:
    size_of_file = os.fstat(f.fileno()).st_size
    process = Process(None, None, None)
    while raw := f.read(4):
        if len(raw) < 4:
            container.truncated = True
            return
        header = f.read(struct.unpack("<I", raw)[0])
        fields = _fields(header)
        process = _process(fields.get(6, [None])[0]) or process
        if process.pid is not None and process not in container.processes:
            container.processes.append(process)
        for details in fields.get(3, []):
            _session_details(details, container)
        results = _int(fields, 2)
        if results > _int(fields, 5):  # each result takes bytes of the payload: a count this large is damage
            raise ProfileError(f"{f.name}: is corrupt (a block header counts {results} results in a payload of "
                               f"{_int(fields, 5)} bytes); copy it again or re-run ncu")
        container.result_processes.extend([process] * results)
        end_of_payload = f.tell() + _int(fields, 5)
        if len(header) < struct.unpack("<I", raw)[0] or end_of_payload > size_of_file:
            container.truncated = True
            return
        f.seek(end_of_payload)


def _session_details(details: bytes, container: Container) -> None:
    fields = _fields(details)
    for pair in fields.get(8, []):
        kv = _fields(pair)
        key, value = _text(kv, 1), _text(kv, 2)
        if key:
            container.session[key] = value or ""
            if key == "Nsight Compute Target" and value:
                container.tool_version = value
    if _text(fields, 11) is not None:
        container.command_line = _text(fields, 11)


def _process(raw: bytes | None) -> Process | None:
    if not raw:
        return None
    fields = _fields(raw)
    pid = fields.get(1, [None])[0]
    return Process(pid if isinstance(pid, int) else None, _text(fields, 2), _text(fields, 3))


def tool_version_tuple(text: str | None) -> tuple[int, ...] | None:
    """'2025.3.1.0 (build …)' -> (2025, 3, 1, 0)."""
    m = _VERSION.search(text or "")
    return tuple(int(g) for g in m.groups() if g is not None) if m else None


# -- protobuf wire format: just enough to read headers ------------------------------------------
def _fields(buf: bytes) -> dict[int, list]:
    """{field number: [values]}: ints for varint/fixed fields, bytes for length-delimited ones. A message that is
    not bytes (damage changed its wire type) has no fields."""
    out: dict[int, list] = {}
    if not isinstance(buf, (bytes, bytearray)):
        return out
    i, n = 0, len(buf)
    try:
        while i < n:
            key, i = _varint(buf, i)
            number, wire = key >> 3, key & 7
            if wire == 0:
                value, i = _varint(buf, i)
            elif wire == 2:
                length, i = _varint(buf, i)
                value, i = buf[i:i + length], i + length
            elif wire == 1:
                value, i = struct.unpack_from("<Q", buf, i)[0], i + 8
            elif wire == 5:
                value, i = struct.unpack_from("<I", buf, i)[0], i + 4
            else:
                break
            out.setdefault(number, []).append(value)
    except (IndexError, struct.error):
        pass  # a cut header: keep what was read
    return out


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = buf[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def _first_varint(buf: bytes, number: int) -> int | None:
    values = _fields(buf).get(number)
    return values[0] if values and isinstance(values[0], int) else None


def _int(fields: dict[int, list], number: int) -> int:
    values = fields.get(number)
    return values[0] if values and isinstance(values[0], int) else 0


def _text(fields: dict[int, list], number: int) -> str | None:
    values = fields.get(number)
    if not values or not isinstance(values[0], bytes):
        return None
    return values[0].decode("utf-8", "replace")
