"""One word for the NVTX attribution (thread / process / gpu): `attribution` from the click option through Python
to the SQL parameter and column. The old spellings (`mode`, `$mode`, `range_mode`, `want_mode`) fail the grep;
`--attribution process` end to end is checked against a count made here from the export with sqlite3."""

from __future__ import annotations

import io
import json
import re
import sqlite3
import tokenize
from pathlib import Path

from click.testing import CliRunner

from nsys_analytics.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
TRAIN = ROOT / "fixtures" / "profiles" / "gpt_train.sqlite"

OLD_ANYWHERE = re.compile(r"\brange_mode\b|\bwant_mode\b|\$mode\b")
OLD_NAMES = {"mode", "MODES", "_MODE_NOTES", "range_mode", "want_mode"}
# Where `mode` means something else: the timer CSV's forward/train column, ast.parse's mode.
OTHER_MODES = {"nsys_analytics/capabilities/assignment/report.py", "nsys_analytics/capabilities/ncu/expr.py"}
_SQL_NOT_CODE = re.compile(r"'(?:[^']|'')*'|--[^\n]*")


def old_spellings(root: Path) -> list[str]:
    """`file:line: text` of every old spelling of the attribution in the package's Python and in sql/."""
    found = []
    for path in sorted([*root.glob("nsys_analytics/**/*.py"), *root.glob("sql/**/*.sql")]):
        rel = path.relative_to(root).as_posix()
        text = path.read_text()
        found += [f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: {m[0]}" for m in OLD_ANYWHERE.finditer(text)]
        if path.suffix == ".sql":
            code = _SQL_NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), text)
            found += [f"{rel}:{code.count(chr(10), 0, m.start()) + 1}: mode" for m in re.finditer(r"\bmode\b", code)]
        elif rel not in OTHER_MODES:
            found += [f"{rel}:{line}: {name}" for line, name in _python_old_names(text)]
    return found


def _python_old_names(text: str) -> list[tuple[int, str]]:
    """Identifiers, keyword arguments and dict keys ('"mode"') spelled the old way."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME and tok.string in OLD_NAMES:
            out.append((tok.start[0], tok.string))
        elif tok.type == tokenize.STRING and tok.string.strip("\"'") in OLD_NAMES:
            out.append((tok.start[0], tok.string))
    return out


def test_no_old_spelling_of_the_attribution():
    assert old_spellings(ROOT) == []


def test_the_grep_finds_each_old_spelling(tmp_path):
    (tmp_path / "sql").mkdir()
    (tmp_path / "nsys_analytics").mkdir()
    (tmp_path / "sql" / "q.sql").write_text("-- $mode: old\nSELECT mode FROM t WHERE x = 'mode' -- mode\n")
    (tmp_path / "nsys_analytics" / "m.py").write_text('def f(mode):\n    return {"mode": mode}\n')
    assert old_spellings(tmp_path) == ["nsys_analytics/m.py:1: mode", 'nsys_analytics/m.py:2: "mode"',
                                       "nsys_analytics/m.py:2: mode", "sql/q.sql:1: $mode", "sql/q.sql:2: mode"]


def _launched_inside(attribution: str, text: str) -> int:
    """Kernels whose launching runtime call (same correlation id, same process) ran inside a push/pop or start/end
    range with this text: on the range's thread ('thread') or any thread of its process ('process')."""
    same = "r.globalTid = c.globalTid" if attribution == "thread" else "r.globalTid >> 24 = c.globalTid >> 24"
    query = f"""
        SELECT count(DISTINCT k.rowid)
        FROM CUPTI_ACTIVITY_KIND_KERNEL AS k
        JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS c ON c.correlationId = k.correlationId AND c.globalTid >> 24 = k.globalPid >> 24
        JOIN NVTX_EVENTS AS r ON r.eventType IN (59, 60) AND {same} AND r.start <= c.start AND c."end" <= r."end"
        JOIN StringIds AS s ON s.id = r.textId
        WHERE s.value = ?"""
    with sqlite3.connect(f"file:{TRAIN}?mode=ro", uri=True) as con:
        return con.execute(query, (text,)).fetchone()[0]


def test_attribution_process_end_to_end():
    """`kernels --range backward --attribution process`: autograd launches the backward kernels from its own
    thread, so the process attribution finds them and the thread attribution (nsys' rule) almost none."""
    counts = {}
    for attribution in ("thread", "process"):
        out = CliRunner().invoke(cli, ["kernels", str(TRAIN), "--range", "backward", "--attribution", attribution,
                                       "--format", "json"])
        assert out.exit_code == 0, out.output
        counts[attribution] = sum(row["instances"] for row in json.loads(out.output))
        assert counts[attribution] == _launched_inside(attribution, "backward")
    assert counts["process"] > 100 * counts["thread"] > 0
