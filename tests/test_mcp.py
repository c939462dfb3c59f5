"""`nsys-analytics mcp` through the SDK's own client over stdio (one server for the module): the tools and their
schemas, each tool's answer equal to the CLI's `--format json` for the command it names (and that command checked
against the arguments given), the `sql` command's refusals word for word, no file outside the start-up list, rows
cut with a note, and bad start-up input refused as every command refuses it."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
import subprocess
import sys

import pytest
from anyio.from_thread import start_blocking_portal
from click.testing import CliRunner
from mcp import ClientSession, StdioServerParameters, stdio_client

from nsys_analytics.cli.main import cli

from .conftest import FIXTURES, ROOT, PROFILES, RANKS, fixture_oracle, unpacked
from .test_sql_sandbox import HOSTILE

TRAIN = PROFILES / "gpt_train.sqlite"
FORWARD = PROFILES / "gpt_forward.sqlite"
RANK0, RANK1 = sorted((RANKS / "ddp_straggler").glob("*.sqlite"))
MODULES = unpacked(FIXTURES / "modules" / "modules_instrument.sqlite.xz")
SERVED = [TRAIN, FORWARD, RANK0, RANK1, MODULES]
ALL = {"max_rows": 10_000}  # nothing cut: the answer is the whole document
TOOLS = {"profiles", "info", "kernels", "nvtx", "nvtx_kernels", "breakdown", "diagnose", "modules", "ranks", "diff",
         "report", "schema", "sql"}


class Client:
    """The SDK's ClientSession, called from synchronous tests through a portal to its event loop."""

    def __init__(self, portal, session):
        self.portal, self.session = portal, session

    def tools(self):
        return self.portal.call(self.session.list_tools).tools

    def call(self, name: str, arguments: dict):
        return self.portal.call(self.session.call_tool, name, arguments)

    def answer(self, name: str, arguments: dict) -> dict:
        result = self.call(name, arguments)
        assert not result.is_error, result.content[0].text
        return result.structured_content

    def error(self, name: str, arguments: dict) -> str:
        result = self.call(name, arguments)
        assert result.is_error, result.structured_content
        (content,) = result.content
        return content.text


@pytest.fixture(scope="module")
def server():
    params = StdioServerParameters(command=sys.executable, args=["-m", "nsys_analytics", "mcp", *map(str, SERVED)],
                                   cwd=str(ROOT))
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(stdio_client(params)) as (read, write):
            with portal.wrap_async_context_manager(ClientSession(read, write)) as session:
                init = portal.call(session.initialize)
                assert init.instructions.endswith(f"The profiles: {', '.join(p.name for p in SERVED)}.")
                yield Client(portal, session)


def cli_run(args: list[str]):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def cli_json(args: list[str]):
    code, out, err = cli_run(args)
    assert code == 0, err
    return json.loads(out)


def cli_error(args: list[str]) -> str:
    code, _out, err = cli_run(args)
    assert code != 0
    return err.strip().splitlines()[-1]


# -- the tools -----------------------------------------------------------------------------------------------
def test_the_tools_and_their_schemas(server):
    tools = {t.name: t for t in server.tools()}
    assert set(tools) == TOOLS
    for name in TOOLS - {"profiles", "ranks", "diff", "report", "schema"}:
        assert "profile" in tools[name].input_schema["required"], name
        assert tools[name].annotations.read_only_hint
    assert tools["diff"].input_schema["required"] == ["baseline", "candidate"]
    assert tools["sql"].input_schema["required"] == ["profile", "query"]
    assert set(tools["kernels"].output_schema["properties"]) == {"command", "result", "truncated", "note"}
    # the choices a tool offers are the command's own (read from its click options)
    for tool, command, argument, option in [("kernels", "kernels", "name", "--name"),
                                            ("nvtx_kernels", "nvtx-kernels", "attribution", "--attribution"),
                                            ("breakdown", "breakdown", "basis", "--basis"),
                                            ("diagnose", "diagnose", "rule", "--rule"),
                                            ("diff", "diff", "attribution", "--attribution")]:
        schema = tools[tool].input_schema["properties"][argument]
        offered = next(s for s in schema["anyOf"] if s["type"] != "null")
        enum = offered["items"]["enum"] if offered["type"] == "array" else offered["enum"]
        param = next(p for p in cli.get_command(None, command).params if option in p.opts)
        assert enum == list(param.type.choices), tool


def test_profiles_lists_the_start_up_files(server):
    listing = server.answer("profiles", {})["result"]
    assert [p["name"] for p in listing] == [p.name for p in SERVED]
    assert [p["path"] for p in listing] == [str(p) for p in SERVED]


# (tool, arguments, the command line it must name); each answer must equal that command's --format json
CASES = [
    ("info", {"profile": "gpt_train.sqlite"}, ["info", TRAIN]),
    ("kernels", {"profile": "gpt_train.sqlite", "limit": 5, "name": "short", "match": "gemm|elementwise"},
     ["kernels", TRAIN, "--limit", "5", "--name", "short", "--match", "gemm|elementwise"]),
    ("kernels", {"profile": str(TRAIN), "range": "step_*", "exclude_range": "step_0", "attribution": "process",
                 "graphs": True},
     ["kernels", TRAIN, "--range", "step_*", "--exclude-range", "step_0", "--attribution", "process", "--graphs"]),
    ("nvtx", {"profile": "gpt_forward.sqlite"}, ["nvtx", FORWARD]),
    ("nvtx_kernels", {"profile": "gpt_train.sqlite", "attribution": "process", "exclusive": True},
     ["nvtx-kernels", TRAIN, "--attribution", "process", "--exclusive"]),
    ("breakdown", {"profile": "gpt_train.sqlite", "basis": "gpu-busy", "top": 3, "window": "all"},
     ["breakdown", TRAIN, "--basis", "gpu-busy", "--top", "3", "--window", "all"]),
    ("diagnose", {"profile": "gpt_train.sqlite", "window": "all", "rule": ["gpu_gaps", "launch_bound"], "gap": 1},
     ["diagnose", TRAIN, "--rule", "gpu_gaps", "--rule", "launch_bound", "--window", "all", "--gap", "1"]),
    ("modules", {"profile": "modules_instrument.sqlite", "depth": 2, "top": 1},
     ["modules", MODULES, "--depth", "2", "--top", "1"]),
    ("ranks", {"profiles": [RANK0.name, RANK1.name]}, ["ranks", RANK0, RANK1]),
    ("diff", {"baseline": "gpt_forward.sqlite", "candidate": "gpt_train.sqlite", "window": "all"},
     ["diff", FORWARD, TRAIN, "--window", "all"]),
    ("report", {"forward": "gpt_forward.sqlite", "train": "gpt_train.sqlite", "top": 3},
     ["report", "--forward", FORWARD, "--train", TRAIN, "--top", "3"]),
    ("schema", {}, ["schema"]),
    ("schema", {"view": "kernels"}, ["schema", "kernels"]),
    ("sql", {"profile": "gpt_train.sqlite", "query": "SELECT name, count(*) AS n FROM kernels GROUP BY name "
                                                      "ORDER BY n DESC, name LIMIT 7"},
     ["sql", TRAIN, "SELECT name, count(*) AS n FROM kernels GROUP BY name ORDER BY n DESC, name LIMIT 7"]),
    ("sql", {"profile": "gpt_train.sqlite", "query": "SELECT count(*) AS n, (SELECT count(*) FROM f.kernels) AS f "
                                                      "FROM kernels WHERE duration_ns > $min",
             "params": {"min": 10000}, "attach": {"f": "gpt_forward.sqlite"}},
     ["sql", TRAIN, "-a", f"f={FORWARD}", "-p", "min", "10000",
      "SELECT count(*) AS n, (SELECT count(*) FROM f.kernels) AS f FROM kernels WHERE duration_ns > $min"]),
]


@pytest.mark.parametrize("tool, arguments, command", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_tool_answers_what_its_command_prints(server, tool, arguments, command):
    answer = server.answer(tool, {**arguments, **ALL})
    assert shlex.split(answer["command"]) == ["nsys-analytics", *map(str, command), "--format", "json"]
    assert answer["truncated"] == [] and answer["note"] == ""
    assert answer["result"] == cli_json([*command, "--format", "json"])


def test_a_commands_note_reaches_the_assistant_and_by_rank_names_the_straggler():
    """ddp_whole holds both processes of a 2-rank launch of ddp_straggler's workload (rank 1 the designed straggler).
    The terminal's note on stderr (the report read as one profile) was lost to an assistant: it is now the answer's
    note; `by_rank` reads the processes as ranks, and the straggler comes first. A profile of one process has no
    note (the server's cases above)."""
    from nsys_analytics.capabilities.mcp import mcp_cmd, tools
    from nsys_analytics.capabilities.mcp.profiles import Served

    from .conftest import rank_files

    [whole] = rank_files("ddp_whole")
    built = {f.__name__: f for f in tools.build(Served([whole]), mcp_cmd.run, mcp_cmd.run_sql)}
    alone = built["diagnose"](profile=whole.name, **ALL).structured_content
    assert alone["note"].startswith(f"Note: {whole}: This report holds 2 processes that ran kernels"), alone["note"]
    assert "`nsys-analytics ranks`" in alone["note"]
    ranked = built["diagnose"](profile=whole.name, by_rank=True, **ALL).structured_content
    assert shlex.split(ranked["command"])[3:] == ["--by-rank", "--format", "json"] and ranked["note"] == ""
    first = ranked["result"][0]
    assert first["rank"] == "all" and first["output"]["findings"][0]["kind"] == "straggler"
    assert first["output"]["findings"][0]["rank"] == 1
    assert ranked["result"] == cli_json(["diagnose", whole, "--by-rank", "--format", "json"])


def test_kernel_times_equal_nsys_stats(server):
    """An independent check of one answer: the kernels tool's times are nsys' own (cuda_gpu_kern_sum)."""
    import csv

    with open(fixture_oracle("gpt_train", "cuda_gpu_kern_sum")) as f:
        oracle = {r["Name"]: int(r["Total Time (ns)"]) for r in csv.DictReader(f)}
    rows = server.answer("kernels", {"profile": "gpt_train.sqlite", **ALL})["result"]
    assert len(rows) == len(oracle)
    assert {r["name"]: r["total_time_ns"] for r in rows} == oracle


def test_ranks_defaults_to_every_profile_and_stdout_stays_the_protocol(server):
    """With no `profiles`, ranks reads every start-up file: here two of them are not ranks of the run, which the
    command says as an error (the same line) or a warning; either way the session goes on."""
    result = server.call("ranks", {})
    if result.is_error:
        assert result.content[0].text == cli_error(["ranks", *SERVED])
    else:
        assert result.structured_content["result"] == cli_json(["ranks", *SERVED, "--format", "json"])
    assert server.answer("info", {"profile": "gpt_forward.sqlite"})["result"]


# -- rows cut with a note ------------------------------------------------------------------------------------
def test_rows_beyond_max_rows_are_cut_with_a_note(server):
    with sqlite3.connect(TRAIN) as db:  # the distinct kernel names, counted by SQLite itself
        (names,) = db.execute("SELECT count(DISTINCT demangledName) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    answer = server.answer("kernels", {"profile": "gpt_train.sqlite", "max_rows": 4})
    assert len(answer["result"]) == 4
    assert answer["truncated"] == [{"table": "rows", "rows": names, "shown": 4}]
    assert f"rows: {names - 4} of {names} rows left out" in answer["note"]
    assert answer["result"] == cli_json(shlex.split(answer["command"])[1:])[:4]


@pytest.mark.parametrize("max_rows, cut", [(6, 1), (7, 0), (8, 0)])
def test_the_cut_at_its_edge(server, max_rows, cut):
    """Seven rows (kernels --limit 7): one more than max_rows is cut, as many or fewer is not."""
    for tool, arguments in [("kernels", {"profile": "gpt_train.sqlite", "limit": 7}),
                            ("sql", {"profile": "gpt_train.sqlite", "query": "SELECT * FROM range(7)"})]:
        answer = server.answer(tool, {**arguments, "max_rows": max_rows})
        assert len(answer["result"]) == 7 - cut
        assert answer["truncated"] == ([{"table": "rows", "rows": 7, "shown": max_rows}] if cut else [])
        assert bool(answer["note"]) == bool(cut)


def test_sql_rows_are_counted_and_cut(server):
    with sqlite3.connect(TRAIN) as db:
        (kernels,) = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    query = "SELECT start_ns, duration_ns FROM kernels ORDER BY start_ns, duration_ns"
    answer = server.answer("sql", {"profile": "gpt_train.sqlite", "query": query, "max_rows": 3})
    assert answer["truncated"] == [{"table": "rows", "rows": kernels, "shown": 3}]
    assert f"{kernels - 3} of {kernels} rows left out" in answer["note"]
    assert answer["result"] == cli_json(["sql", TRAIN, query, "--format", "json"])[:3]


def test_nested_tables_are_cut_each(server):
    answer = server.answer("breakdown", {"profile": "gpt_train.sqlite", "max_rows": 2})
    full = cli_json(shlex.split(answer["command"])[1:])
    cut = {c["table"]: c for c in answer["truncated"]}
    assert len(cut) > 1
    for table, c in cut.items():
        assert c["rows"] == len(at(full, table)) > 2 and c["shown"] == 2
        assert at(answer["result"], table) == at(full, table)[:2]


def at(doc, where: str):
    """The part of a JSON document that a `truncated` entry names: keys joined by '.', list items as [i]."""
    for part in re.findall(r"\[\d+\]|[^.\[\]]+", where):
        doc = doc[int(part[1:-1])] if part.startswith("[") else doc[part]
    return doc


# -- what is refused -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["/etc/passwd", str(ROOT / "fixtures" / "profiles" / "no_nvtx.sqlite"),
                                  "no_nvtx.sqlite", "../gpt_train.sqlite", ""])
def test_a_profile_not_named_at_start_up_is_refused(server, name):
    text = server.error("info", {"profile": name})
    assert text.startswith(f"Error: {name!r} is not one of this server's profiles")
    assert "\n" not in text
    assert server.error("sql", {"profile": "gpt_train.sqlite", "query": "SELECT 1", "attach": {"x": name}}) == text
    assert server.error("diff", {"baseline": "gpt_train.sqlite", "candidate": name}) == text


def test_hostile_sql_is_refused_as_the_sql_command_refuses_it(server, tmp_path):
    """The sandbox corpus of the `sql` command (88 statements), with its folder placeholder filled: the command
    refuses each (exit 2) and the tool refuses it with the same line; none is run."""
    for statement in HOSTILE:
        query = statement.replace("{E}", str(tmp_path))
        code, _out, err = cli_run(["sql", TRAIN, query])
        assert code == 2, query
        assert server.error("sql", {"profile": "gpt_train.sqlite", "query": query}) == err.strip().splitlines()[-1]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("query", [
    "SELECT * FROM read_csv('/etc/hostname')",
    "SELECT * FROM 'fixtures/oracle/gpt_train/gpt_train_cuda_gpu_kern_sum.csv'",
    "SELECT * FROM read_text('README.md')",
    "SELECT * FROM glob('/etc/*')",
])
def test_a_query_that_names_any_other_file_is_refused(server, query):
    """The `sql` command reads the files a query names (tests/test_sql_read_only.py); a tool does not."""
    assert cli_run(["sql", TRAIN, query])[0] == 0
    text = server.error("sql", {"profile": "gpt_train.sqlite", "query": query})
    assert text.startswith("Error: ") and "reads only the profiles it was started with" in text


def test_a_file_reached_only_at_run_time_is_refused_as_sql_refuses_it(server):
    query = "SELECT * FROM read_csv(getenv('HOME') || '/.profile')"
    assert server.error("sql", {"profile": "gpt_train.sqlite", "query": query}) == cli_error(["sql", TRAIN, query])


@pytest.mark.parametrize("tool, arguments, command", [
    ("kernels", {"profile": "gpt_train.sqlite", "start": "soon"}, ["kernels", TRAIN, "--start", "soon"]),
    ("kernels", {"profile": "gpt_train.sqlite", "range": "no_such_range"}, ["kernels", TRAIN, "--range",
                                                                           "no_such_range"]),
    ("schema", {"view": "no_such_view"}, ["schema", "no_such_view"]),
    ("modules", {"profile": "gpt_train.sqlite", "depth": 2}, ["modules", TRAIN, "--depth", "2"]),  # no module ranges
    ("schema", {"view": "--help"}, ["schema", "--", "--help"]),
    ("sql", {"profile": "gpt_train.sqlite", "query": "SELECT nope FROM kernels"},
     ["sql", TRAIN, "SELECT nope FROM kernels"]),
    ("sql", {"profile": "gpt_train.sqlite", "query": "  "}, ["sql", TRAIN, "  "]),
    ("sql", {"profile": "gpt_train.sqlite", "query": "SELECT 1", "attach": {"": "gpt_forward.sqlite"}},
     ["sql", TRAIN, "-a", f"={FORWARD}", "SELECT 1"]),
])
def test_bad_options_get_the_commands_one_line(server, tool, arguments, command):
    text = server.error(tool, arguments)
    assert text == cli_error(command)
    assert "Traceback" not in text and "\n" not in text


@pytest.mark.parametrize("arguments, line", [
    ({"profile": "gpt_train.sqlite", "limit": 0}, "Error: Invalid value for 'limit': 0 is less than the minimum of 1"),
    ({"profile": "gpt_train.sqlite", "name": "base"},
     "Error: Invalid value for 'name': 'base' is not one of ['demangled', 'short', 'mangled']"),
    ({"limit": 3}, "Error: Missing argument 'profile'"),
    ({"profile": "gpt_train.sqlite", "limt": 3}, "Error: No such argument: 'limt' (kernels takes profile, limit, "
     "by_launch_config, name, device, stream, pid, start, end, match, range, exclude_range, attribution, graphs, "
     "max_rows)"),
])
def test_a_wrong_argument_is_one_line(server, arguments, line):
    assert server.error("kernels", arguments) == line


def test_an_argument_the_sdk_converts_is_taken(server):
    """What the SDK's validation accepts ('5' for an integer) is not refused by the one-line check."""
    given = server.answer("kernels", {"profile": "gpt_train.sqlite", "limit": "5"})
    assert given == server.answer("kernels", {"profile": "gpt_train.sqlite", "limit": 5})


# -- start-up ------------------------------------------------------------------------------------------------
def test_two_files_of_one_name_are_told_apart(tmp_path):
    from nsys_analytics.capabilities.mcp.profiles import Served

    served = Served([tmp_path / "a" / "run.sqlite", tmp_path / "b" / "run.sqlite", tmp_path / "other.sqlite"])
    assert [p["name"] for p in served.listing()] == ["a/run.sqlite", "b/run.sqlite", "other.sqlite"]
    assert served.path("b/run.sqlite") == str(tmp_path / "b" / "run.sqlite")
    with pytest.raises(Exception, match="is not one of this server's profiles"):
        served.path("run.sqlite")


def test_start_up_expands_folders_and_serves_a_file_once(capsys):
    from nsys_analytics.capabilities.mcp.mcp_cmd import checked

    folder = RANKS / "ddp_straggler"
    assert checked([str(TRAIN), str(TRAIN), str(folder), str(RANK0)]) == [TRAIN, RANK0, RANK1]
    oracle = ROOT / "fixtures" / "oracle" / "gpt_train"
    assert checked([str(oracle / ".." / ".." / "profiles" / "gpt_train.sqlite"), str(oracle)]) == \
        [oracle / ".." / ".." / "profiles" / "gpt_train.sqlite"]
    ignored = capsys.readouterr().err.splitlines()
    assert len(ignored) == len(list(oracle.iterdir())) and all(line.startswith("ignored ") for line in ignored)


def test_help_and_other_commands_import_no_part_of_the_sdk():
    for args in (["--help"], ["schema", "kernels"]):
        run = subprocess.run([sys.executable, "-X", "importtime", "-m", "nsys_analytics", *args], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 0
        modules = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if "|" in line}
        assert "nsys_analytics.core.registry" in modules  # the listing is read
        assert not {m for m in modules if m.split(".")[0] in ("mcp", "mcp_types", "pydantic", "anyio")}, args


@pytest.mark.parametrize("bad", ["/nonexistent/run.sqlite", "README.md"])
def test_bad_input_at_start_up_is_the_line_every_command_gives(bad):
    served = subprocess.run([sys.executable, "-m", "nsys_analytics", "mcp", str(TRAIN), bad], cwd=ROOT,
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    by_sql = subprocess.run([sys.executable, "-m", "nsys_analytics", "sql", bad, "SELECT 1"], cwd=ROOT,
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert served.returncode == by_sql.returncode == 1
    assert served.stdout == ""  # no protocol message: it never served
    assert served.stderr == by_sql.stderr and len(served.stderr.splitlines()) == 1
