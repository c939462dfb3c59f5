"""One writer in the house: files are written whole by core/files.py alone (the cache keeps its own), `--format` is
declared once (output/options.py), every exit code is named in core/errors.py, and the names the Ctrl-C handler
looks up at run time are modules that exist. A checker over the package's source, shown to find what it forbids."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "nsys_analytics"
WRITER = "core/files.py"
CACHE = "data/cache/"  # the cache writes its own files (they are no one's output, and it has its own lock)

RENAMES = {("os", "replace"), ("os", "rename"), ("shutil", "move"), ("tempfile", "mkstemp"),
           ("tempfile", "mkdtemp"), ("tempfile", "NamedTemporaryFile")}


def violations(source: str) -> list[str]:
    """The calls in `source` that write a file by their own temporary-then-rename route, `--format` options
    declared in place, and exit codes given as bare numbers."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and (f.value.id, f.attr) in RENAMES:
            scratch = f.value.id == "tempfile" and not any(k.arg == "dir" for k in node.keywords)
            if not scratch:  # a temporary file beside a target; one in the system's temp folder is scratch space
                found.append(f"{f.value.id}.{f.attr}")
        if isinstance(f, ast.Attribute) and f.attr in ("replace", "rename") and not node.keywords and \
                len(node.args) == 1 and not isinstance(node.args[0], ast.Constant) and _is_path_call(f.value):
            found.append(f"Path.{f.attr}")
        if isinstance(f, ast.Attribute) and f.attr == "option" and any(
                isinstance(a, ast.Constant) and a.value == "--format" for a in node.args):
            found.append("--format declared")
        if isinstance(f, ast.Attribute) and f.attr in ("Exit", "exit") and any(
                isinstance(a, ast.Constant) and isinstance(a.value, int) and a.value != 0 for a in node.args):
            found.append(f"exit code {node.args[0].value}")
    return found


def _is_path_call(value) -> bool:
    """`Path(...)`, `x.with_name(...)`, `x.with_suffix(...)`: a path, not a string or a DataFrame."""
    return isinstance(value, ast.Call) and (
        (isinstance(value.func, ast.Name) and value.func.id == "Path")
        or (isinstance(value.func, ast.Attribute) and value.func.attr in ("with_name", "with_suffix")))


def package_violations() -> dict[str, list[str]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        found = violations(path.read_text())
        if rel == WRITER or rel.startswith(CACHE):
            found = [v for v in found if v not in {f"{a}.{b}" for a, b in RENAMES} | {"Path.replace", "Path.rename"}]
        if rel == "output/options.py":
            found = [v for v in found if v != "--format declared"]
        if found:
            out[rel] = found
    return out


def test_the_package_writes_through_the_one_writer():
    assert package_violations() == {}


@pytest.mark.parametrize("source, expected", [
    ("import os\nos.replace(a, b)\n", ["os.replace"]),
    ("import tempfile\nfd, t = tempfile.mkstemp(dir=d)\n", ["tempfile.mkstemp"]),
    ("from pathlib import Path\nPath(tmp).replace(target)\n", ["Path.replace"]),
    ("p.with_name('x').rename(q)\n", ["Path.rename"]),
    ("import tempfile\nscratch = tempfile.mkdtemp(prefix='work-')\n", []),
    ("import click\nclick.option('--format', 'fmt')\n", ["--format declared"]),
    ("import click\nraise click.exceptions.Exit(4)\n", ["exit code 4"]),
    # not writers: a string's replace, a frame's rename, a named exit code
    ("name.replace('a', 'b')\nframe.rename(columns={'a': 'b'})\nraise click.exceptions.Exit(EXIT_FINDINGS)\n", []),
])
def test_the_checker_finds_what_it_forbids(source, expected):
    assert violations(source) == expected


def test_modules_looked_up_by_name_exist():
    """interrupts.py finds the DuckDB connections and the temporary files by module name (importing them would
    cost start-up); a module that moved would silently leave both behind on Ctrl-C."""
    text = (PACKAGE / "cli" / "interrupts.py").read_text()
    lookup = re.search(r'sys\.modules\.get\(f"nsys_analytics\.\{m\}"\) for m in \(([^)]*)\)', text)
    assert lookup, "interrupts.py no longer looks modules up by name: update this test"
    names = re.findall(r'"([\w.]+)"', lookup.group(1))
    assert names and all(importlib.util.find_spec(f"nsys_analytics.{n}") for n in names), names
