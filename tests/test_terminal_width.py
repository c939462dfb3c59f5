"""Every table-producing command (test_every_format's invocations, on one profile and on two ranks) laid out at
COLUMNS=80, 120 and unlimited (piped: no COLUMNS; or --wide):

- no line is wider than COLUMNS, except one that holds a single word longer than the width (a kernel name quoted
  in a sentence: words are never broken or cut);
- unlimited is the whole table: --wide at COLUMNS=80 equals the piped output, and it names every column of the
  CSV (read independently of the text layout);
- no sentence is cut: every sentence of the JSON document (a finding, a fix, a note) is in the text word for
  word, in order (wrapped, never shortened with "…" as `the NVTX ranges list…ran then` was); a "…" is left only
  inside shortened names;
- CSV and JSON are the same bytes whatever COLUMNS says.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from click.testing import CliRunner

from nsys_analytics.cli.main import cli

from .test_every_format import MANY, ONE, _table_part, catalog  # noqa: F401 (a fixture)

WIDTHS = (80, 120)
CASES = {**{n: a for n, a in ONE.items() if a is not None}, **{f"{n} (2 ranks)": [*a, "--jobs", "1"]
                                                             for n, a in MANY.items()},
         "schema (every view)": []}  # the listing of view descriptions
_SENTENCE = re.compile(r"^[A-Za-z][^<>]* \w+ \w+ \w+ \w+ .*[.)]$")  # prose: 6+ words, a full stop


def invoke(args: list, columns: int | None, *extra) -> str:
    result = CliRunner().invoke(cli, [*map(str, args), *extra], env={"COLUMNS": str(columns) if columns else None})
    assert result.exit_code == 0, (args, columns, result.output)
    return result.stdout


def arguments(name: str, catalog) -> list:  # noqa: F811
    command = name.split(" (")[0].split()
    return [*command, *(str(a).replace("{db}", str(catalog)) for a in CASES[name])]


@pytest.fixture(scope="module")
def outputs(catalog):  # noqa: F811
    """{case: {width or None: text}}, each run once for the module."""
    return {name: {w: invoke(arguments(name, catalog), w) for w in (*WIDTHS, None)} for name in CASES}


@pytest.fixture(scope="module")
def machine(catalog):  # noqa: F811
    """{case: {fmt: text}}: CSV (ncu: in the units its table shows, `--units auto`) and JSON, piped, once each."""
    def csv_args(name):
        return [*arguments(name, catalog), *(["--units", "auto"] if name == "ncu" else [])]
    return {name: {"csv": invoke(csv_args(name), None, "--format", "csv"),
                   "json": invoke(arguments(name, catalog), None, "--format", "json")} for name in CASES}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_no_line_wider_than_the_terminal(name, width, outputs):
    for line in outputs[name][width].splitlines():
        if len(line) > width:
            assert len(line.split()) == 1, f"{name} at {width}: {len(line)} characters:\n{line}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_unlimited_is_the_whole_table(name, catalog, machine):  # noqa: F811
    args = arguments(name, catalog)
    piped = invoke(args, None)  # again: the cache commands show a cache that other runs change
    assert invoke(args, 80, "--wide") == piped
    assert "Not shown at this width" not in piped
    csv_text = _table_part(machine[name]["csv"])
    header = next(csv.reader(io.StringIO(csv_text)))
    if len(header) > 1 and "(no rows)" not in piped and not name.startswith(("info", "runs show", "cache info")):
        # (key/value layouts show no header; over ranks a `rank` column is added to the CSV only)
        lines = piped.splitlines()
        assert any(all(h in line for h in header if h.lower() != "rank") for line in lines), (name, header)


@pytest.mark.parametrize("width", (*WIDTHS, None))
@pytest.mark.parametrize("name", sorted(CASES))
def test_no_sentence_is_cut(name, width, outputs, machine):
    tokens = outputs[name][width].split()
    for sentence in _sentences(json.loads(machine[name]["json"])):
        assert _found(sentence.split(), tokens), f"{name} at {width}: {sentence!r} is not whole in the output"


def _found(words: list[str], tokens: list[str]) -> bool:
    """`words` in order among `tokens`, close together: a sentence wrapped in a table column has other columns'
    cells between its words, never a word missing or cut (`list…ran`)."""
    span = 4 * len(words) + 40
    for start in (i for i, t in enumerate(tokens) if t == words[0]):
        at = start
        for word in words[1:]:
            at = next((j for j in range(at + 1, min(start + span, len(tokens))) if tokens[j] == word), None)
            if at is None:
                break
        else:
            return True
    return False


def _sentences(doc) -> list[str]:
    if isinstance(doc, str):
        return [doc] if _SENTENCE.match(doc) else []
    values = doc.values() if isinstance(doc, dict) else doc if isinstance(doc, list) else []
    return [s for v in values for s in _sentences(v)]


@pytest.mark.parametrize("fmt", ("csv", "json"))
@pytest.mark.parametrize("name", sorted(CASES))
def test_machine_formats_ignore_the_width(name, fmt, catalog, machine):  # noqa: F811
    args = [*arguments(name, catalog), *(["--units", "auto"] if name == "ncu" and fmt == "csv" else [])]
    if name.startswith(("cache", "runs")):  # a cache or catalog that other tests change: both runs now
        assert invoke(args, 80, "--format", fmt) == invoke(args, None, "--format", fmt)
        return
    assert invoke(args, 80, "--format", fmt) == machine[name][fmt]


def test_statistics_go_first_and_are_named():
    """A hand-made table at 60 columns: Name (50 characters) and Total (13: "1,000,000,000") do not fit whole
    (50 + 2 + 13 = 65 > 60), so the name narrows to 60 - 2 - 13 = 45 (above its floor of 40); Min and Max are left
    out and named in the note."""
    from nsys_analytics.core.result import Result
    from nsys_analytics.output.render import to_table
    from nsys_analytics.output.terminal import laid_out

    names = ["kernel_" + "a" * 43, "kernel_" + "b" * 43]
    result = Result(["name", "total_ns", "min_ns", "max_ns"], [(names[0], 10**9, 1, 2), (names[1], 5, 3, 4)],
                    headers=["Name", "Total (ns)", "Min (ns)", "Max (ns)"])
    with laid_out(60):
        text = to_table(result)
    lines = text.splitlines()
    assert lines[0].split() == ["Name", "Total", "(ns)"]
    assert len(lines[2]) == 60 and lines[2].endswith("1,000,000,000")
    assert "Not shown at this width: Min (ns), Max (ns)" in text
    assert lines[1] == "-" * 45 + "  " + "-" * 13
    assert lines[2][:45] != lines[3][:45]  # two names, two texts
    assert to_table(result).splitlines()[0].split()[-2:] == ["Max", "(ns)"]  # no width: the whole table


def test_at_80_columns_the_columns_that_tell_rows_apart_stay(monkeypatch):
    """At 80 columns a kernel name narrows below its usual floor before a key column goes: diff's Range (one
    kernel in three ranges read as three identical rows), its ranks table's Rank, `cache list`'s status."""
    from .conftest import PROFILES, RANKS

    train, sdpa = PROFILES / "gpt_train.sqlite", PROFILES / "gpt_sdpa_train.sqlite"
    kernels = invoke(["diff", train, sdpa, "--table", "kernels"], 80).split("Kernels (largest change first)")[1]
    assert "Range" in kernels.split("\n")[2], kernels[:400]
    sides = ["--base", *sorted((RANKS / "ddp_balanced").glob("*.sqlite")), "--new",
             *sorted((RANKS / "ddp_straggler").glob("*.sqlite"))]
    ranks = invoke(["diff", *sides, "--table", "ranks"], 80).split("\nRanks\n")[1]
    assert ranks.split("\n")[1].startswith("Rank "), ranks[:300]
    monkeypatch.setenv("NSYS_ANALYTICS_CACHE_MIN_SIZE", "0")  # the fixture is small: cache it all the same
    invoke(["kernels", train], 80)
    listing = invoke(["cache", "list"], 80)
    assert "status" in listing.splitlines()[0], listing


def test_at_80_columns_a_table_keeps_its_main_figure_and_what_tells_rows_apart():
    """At 80 columns `nvtx-kernels` over ranks showed its two name columns and no number at all; `kernels
    --by-launch-config` left out GridXYZ and BlockXYZ (two rows of one name read the same) and `classify` its
    Category. Names now narrow before the first figure with a unit (Total Time) goes, and the launch configuration
    and the category are kept like a name."""
    from .conftest import PROFILES, RANKS

    ranks = sorted((RANKS / "ddp_straggler").glob("*.sqlite"))
    nvtx = invoke(["nvtx-kernels", *ranks, "--jobs", "1"], 80).splitlines()
    assert "Total Time (ns)" in nvtx[1] and "NVTX Range" in nvtx[1] and "Kernel Name" in nvtx[1], nvtx[:3]
    config = invoke(["kernels", PROFILES / "gpt_train.sqlite", "--by-launch-config"], 80).splitlines()
    assert "GridXYZ" in config[0] and "BlockXYZ" in config[0] and "Name" in config[0], config[:2]
    classify = invoke(["classify", *ranks, "--jobs", "1"], 80)
    per_rank = classify.split("Per rank\n")[1].splitlines()
    assert per_rank[0].split()[:2] == ["Rank", "Category"], per_rank[:2]


def test_at_80_columns_the_rank_views_keep_their_figures():
    """`ranks --table phases` left out wait_ms, the figure behind "rank 0 waits ... in `backward`", and `nccl
    --trace` its duration and op while keeping a name cut in the middle."""
    from .conftest import RANKS

    ranks = sorted((RANKS / "ddp_straggler").glob("*.sqlite"))
    phases = invoke(["ranks", *ranks, "--table", "phases", "--jobs", "1"], 80).splitlines()
    header = next(line for line in phases if line.startswith("phase"))
    assert header.split()[:2] == ["phase", "rank"] and "wait_ms" in header, phases[:3]
    trace = invoke(["nccl", *ranks, "--trace", "--jobs", "1"], 80).splitlines()
    header = next(line for line in trace if line.startswith("rank"))
    assert all(c in header.split() for c in ("rank", "op", "duration_ns", "start_ns")), trace[:3]


def test_at_80_columns_the_count_outlasts_the_mean():
    """`kernels` and `nccl`'s per-rank table at 80 columns kept Avg and left out Instances; a mean is the total over
    the count, so the count stays and Avg goes first after the other statistics."""
    from .conftest import PROFILES, RANKS

    kernels = invoke(["kernels", PROFILES / "gpt_train.sqlite", "--limit", "3"], 80)
    assert kernels.splitlines()[0].split()[:6] == ["Time", "(%)", "Total", "Time", "(ns)", "Instances"], kernels
    assert "Not shown at this width: Avg (ns)" in kernels
    ranks = sorted((RANKS / "ddp_straggler").glob("*.sqlite"))
    per_rank = invoke(["nccl", *ranks, "--jobs", "1"], 80).split("Per rank\n")[1].splitlines()
    assert "Instances" in per_rank[0] and "Avg" not in per_rank[0], per_rank[:2]


def test_breakdown_over_ranks_says_its_notes_once():
    """`breakdown` over four rank files printed each column's basis and window under every table (20 lines a
    table at 80 columns). Now the notes come once, under the first table, and the window, the same in every column
    but for each file's own clock, in one sentence."""
    from .conftest import rank_files

    text = invoke(["breakdown", *rank_files("ddp4_backward")], 80)
    assert text.count("Time (%) is of, per column:") == 1 and text.count("as under the tables above") == 1
    assert "Window of every column: the steady state" in text and "Window of ddp4" not in text


def _table(text: str, title: str, first: str) -> list[str]:
    """The lines of the table under `title` in `text` whose header starts with `first`: header, rule and rows."""
    lines = text.split(f"{title}\n", 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def test_at_80_columns_the_count_outlasts_the_share():
    """`nccl --by name` and `kernels` over ranks kept Time (%) at 80 columns and left out Instances, and breakdown's
    top kernels kept the list's Position and left out both. A share is its total over the rows' sum (the total is
    shown), a position is the row's order; how many times a collective or kernel ran nothing else tells."""
    from .conftest import RANKS, rank_files

    ranks = sorted((RANKS / "ddp_straggler").glob("*.sqlite"))
    for args in (["nccl", *ranks, "--by", "name"], ["kernels", *ranks]):
        header = _table(invoke([*args, "--jobs", "1"], 80), "Per rank", "Rank")[0].split()
        assert header[:4] == ["Rank", "Total", "Time", "(ns)"] and "Instances" in header, (args[0], header)
    top = _table(invoke(["breakdown", *rank_files("ddp4_backward")], 80), "Top 8 non-matmul kernels: ddp4_backward.0",
                 "Category")
    assert top[0].split() == ["Category", "Time", "(ns)", "Instances", "Name"], top[:3]


def test_breakdown_over_four_ranks_fits_80_columns():
    """`breakdown` over four rank files showed three of its four rank columns at 80 columns (`ddp4_backward.3 (%)`
    named as left out) and each rank's window under its top kernels again. Now the columns are headed by what tells
    the files apart (`0 (%)`), the window is said once, and no line is wider than 80; wider, the table is whole."""
    from .conftest import rank_files

    files = rank_files("ddp4_backward")
    text = invoke(["breakdown", *files], 80)
    categories = text.split("Matmul vs non-matmul")[0]
    assert _table(text, "GPU time by category", "Category")[0].split() == [
        "Category", "0", "(%)", "1", "(%)", "2", "(%)", "3", "(%)"], categories[:300]
    assert "Not shown" not in categories and 'Columns: their names after "ddp4_backward."' in categories
    assert text.count("Window") == 1 and text.count("Time (%) is of") == 1, text
    assert max(len(line) for line in text.splitlines()) <= 80
    wide = invoke(["breakdown", *files], 200)
    assert "ddp4_backward.3 (%)" in wide and "Columns: their names" not in wide


@pytest.mark.parametrize("args", [["kernels", "gpt_train.sqlite"], ["kernels", "ddp4_backward"],
                                  ["nccl", "ddp4_backward", "--by", "name"], ["classify", "ddp4_backward"]])
def test_at_80_columns_names_are_cut_not_wrapped(args):
    """At 80 columns a kernel name that fitted two lines of its column wrapped onto the second, and cuBLAS names that
    differ in the middle (layout, tile) and at the end (split_k) wrapped whole over three. Every row is one line
    now, each name shortened to a text that no other name of its table shows, cuBLAS ones to their layout and tile
    (`…tn_n_tilesize64x64x8_…e_kernel__5x_cublas`)."""
    from .conftest import PROFILES, rank_files

    command, what, *rest = args
    inputs = [PROFILES / what] if what.endswith(".sqlite") else list(rank_files(what))
    text = invoke([command, *inputs, *rest], 80)
    tables = [t for t in text.split("\n\n") if "  Name\n" in t or "  Name " in t.split("\n")[0]]
    assert tables, text[:500]
    for table in tables:
        lines = table.splitlines()
        header = lines[0] if "Name" in lines[0] else lines[1]
        rows = lines[lines.index(header) + 2:]
        name_at = header.index("Name")
        assert all(row[:name_at].strip() for row in rows), [r for r in rows if not r[:name_at].strip()][:3]
        assert all(len(row) <= 80 for row in rows)
        if "Rank" not in header:  # one row per name: every name its own text
            names = [row[name_at:] for row in rows]
            assert len(set(names)) == len(names), names
    if what == "gpt_train.sqlite":
        assert "…tn_n_tilesize64x64x8_" in text and "…nn_n_tilesize64x64x8_" in text


def test_at_80_columns_a_variant_pair_takes_a_side_a_line():
    """`diff`'s variant kernels (`old -> new`) at 80 columns kept both cuBLAS names whole and wrapped them over five
    lines, the arrow broken in two (`-` / `> nvjet…`). Now each side is shortened to a line of its own, the first
    ending with the arrow, and each shown side still reads as its own kernel's name (checked against the CSV's
    whole names) and as no other side of the table."""
    from .conftest import PROFILES

    args = ["diff", PROFILES / "gpt_train.sqlite", PROFILES / "gpt_sdpa_train.sqlite", "--table", "kernels"]
    whole = list(csv.DictReader(io.StringIO(invoke([*args, "--format", "csv"], None))))[:20]  # the table's order
    pairs = [r["Name"].split(" -> ") for r in whole if r["Name"].count(" -> ") == 1]
    assert len(pairs) >= 5, whole[:3]
    text = invoke([*args, "--limit", "20"], 80)
    assert all(len(line) <= 80 for line in text.splitlines())
    lines = _table(text, "Kernels (largest change first)", "Range")
    name_at = lines[0].index("Name")
    shown = [(line[name_at:-3], lines[k + 1][name_at:]) for k, line in enumerate(lines) if line.endswith(" ->")]
    assert len(shown) == len(pairs), (shown, pairs)
    assert len(lines) == 2 + len(whole) + len(pairs)  # a line a row, two a pair
    sides = {s for pair in pairs for s in pair}
    for (old, new), (old_text, new_text) in zip(pairs, shown):
        for name, text in ((old, old_text), (new, new_text)):
            assert [s for s in sides if _reads_as(s, text)] == [name], (name, text)


def _reads_as(name: str, text: str) -> bool:
    """Whether `name` reads as `text`, a name shortened with `…` (a cut, or collapsed brackets `<…>`, `(…)`), once
    the shortening's other rules are applied by hand: namespaces (`at::native::`) and casts (`(int)4`) left out,
    `(instance 1)]` as `#1]`."""
    casts, spaces = r"\((?:unsigned )?(?:int|long|char|bool)\)(?=[-\d])", r"\b\w+::(?!\[)"
    forms = {re.sub(r" \(instance (\d+)\)\]", r"#\1]", re.sub(rule, "", name))  # nvcc's lambda numbering
             for rule in (casts, spaces, f"{casts}|{spaces}", "$^")}
    pattern = ".*?".join(map(re.escape, text.split("…")))
    return any(re.fullmatch(pattern, n, re.DOTALL) for n in forms)


@pytest.mark.parametrize("count", [400, 3000])
def test_many_long_names_at_80_columns_each_get_their_own_line_and_text(count):
    """Hundreds of cuBLAS-like names that differ in several places: at 80 columns every row is one line and no two
    names show the same text, also past the size (about 1,500 long names) where the cut stops looking for one that
    no other name fits and takes the first that no other name shows."""
    from nsys_analytics.core.result import Result
    from nsys_analytics.output.render import STRICT_TEXT, to_table
    from nsys_analytics.output.terminal import laid_out

    names = sorted({f"sm80_xmma_gemm_f32f32_{lay}_n_tilesize{a}x{b}x8_stage{s}_warpsize{w}x2x1_ffma_align{al}_"
                    f"execute_kernel__5x_cublas{k}" for lay in ("nn", "nt", "tn", "tt") for a in (32, 64, 128, 256)
                    for b in (32, 64, 128) for s in (2, 3, 4, 5, 6) for w in (1, 2, 4) for al in (1, 2, 4)
                    for k in ("", "_splitK")})[:count]
    assert len(names) == count and (len("\n".join(names)) > STRICT_TEXT) == (count > 2500)
    result = Result(["n", "name"], [(i, n) for i, n in enumerate(names)], [], ["Instances", "Name"])
    with laid_out(80):
        lines = to_table(result).splitlines()
    assert len(lines) == 2 + count and all(len(line) <= 80 for line in lines)
    shown = [line[line.index("  ", 9) + 2:] for line in lines[2:]]
    assert len(set(shown)) == count
    for name, text in zip(names, shown):
        assert _reads_as(name, text.strip()), (name, text)


def test_a_terminal_that_reports_no_size_prints_the_whole_table():
    """A new pseudo-terminal reports 0 columns until someone sets its size (`docker run -t`, `script`, a test's
    pty). That is no width: the table is printed whole, as piped, where `ranks` failed with an internal error
    ("invalid width 0") wrapping its notes."""
    import os
    import pty
    import subprocess
    import sys

    from .conftest import rank_files

    alone = rank_files("ddp4_balanced")[0]
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    master, slave = pty.openpty()
    assert os.get_terminal_size(slave).columns == 0
    shown = subprocess.run([sys.executable, "-m", "nsys_analytics", "ranks", "--jobs", "1", str(alone)],
                           stdout=slave, stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    os.close(slave)
    screen = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # the other end is closed: all is read
            break
        if not chunk:
            break
        screen += chunk
    os.close(master)
    assert shown.returncode == 0, shown.stderr
    piped = subprocess.run([sys.executable, "-m", "nsys_analytics", "ranks", "--jobs", "1", str(alone)],
                           capture_output=True, text=True, env=env, timeout=300)
    table = piped.stdout.split("Per rank")[1]
    assert table.replace("\n", "\r\n") in screen.decode()
