"""The registry of commands (nsys_analytics/core/registry.py) against the code: one record per command module and
one command module per record, each record's summary equal to its command's own help line, every merge importable,
and `--help` listing exactly the records in their order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from nsys_analytics.cli import many
from nsys_analytics.cli.main import cli
from nsys_analytics.core import layers, registry

from .conftest import ROOT

PACKAGE = ROOT / "nsys_analytics"
RECORDS = registry.records()
BY_NAME = {r.name: r for r in RECORDS}


def command_modules(package: Path) -> set[str]:
    """The dotted names of the command modules (`*_cmd.py`) in the capability folders and in cli/."""
    files = [*package.glob(f"capabilities/*/*{layers.COMMAND_SUFFIX}.py"), *package.glob("cli/*_cmd.py")]
    return {".".join(("nsys_analytics", *p.relative_to(package).with_suffix("").parts)) for p in files}


def mismatches(package: Path) -> list[str]:
    """What keeps the records of the tree at `package` from being one per command module."""
    records = registry.read(str(package))
    modules = [r.module for r in records]
    found = command_modules(package)
    out = [f"no record for {m}" for m in sorted(found - set(modules))]
    out += [f"record {r.name!r}: no module {r.module}" for r in records if r.module not in found]
    out += [f"two records for {m}" for m in sorted({m for m in modules if modules.count(m) > 1})]
    names = [r.name for r in records]
    out += [f"two records named {n!r}" for n in sorted({n for n in names if names.count(n) > 1})]
    return out


# -- the package --------------------------------------------------------------------------------------------
def test_one_record_per_command_module():
    assert mismatches(PACKAGE) == []
    assert len(RECORDS) == len(command_modules(PACKAGE)) > 20  # it did find them


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.name)
def test_record_matches_its_command(record):
    command = cli.get_command(None, record.name)  # imports record.module, takes its `command`
    assert command.name == record.name
    assert record.summary == command.get_short_help_str(limit=1000)
    assert record.doc is None or (ROOT / record.doc).is_file()
    params = {p.name for p in getattr(command, "params", ())}
    assert set(record.merge_unless) <= params, "merge_unless names an option the command does not have"


@pytest.mark.parametrize("record", [r for r in RECORDS if r.merge], ids=lambda r: r.name)
def test_every_merge_resolves_to_a_callable(record):
    assert record.ranks, "a merge over ranks on a command that takes no ranks"
    assert callable(registry.resolve(record.merge))


def test_commands_over_rank_sets_say_so():
    """A command built on the many-profile decorator (cli/many.py) takes ranks; its record must say so."""
    for record in RECORDS:
        callback = cli.get_command(None, record.name).callback
        if hasattr(callback, "__single__"):
            assert record.ranks, record.name


def test_merges_are_those_of_before():
    """The merges and the options that turn them off, as cli/many.py chose them by hand before the registry."""
    expected = {"kernels": "kernel_summary_set", "nvtx": "nvtx_sum_set", "nvtx-kernels": "nvtx_kernels_set",
                "nvtx-gpu": "nvtx_gpu_set", "classify": "classify_set", "diagnose": "diagnose_set"}
    found = {r.name: r for r in RECORDS if r.merge}
    assert set(found) == set(expected)
    for name, record in found.items():
        merge = many._merge_for(record.module, {})
        code = merge.__code__
        assert expected[name] in code.co_names + code.co_varnames, name
    assert many._merge_for(BY_NAME["nvtx-gpu"].module, {"trace": True}) is None
    assert many._merge_for(BY_NAME["nvtx-kernels"].module, {"per_instance": True}) is None
    assert many._merge_for(BY_NAME["nvtx-kernels"].module, {"per_instance": False}) is not None
    assert many._merge_for(BY_NAME["info"].module, {}) is None
    assert many._merge_for("nsys_analytics.capabilities.kernels.report", {}) is None


def test_help_lists_exactly_the_records_in_order():
    text = CliRunner().invoke(cli, ["--help"], terminal_width=200).output
    listed = [line.split()[0] for line in text.split("Commands:\n", 1)[1].splitlines() if line.strip()]
    assert listed == registry.names()
    # today's commands keep the order --help gave them before the registry (cli/main.py's COMMANDS); a new one may
    # go anywhere
    before = ["info", "kernels", "sql", "schema", "nvtx", "nvtx-kernels", "nvtx-gpu", "classify", "breakdown",
              "attention", "report", "diagnose", "ncu", "ranks", "nccl", "timeline", "export", "html", "diff", "runs",
              "cache", "profile"]
    assert [name for name in listed if name in before] == before


def test_an_unknown_command_is_a_usage_error():
    result = CliRunner().invoke(cli, ["kernel"])
    assert result.exit_code == 2 and "No such command 'kernel'" in result.output


# -- the checker finds what it should -----------------------------------------------------------------------
def _tree(tmp_path: Path, records: dict[str, list[dict]], modules: list[str]) -> Path:
    package = tmp_path / "nsys_analytics"
    (package / "cli").mkdir(parents=True)
    for folder, commands in records.items():
        (package / folder).mkdir(parents=True, exist_ok=True)
        (package / folder / registry.RECORD_FILE).write_text(json.dumps({"commands": commands}))
    for module in modules:
        (package / module).parent.mkdir(parents=True, exist_ok=True)
        (package / module).write_text("")
    return package


def _entry(name: str, module: str, order: int = 10) -> dict:
    return {"name": name, "order": order, "module": module, "summary": f"{name}."}


def test_checker_passes_a_matching_tree(tmp_path):
    package = _tree(tmp_path, {"capabilities/a": [_entry("a", "a_cmd")], "cli": [_entry("c", "c_cmd", 5)]},
                    ["capabilities/a/a_cmd.py", "capabilities/a/data.py", "cli/c_cmd.py"])
    assert mismatches(package) == []
    assert [r.name for r in registry.read(str(package))] == ["c", "a"]  # by order, not by folder


@pytest.mark.parametrize("case, problem", [
    ("missing record", "no record for nsys_analytics.capabilities.b.b_cmd"),
    ("extra record", "record 'ghost': no module nsys_analytics.capabilities.a.ghost_cmd"),
    ("two records", "two records for nsys_analytics.capabilities.a.a_cmd"),
    ("one name twice", "two records named 'a'"),
])
def test_checker_finds_a_missing_or_extra_record(tmp_path, case, problem):
    records = {"capabilities/a": [_entry("a", "a_cmd")]}
    modules = ["capabilities/a/a_cmd.py"]
    if case == "missing record":
        modules.append("capabilities/b/b_cmd.py")
    elif case == "extra record":
        records["capabilities/a"].append(_entry("ghost", "ghost_cmd"))
    elif case == "two records":
        records["capabilities/a"].append(_entry("a2", "a_cmd"))
    else:
        records["capabilities/b"] = [_entry("a", "b_cmd")]
        modules.append("capabilities/b/b_cmd.py")
    assert problem in mismatches(_tree(tmp_path, records, modules))


def test_a_record_missing_a_field_names_its_file(tmp_path):
    package = _tree(tmp_path, {"capabilities/a": [{"name": "a", "module": "a_cmd"}]}, ["capabilities/a/a_cmd.py"])
    with pytest.raises(ValueError, match=r"capabilities/a/capability.json: bad record 'a'"):
        registry.read(str(package))
