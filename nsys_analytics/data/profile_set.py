"""`ProfileSet`: many nsys profiles (one per rank, or one report of a whole launch) opened as ranks.

Data access only, like `Profile`: it finds the files, tells each rank's id and where it came from, aligns the
clocks of the ranks, and runs per-rank work through an engine (sequential, a local process pool, or a Dask
cluster). The capabilities turn the per-rank frames into reports.

A *member* is one rank: a file, and the process in it when a report holds several processes. Rank ids come from,
in order of trust: the `RANK` variable of the process environment nsys recorded (or a rank in an NCCL NVTX
payload), a number in the file name (`report.%q{RANK}` -> `report.3`), the order of the inputs.
"""

from __future__ import annotations

import glob as globmod
import os
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import source
from ..core.words import plural
from ..core.errors import NsysAnalyticsError, ProfileError, UsageError

NSYS_SUFFIXES = (".sqlite", ".nsys-rep", ".qdrep")
_RANK_VARS = ("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "PMIX_RANK")
_ENV_ASSIGN = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*)="?(.*?)"?\s*$')
_DIGITS = re.compile(r"(\d+)")
# The pid and thread columns of the raw tables a rank of a multi-process report is restricted by.
PID_COLUMNS = {
    "CUPTI_ACTIVITY_KIND_KERNEL": "globalPid", "CUPTI_ACTIVITY_KIND_MEMCPY": "globalPid",
    "CUPTI_ACTIVITY_KIND_MEMSET": "globalPid", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION": "globalPid",
    "PROCESSES": "globalPid", "CUPTI_ACTIVITY_KIND_RUNTIME": "globalTid", "CUPTI_ACTIVITY_KIND_DRIVER": "globalTid",
    "PROFILER_OVERHEAD": "globalTid", "NVTX_EVENTS": "globalTid", "ThreadNames": "globalTid",
}


@dataclass(frozen=True)
class Member:
    """One rank: a file, and the process in it when the file holds several. Small and picklable: an engine
    sends it to the process or Dask worker that reads the file."""

    path: str
    rank: int
    rank_source: str  # 'environment' | 'NCCL payload' | 'file name' | 'input order' | 'process order'
    pid: int | None = None  # only this process of the file (a report of a whole launch); None: all of it
    host: str | None = None
    clock_offset_ns: int = 0  # add to this rank's timestamps to put them on the set's common clock
    nsys_version: str | None = None
    is_rank = True  # nsys_analytics.open() opens a member as its rank's Profile

    @property
    def name(self) -> str:
        return Path(self.path).name + (f" pid {self.pid}" if self.pid is not None else "")

    def open(self):
        """This rank as a `Profile` (restricted to its process where the file holds several)."""
        from .profile import Profile

        if self.pid is None:
            return Profile(self.path)
        return RankProfile(self.path, self.pid)


def _rank_profile_class():
    from .profile import Profile

    class _RankProfile(Profile):
        """A Profile that sees one process of the file: every raw table with a process or thread column is
        filtered to that process in the compat layer, so every view and report is this rank's alone."""

        def __init__(self, path, pid: int):
            self.pid = int(pid)
            super().__init__(path)

        def _where(self, table):
            column = PID_COLUMNS.get(table)
            return None if column is None else f'("{column}" >> 24) & 16777215 = {self.pid}'

        def __repr__(self):
            return f"RankProfile({str(self.path)!r}, pid={self.pid})"

    return _RankProfile


def RankProfile(path, pid: int):
    return _rank_profile_class()(path, pid)


@dataclass
class FileFacts:
    """What one file says about itself, read cheaply (sqlite3, metadata tables and one scan of the kernels)."""

    path: str
    nsys_version: str | None
    host: str | None
    session_utc_ns: int | None  # TARGET_INFO_SESSION_START_TIME: wall clock at the session start
    capture_start_ns: int | None  # ANALYSIS_DETAILS.startTime on the file's own clock
    env_rank: int | None  # RANK (or MPI/Slurm equivalent) of the profiled process
    processes: list[tuple[int, int | None, int | None]]  # (pid, first CUDA device, nccl rank) with GPU work
    identity: tuple[int, int]  # (device, inode) of the export: the same file given twice
    job: dict[str, str] = field(default_factory=dict)  # WORLD_SIZE, launch id, rendezvous of the profiled process


def file_facts(path: str) -> FileFacts:
    """Read the facts of one file (runs in a worker: `.nsys-rep` export and the kernel scan cost time)."""
    sqlite_path = source.resolve(Path(path))
    con = source.connect_readonly(sqlite_path)
    try:
        tables = {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        st = sqlite_path.stat()
        return FileFacts(
            path=str(path), nsys_version=_meta(con, tables, "EXPORT_PRODUCT_VERSION"),
            host=_system_env(con, tables, "Hostname"),
            session_utc_ns=_scalar(con, tables, "TARGET_INFO_SESSION_START_TIME", "min(utcEpochNs)"),
            capture_start_ns=_scalar(con, tables, "ANALYSIS_DETAILS", "min(startTime)"),
            env_rank=_env_rank(con, tables), processes=_gpu_processes(con, tables),
            identity=(st.st_dev, st.st_ino), job=_job_facts(con, tables),
        )
    except sqlite3.DatabaseError as e:
        raise ProfileError(f"{sqlite_path}: is corrupt ({e}); copy it again or re-export it") from e
    finally:
        con.close()


def _peek(sqlite_path, read: Callable, default=None):
    """`read(con, tables)` on the export at `sqlite_path`, opened read-only; `default` where it is not a regular
    file (a FIFO would block) or cannot be read: the opening that reads it for the command says why."""
    if not Path(sqlite_path).is_file():
        return default
    try:
        con = source.connect_readonly(Path(sqlite_path))
    except (ProfileError, sqlite3.Error, OSError):
        return default
    try:
        return read(con, {n for (n,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")})
    except sqlite3.Error:
        return default
    finally:
        con.close()


def one_rank_of_job(sqlite_path) -> str | None:
    """A sentence where the export `sqlite_path` holds fewer processes than the WORLD_SIZE of the job it ran in
    (one rank's file of a distributed run): its NCCL time then includes waiting for the others, which only the
    whole set can tell. None for any other file, and for one that cannot be read (the report says why)."""
    def read(con, tables):
        world = _job_facts(con, tables).get("WORLD_SIZE", "")
        if not world.isdigit() or int(world) < 2 or len(_context_processes(con, tables) or [1]) >= int(world):
            return None
        return world, _env_rank(con, tables)

    found = _peek(sqlite_path, read)
    if found is None:
        return None
    world, rank = found
    who = f"rank {rank}" if rank is not None else "one rank"
    return (f"This file is {who} of a job of {world} ranks (WORLD_SIZE): its NCCL time includes waiting for the "
            f"slowest rank. `nsys-analytics ranks` (or `diagnose`) over every rank's file names a straggler; over "
            "the ranks, the first step is warm-up too unless a `warmup` range marks the warm-up.")


def whole_launch_note(sqlite_path, by_rank: str = "") -> str | None:
    """A sentence where the export holds several processes that ran kernels (a report of a whole launch, read as one
    profile); `by_rank`: the command that reads each process as a rank instead (`diagnose --by-rank`), where the
    command has the option. None for any other file, and for one that cannot be read."""
    processes = gpu_process_count(sqlite_path)
    if processes < 2:
        return None
    own = f"`{by_rank}` reads each process as a rank, and " if by_rank else ""
    return (f"This report holds {processes} processes that ran kernels (the ranks of one launch?), read together as "
            f"one profile; {own}`nsys-analytics ranks` over it compares them as ranks (a straggler, the waits in "
            "NCCL).")


def several_gpu_processes(sqlite_path) -> bool:
    """Whether the export holds several processes that ran kernels (a report of a whole launch: one per rank)."""
    return gpu_process_count(sqlite_path) > 1


def gpu_process_count(sqlite_path) -> int:
    """The processes of the export that ran kernels, by its small context table; 0 where it has none, or cannot be
    read."""
    return _peek(sqlite_path, lambda con, tables: len(_context_processes(con, tables) or [])
                 if "CUPTI_ACTIVITY_KIND_KERNEL" in tables else 0, 0)


def launch_of(sqlite_path) -> tuple[str, int] | None:
    """(TORCHELASTIC_RUN_ID, WORLD_SIZE) of the job whose rank the export `sqlite_path` is (torchrun gives every
    launch its own id); None for a file of no such job, or one that cannot be read."""
    facts = _peek(sqlite_path, _job_facts, {})
    world, launch = facts.get("WORLD_SIZE", ""), facts.get("TORCHELASTIC_RUN_ID", "")
    return (launch, int(world)) if world.isdigit() and int(world) >= 2 and launch not in ("", "none") else None


def _scalar(con, tables, table, expr):
    if table not in tables:
        return None
    return con.execute(f'SELECT {expr} FROM "{table}"').fetchone()[0]


def _meta(con, tables, name):
    for table in ("META_DATA_EXPORT", "EXPORT_META_DATA"):
        if table in tables:
            row = con.execute(f'SELECT max(value) FROM "{table}" WHERE name = ?', (name,)).fetchone()
            if row and row[0]:
                return row[0]
    return None


def _system_env(con, tables, name):
    if "TARGET_INFO_SYSTEM_ENV" not in tables:
        return None
    row = con.execute("SELECT max(value) FROM TARGET_INFO_SYSTEM_ENV WHERE name = ?", (name,)).fetchone()
    return row[0] if row else None


_JOB_VARS = ("WORLD_SIZE", "TORCHELASTIC_RUN_ID", "MASTER_ADDR", "MASTER_PORT", "SLURM_JOB_ID")


def _job_facts(con, tables) -> dict[str, str]:
    """The variables of the profiled process that tell which job it belonged to (META_DATA_CAPTURE)."""
    out: dict[str, str] = {}
    if "META_DATA_CAPTURE" in tables:
        for (text,) in con.execute("SELECT value FROM META_DATA_CAPTURE WHERE name LIKE 'PROCESS_%:ENVIRONMENT_VARIABLE'"):
            m = _ENV_ASSIGN.match(text or "")
            if m and m.group(1) in _JOB_VARS:
                out.setdefault(m.group(1), m.group(2))
    return out


@dataclass
class JobCheck:
    """What the files' environments say about the job they ran in: `mismatches`, every reason they may not be the
    ranks of one job (notes, `ranks --strict`); `several`, the first of those that says they are files of several
    jobs (different launches, rendezvous, WORLD_SIZE, more ranks than WORLD_SIZE, sessions far apart), as a clause;
    `groups`, the files of each launch where a launch id tells them apart; `world_size` and, for a partial set,
    `missing`: the rank ids not given, where the ranks' ids come from their environment (RANK) or NCCL."""

    mismatches: list[str] = field(default_factory=list)
    several: str | None = None
    groups: list[list[str]] = field(default_factory=list)
    world_size: int | None = None
    partial: bool = False
    missing: list[int] = field(default_factory=list)


def job_check(facts: list[FileFacts], members: list[Member]) -> JobCheck:
    """Whether these files are the ranks of one job, and which ranks of it are missing (JobCheck)."""
    check = JobCheck()
    one_launch = len({f.job.get("TORCHELASTIC_RUN_ID") for f in facts}) == 1 and "TORCHELASTIC_RUN_ID" in facts[0].job
    several = _launches(facts, check) + _world(facts, len(members), check)
    far_apart = _sessions(facts, check)
    several += [] if one_launch else far_apart  # sessions far apart only warn where one launch id says one job
    check.several = several[0] if several else None
    ids = {m.rank for m in members}
    known = all(m.rank_source in ("environment", "NCCL payload") for m in members)
    if check.partial and known and max(ids) < check.world_size:
        check.missing = sorted(set(range(check.world_size)) - ids)
    return check


def _launches(facts: list[FileFacts], check: JobCheck) -> list[str]:
    """Different launch ids, Slurm jobs or rendezvous ports: their mismatches and the files of each launch; the
    clauses saying so."""
    several = []
    for var, what in (("TORCHELASTIC_RUN_ID", "launches (TORCHELASTIC_RUN_ID)"), ("SLURM_JOB_ID", "Slurm jobs"),
                      ("MASTER_PORT", "rendezvous ports (MASTER_PORT)")):
        values = sorted({f.job[var] for f in facts if var in f.job})
        if len(values) > 1:
            check.mismatches.append(f"the files come from {len(values)} different {what}: {', '.join(values[:4])}; "
                                    "not the ranks of one job?")
            several.append(f"these files come from {len(values)} different {what}")
            check.groups = check.groups or [[f.path for f in facts if f.job.get(var) == v] for v in values]
    return several


def _world(facts: list[FileFacts], ranks: int, check: JobCheck) -> list[str]:
    """WORLD_SIZE against itself and the ranks given: fewer ranks is a partial set of one job, more (or files that
    disagree) are files of several jobs."""
    worlds = sorted({int(f.job["WORLD_SIZE"]) for f in facts if f.job.get("WORLD_SIZE", "").isdigit()})
    check.world_size = worlds[0] if len(worlds) == 1 else None
    given = f"{ranks} rank{'s' if ranks != 1 else ''} {'were' if ranks != 1 else 'was'} given"
    if len(worlds) > 1:
        check.mismatches.append(f"the files disagree on WORLD_SIZE ({', '.join(map(str, worlds))})")
        return [f"the files disagree on WORLD_SIZE ({', '.join(map(str, worlds))})"]
    if worlds and worlds[0] < ranks:
        check.mismatches.append(f"WORLD_SIZE is {worlds[0]} but {given}: more ranks than WORLD_SIZE (files of "
                                "several jobs?)")
        return [f"{given} but WORLD_SIZE is {worlds[0]}"]
    if worlds and worlds[0] > ranks:
        check.mismatches.append(f"WORLD_SIZE is {worlds[0]} but {given}: a partial set")
        check.partial = True
    return []


def _sessions(facts: list[FileFacts], check: JobCheck) -> list[str]:
    starts = [f.session_utc_ns for f in facts if f.session_utc_ns is not None]
    if len(starts) < 2 or max(starts) - min(starts) <= SAME_JOB_START_NS:
        return []
    minutes = (max(starts) - min(starts)) / 60e9
    check.mismatches.append(f"the sessions started {minutes:.1f} minutes apart; not the ranks of one job?")
    return [f"the sessions started {minutes:.1f} minutes apart"]


SAME_JOB_START_NS = 300 * 10**9  # the ranks of one launch start their sessions within seconds; 5 minutes is lenient


def _env_rank(con, tables) -> int | None:
    """RANK of the process nsys launched (META_DATA_CAPTURE), else of nsys' own environment."""
    values: dict[str, str] = {}
    if "META_DATA_CAPTURE" in tables:
        for (text,) in con.execute("SELECT value FROM META_DATA_CAPTURE WHERE name LIKE 'PROCESS_%:ENVIRONMENT_VARIABLE'"):
            m = _ENV_ASSIGN.match(text or "")
            if m:
                values.setdefault(m.group(1), m.group(2))
    device_env = _system_env(con, tables, "DeviceEnvironment") or ""
    for item in device_env.split(";"):
        key, _, value = item.partition("=")
        values.setdefault(key.strip(), value.strip())
    for var in _RANK_VARS:
        if values.get(var, "").isdigit():
            return int(values[var])
    return None


def _gpu_processes(con, tables) -> list[tuple[int, int | None, int | None]]:
    """Processes that ran kernels, with their first device, ordered by (device, pid)."""
    if "CUPTI_ACTIVITY_KIND_KERNEL" not in tables:
        return []
    rows = _context_processes(con, tables)
    if rows is None:  # no context table (old exports): one scan of the kernels
        rows = con.execute(
            "SELECT (globalPid >> 24) & 16777215 AS pid, min(deviceId) FROM CUPTI_ACTIVITY_KIND_KERNEL "
            "GROUP BY 1 ORDER BY 2, 1").fetchall()
    nccl = _nccl_ranks(con, tables)
    return [(pid, device, nccl.get(pid)) for pid, device in rows]


def _context_processes(con, tables) -> list[tuple[int, int]] | None:
    """(pid, first device) of the processes with a CUDA context, from the small context table; with several,
    only those that ran a kernel (a launcher may hold a context and run nothing). None: no such table."""
    if "TARGET_INFO_CUDA_CONTEXT_INFO" not in tables:
        return None
    columns = {row[1] for row in con.execute('PRAGMA table_info("TARGET_INFO_CUDA_CONTEXT_INFO")')}
    if not {"processId", "deviceId"} <= columns:
        return None
    rows = con.execute("SELECT processId, min(deviceId) FROM TARGET_INFO_CUDA_CONTEXT_INFO "
                       "GROUP BY 1 ORDER BY 2, 1").fetchall()
    if len(rows) <= 1:
        return rows or None
    ran = "SELECT 1 FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE (globalPid >> 24) & 16777215 = ? LIMIT 1"
    return [r for r in rows if con.execute(ran, (r[0],)).fetchone()]


def _nccl_ranks(con, tables) -> dict[int, int]:
    """{pid: rank} from NCCL's NVTX payloads (`ncclCommInitRank` and friends record `rank` in their JSON
    payload) where nsys exported them."""
    if "NVTX_EVENTS" not in tables:
        return {}
    columns = {row[1] for row in con.execute('PRAGMA table_info("NVTX_EVENTS")')}
    if "jsonText" not in columns:
        return {}
    found: dict[int, int] = {}
    query = ("SELECT (globalTid >> 24) & 16777215, jsonText FROM NVTX_EVENTS "
             "WHERE jsonText LIKE '%rank%' ORDER BY start LIMIT 1000")
    for pid, text in con.execute(query):
        m = re.search(r'"(?:rank|Rank)"\s*:\s*(\d+)', text or "")
        if m and pid not in found:
            found[pid] = int(m.group(1))
    return found


# -- inputs -------------------------------------------------------------------------------------------------
@dataclass
class Inputs:
    files: list[Path]
    ignored: list[str] = field(default_factory=list)  # 'PATH (why)' for each file a folder or glob held


def expand_inputs(items: list[str | os.PathLike]) -> Inputs:
    """Paths, globs and folders -> the nsys files to read, in a stable order, and what was left out and why."""
    files: list[Path] = []
    ignored: list[str] = []
    for item in items:
        text = str(item)
        p = Path(text).expanduser()
        if p.is_dir():
            _from_folder(p, files, ignored)
        elif not p.exists() and any(ch in text for ch in "*?["):
            matches = sorted(globmod.glob(os.path.expanduser(text)))
            if not matches:
                raise UsageError(f"{text}: matches no file; check the pattern")
            for m in matches:
                _classify(Path(m), files, ignored)
        else:
            files.append(p)  # named explicitly: read it, and say what is wrong with it if it is not a profile
    seen: set[str] = set()
    unique = []
    for f in files:
        key = os.path.realpath(f)
        if key in seen:
            ignored.append(f"{f} (given twice)")
            continue
        seen.add(key)
        unique.append(f)
    return Inputs(unique, ignored)


def _from_folder(folder: Path, files: list[Path], ignored: list[str]) -> None:
    entries = sorted(p for p in folder.iterdir() if p.is_file())
    exported = {p.with_suffix("") for p in entries if p.suffix == ".sqlite"}
    for p in entries:
        if p.suffix in (".nsys-rep", ".qdrep") and p.with_suffix("") in exported:
            ignored.append(f"{p} (its export {p.with_suffix('.sqlite').name} is read instead)")
            continue
        _classify(p, files, ignored)


def runs_inside(folder: Path) -> str | None:
    """What to say of a folder that holds no profile itself but folders that do (a folder of runs' folders, given
    where one run's folder was meant): it names them; None where none does."""
    found = []
    try:
        for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
            n = sum(1 for f in sub.iterdir() if f.is_file() and f.suffix in NSYS_SUFFIXES)
            if n:
                found.append(f"{sub.name}/ ({n})")
    except OSError:
        pass
    if not found:
        return None
    more = f" and {len(found) - 4} more" if len(found) > 4 else ""
    return (f"{folder}: holds no nsys profile itself, but {len(found)} folder(s) inside it do: "
            f"{', '.join(found[:4])}{more}; pass one of them (a folder is read as one job's ranks; "
            "`diff A/ B/` compares two)")


def refuse_folder_of_runs(items: list) -> None:
    """ProfileError naming the folders inside, where `items` is one folder that holds no profile itself but
    folders that do (`runs_inside`); nothing otherwise."""
    folder = Path(str(items[0])) if len(items) == 1 else None
    if folder is not None and folder.is_dir() and (runs := runs_inside(folder)):
        raise ProfileError(runs)


_UNPACK = {".xz": "xz -dk", ".gz": "gzip -dk", ".bz2": "bzip2 -dk", ".zst": "zstd -d"}  # an export shipped packed


def _classify(p: Path, files: list[Path], ignored: list[str]) -> None:
    if p.is_dir():
        ignored.append(f"{p} (a folder inside the input; name it to read it)")
    elif p.suffix in NSYS_SUFFIXES:
        files.append(p)
    elif p.suffix == ".ncu-rep":
        ignored.append(f"{p} (an Nsight Compute report; see `nsys-analytics ncu`)")
    elif p.suffix in _UNPACK and Path(p.stem).suffix in NSYS_SUFFIXES:
        ignored.append(f"{p} (compressed: decompress it first, `{_UNPACK[p.suffix]} FILE`)")
    else:
        ignored.append(f"{p} (not an nsys .sqlite or .nsys-rep)")


# -- ranks --------------------------------------------------------------------------------------------------
def assign_ranks(facts: list[FileFacts]) -> tuple[list[Member], list[str]]:
    """Members with rank ids, and notes on how they were found (several sources, duplicates, versions)."""
    notes: list[str] = []
    members: list[Member] = []
    nccl: list[int | None] = []
    for f in facts:
        procs = f.processes if len(f.processes) > 1 else [(None, None, f.processes[0][2] if f.processes else None)]
        for pid, _device, nccl_rank in procs:
            members.append(Member(path=f.path, rank=-1, rank_source="", pid=pid, host=f.host,
                                  nsys_version=f.nsys_version))
            nccl.append(nccl_rank)
    multi = any(len(f.processes) > 1 for f in facts)
    candidates: list[tuple[str, list]] = [("NCCL payload", nccl)]
    if not multi:  # RANK of the environment and the file name tell one rank per file
        candidates.append(("environment", [f.env_rank for f in facts]))
        candidates.append(("file name", _file_name_ranks([f.path for f in facts])))
    candidates.append(("process order" if multi else "input order", list(range(len(members)))))
    for source_name, ranks in candidates:
        if len(ranks) != len(members) or any(r is None for r in ranks):
            continue
        if len(set(ranks)) != len(ranks):
            dup = sorted({r for r in ranks if ranks.count(r) > 1})
            notes.append(f"rank ids from the {source_name} repeat ({', '.join(map(str, dup))}); "
                         "not used: two files of the same rank?")
            continue
        members = [replace(m, rank=int(r), rank_source=source_name) for m, r in zip(members, ranks)]
        break
    versions = sorted({m.nsys_version or "unknown" for m in members})
    if len(versions) > 1:
        notes.append(f"ranks were exported by different nsys versions ({', '.join(versions)}); the normalized "
                     "schema reads each the same way")
    members, clock_note = align_clocks(members, {f.path: f for f in facts})
    if clock_note:
        notes.append(clock_note)
    return sorted(members, key=lambda m: m.rank), notes


def _file_name_ranks(paths: list[str]) -> list[int | None]:
    """The number in each file name that tells the files apart (`report.3.sqlite`, `rank_3.nsys-rep`)."""
    found = [_DIGITS.findall(Path(p).name.split(".sqlite")[0].split(".nsys-rep")[0]) for p in paths]
    if not found or any(not f for f in found) or len({len(f) for f in found}) != 1:
        return [None] * len(paths)
    for i in reversed(range(len(found[0]))):  # the last number that differs between files (report_2024_3)
        values = [int(f[i]) for f in found]
        if len(set(values)) == len(values):
            return values
    return [None] * len(paths)


def align_clocks(members: list[Member], facts: dict[str, FileFacts]) -> tuple[list[Member], str | None]:
    """Offsets that put every rank on one clock.

    Each nsys session stamps its events relative to its own start, so two reports of the same host are not on one
    clock: the ranks' sessions start as their launcher starts them, tens or hundreds of milliseconds apart. Each
    file records its session's wall-clock start (TARGET_INFO_SESSION_START_TIME), so a rank's timestamps are put on
    the lowest rank's clock by the difference of the two starts. Checked on the fixtures' runs (docs/ranks.md): after
    it, the k-th NCCL kernel ends within 0.03 ms on every rank (a collective completes on all ranks together), where
    the raw timestamps were 0.7 to 514 ms apart. Ranks of one file (a report of the whole launch) share its clock.
    Across hosts the alignment is as good as the hosts' time sync (NTP: typically well under a millisecond)."""
    files = {m.path for m in members}
    if len(files) <= 1:
        return members, None
    utc = {path: facts[path].session_utc_ns for path in files}
    if any(v is None for v in utc.values()):
        return members, ("some files lack the session start time (TARGET_INFO_SESSION_START_TIME): their clocks "
                         "are not aligned; cross-rank waits are unreliable")
    ref = utc[min(members, key=lambda m: m.rank).path]
    aligned = [replace(m, clock_offset_ns=int(utc[m.path] - ref)) for m in members]
    hosts = sorted({m.host or "?" for m in members})
    return aligned, (None if len(hosts) <= 1 else
                     f"ranks come from {len(hosts)} hosts ({', '.join(hosts)}); clocks aligned by each session's "
                     "wall-clock start: approximate (as good as the hosts' time sync)")


# -- the set ------------------------------------------------------------------------------------------------
class ProfileSet:
    """Many nsys profiles opened as ranks.

    >>> ps = nsys_analytics.open_set(["runs/"])             # a folder, globs or paths
    >>> ps.members                                          # one Member per rank: path, rank, where the id came from
    >>> ps.map(fn)                                          # fn(member) on every rank, in parallel
    """

    def __init__(self, inputs, engine=None, skip_bad: bool = False):
        from .engine import make_engine

        items = [inputs] if isinstance(inputs, (str, os.PathLike)) else list(inputs)
        if not items:
            raise UsageError("no profile given; pass files, globs or a folder")
        self.engine = engine if engine is not None else make_engine()
        expanded = expand_inputs(items)
        self.ignored = expanded.ignored
        self.skipped: list[str] = []
        if not expanded.files:
            refuse_folder_of_runs(items)
            folder = Path(str(items[0])) if len(items) == 1 and Path(str(items[0])).is_dir() else None
            where = (f"{folder}: is a directory with no nsys profile in it" if folder
                     else "no nsys profile among the inputs")
            ignored = f" (ignored: {'; '.join(self.ignored)})" if self.ignored else ""
            raise ProfileError(f"{where}{ignored}; pass .sqlite exports (`nsys export --type sqlite`) or "
                               ".nsys-rep reports")
        results = self.engine.map(file_facts, [str(p) for p in expanded.files])
        facts = self._keep_good(expanded.files, results, skip_bad)
        facts = self._drop_same_file(facts)
        self.members, self.notes = assign_ranks(facts)
        self.job = job_check(facts, self.members)
        self.mismatches = self.job.mismatches
        self.warnings = [f"warning: {m} (`ranks --strict` refuses such a set)" for m in self.mismatches]
        self.notes += self.warnings

    def _keep_good(self, files, results, skip_bad) -> list[FileFacts]:
        bad = [(p, r) for p, r in zip(files, results) if isinstance(r, BaseException)]
        for _p, r in bad:
            if not isinstance(r, ProfileError):
                raise r
        if bad and not skip_bad:
            first = bad[0][1]
            others = [Path(str(path)).name for path, _r in bad[1:]]
            named = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
            more = f" (and {len(others)} more bad file(s): {named})" if others else ""
            raise ProfileError(f"{first}{more}; or pass --skip-bad to go on without {'them' if others else 'it'}")
        self.skipped = [str(r) if str(p) in str(r) else f"{p}: {r}" for p, r in bad]
        good = [r for r in results if not isinstance(r, BaseException)]
        if not good:
            raise ProfileError("no readable profile among the inputs")
        return good

    def _drop_same_file(self, facts: list[FileFacts]) -> list[FileFacts]:
        seen: dict[tuple[int, int], str] = {}
        keep = []
        for f in facts:
            if f.identity in seen:
                self.ignored.append(f"{f.path} (the same file as {seen[f.identity]})")
                continue
            seen[f.identity] = f.path
            keep.append(f)
        return keep

    @property
    def ranks(self) -> list[int]:
        return [m.rank for m in self.members]

    @property
    def rank_source(self) -> str:
        return ", ".join(sorted({m.rank_source for m in self.members}))

    def map(self, fn: Callable[..., Any], *args) -> list[Any]:
        """fn(member, *args) for every rank, through the engine; results in rank order. A failure on one rank
        raises a ProfileError naming its file."""
        return [r for _m, r in self.imap(fn, *args)]

    def imap(self, fn: Callable[..., Any], *args):
        """(member, fn(member, *args)) for every rank, in rank order, one at a time as the engine delivers them:
        fold each into the answer and let it go. A failure on one rank raises a ProfileError naming its file."""
        for m, r in zip(self.members, self.engine.imap(_Call(fn, args), self.members)):
            if isinstance(r, BaseException):
                if isinstance(r, NsysAnalyticsError):  # its message names the file already
                    raise r
                raise ProfileError(f"{m.path}: {type(r).__name__}: {r}") from r
            yield m, r

    def messages(self) -> list[str]:
        """Lines for stderr: what was ignored or skipped, and notes on ranks and clocks."""
        lines = [f"ignored {x}" for x in self.ignored]
        lines += [f"skipped (--skip-bad) {x}" for x in self.skipped]
        return lines + self.notes

    def __len__(self) -> int:
        return len(self.members)

    def __repr__(self) -> str:
        return f"ProfileSet({plural(len(self.members), 'rank')}, rank ids from {self.rank_source})"


@dataclass(frozen=True)
class _Call:
    """fn(member, *args), picklable when fn is a module-level function."""

    fn: Callable[..., Any]
    args: tuple

    def __call__(self, member: Member):
        return self.fn(member, *self.args)
