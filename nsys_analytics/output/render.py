"""Turn a Result into text: an aligned table, CSV, JSON or markdown. No queries here."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import textwrap
from bisect import bisect_left, bisect_right
from collections import Counter
from functools import lru_cache
from itertools import accumulate

from ..core.errors import MissingDataError, UsageError
from . import fit
from .terminal import current_width, wrap_text

MACHINE_FORMATS = ("csv", "json")  # exact bytes; every other format is for people and escapes control characters
NAME_WIDTH = 128  # long kernel names are shortened to this many characters, in the table format only
ONE_LINE_WIDTH = 120  # in a terminal this wide or narrower a name is cut to its column, never wrapped

# Kernel, range and file names are anyone's strings: on a terminal ESC, BEL or CR would move the cursor, recolour,
# retitle or hide text, and bidirectional overrides reorder it. Human formats show them as escapes (\x1b, \u202e).
_CONTROLS = [*range(0x20), 0x7F, *range(0x80, 0xA0), 0x200E, 0x200F, *range(0x202A, 0x202F),
             *range(0x2066, 0x206A)]
_ESCAPES = {cp: (f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}") for cp in _CONTROLS}
_ESCAPES_KEEP_LINES = {cp: e for cp, e in _ESCAPES.items() if cp != 0x0A}


def escape_controls(text: str, keep_newlines: bool = False) -> str:
    """`text` with control characters shown as escapes (`\\x1b`), for output that a terminal interprets."""
    return text.translate(_ESCAPES_KEEP_LINES if keep_newlines else _ESCAPES)


def for_people(text: str, fmt: str) -> str:
    """Rendered output as it may reach a terminal: control characters escaped except in CSV and JSON."""
    return text if fmt in MACHINE_FORMATS else escape_controls(text, keep_newlines=True)


def render(result, fmt: str = "table") -> str:
    if fmt == "csv":
        return to_csv(result)
    if fmt == "json":
        return to_json(result)
    if fmt == "markdown":
        return to_markdown(result)
    return to_table(result)


def chunks(result, fmt: str = "table"):
    """The rendered text in pieces: a streamed result's CSV and JSON a batch at a time (the same text as
    `render`); other formats need every row first (column widths, alignment), so they read them all."""
    if result.batches is None or fmt not in ("csv", "json"):
        yield render(result.materialize(), fmt)
        return
    if fmt == "csv":
        yield to_csv(_with_rows(result, []))
        for batch in result.batches:
            yield to_csv(_with_rows(result, batch)).split("\n", 1)[1]
        return
    first = True
    for batch in result.batches:
        text = to_json(_with_rows(result, batch))
        if text.startswith("[]"):
            continue
        yield ("[\n" if first else ",\n") + text[2:-3]  # the records, without "[\n" and "\n]\n"
        first = False
    yield "[]\n" if first else "\n]\n"


def _with_rows(result, rows):
    from dataclasses import replace

    return replace(result, rows=rows, batches=None)


def pick_table(tables: dict, name: str | None, default: str):
    """The one table a CSV holds, of a command that has several: `name` (--table), else `default`.

    `tables`: {name: Result, or the sentence saying why that table could not be made}."""
    name = name or default
    if name not in tables:
        raise UsageError(f"--table {name!r}: this output has the tables {', '.join(tables)} (default {default})")
    table = tables[name]
    if isinstance(table, str):
        raise MissingDataError(f"table {name!r} is not available: {table}")
    return table


def to_csv(result) -> str:
    """CSV as nsys writes it: one decimal on fractional columns, integers as they are."""
    text = _csv_text(result, csv.QUOTE_MINIMAL)
    # With "\n" as line end the csv module quotes a field with a "\n" but not one with a lone "\r", which readers
    # take for a line end: a name with one quotes every field (rare; checked once on the whole text).
    return text if "\r" not in text else _csv_text(result, csv.QUOTE_NONNUMERIC)


def _csv_text(result, quoting: int) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=quoting)
    writer.writerow(result.display_headers)
    # The csv module writes None as '' and other values with str(); only floats need their one decimal. A
    # comprehension per row, not a call per cell: a trace can have millions of rows.
    if getattr(result, "exact", False):  # str(float) is the shortest text that reads back as the same double
        writer.writerows(result.rows)
        return out.getvalue()
    writer.writerows([f"{v:.1f}" if type(v) is float else v for v in row] for row in result.rows)
    return out.getvalue()


def to_json(result) -> str:
    records = [dict(zip(result.columns, (_json_value(v) for v in row))) for row in result.rows]
    return json.dumps(records, indent=2, default=str) + "\n"


def to_markdown(result) -> str:
    headers = [escape_controls(h) for h in result.display_headers]
    numeric = _numeric_columns(result)
    lines = ["| " + " | ".join(headers) + " |"]
    lines.append("|" + "|".join("---:" if numeric[i] else "---" for i in range(len(headers))) + "|")
    places = _places(result)
    for row in result.rows:
        cells = [escape_controls(_pretty(v, p)).replace("|", "\\|") for v, p in zip(row, places)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines + [""] + [f"_{escape_controls(n)}_" for n in result.notes]) + "\n"


def to_table(result) -> str:
    """An aligned table like nsys' console output: numbers right-aligned with thousands separators. Under a width
    (`terminal.current_width()`) long names are shortened further, sentences wrapped and low-priority columns left
    out (output/fit.py), with a note naming them."""
    width = current_width()
    notes = [wrap_text(escape_controls(n, keep_newlines=True), width) for n in result.notes]
    if not result.rows:
        return "(no rows)\n" + "".join(f"{n}\n" for n in notes)
    headers, numeric, prose, cells = _prepared(result)
    natural, fitted = _fitted(result, headers, cells, numeric, prose, width)
    if fitted is None:
        shown, widths, dropped = list(range(len(headers))), natural, []
    else:
        shown, widths, dropped = fitted.shown, fitted.widths, fitted.dropped
        cells = _narrowed(result, cells, numeric, prose, widths)
    lines = [_line([headers[i] for i in shown], [widths[i] for i in shown], [False] * len(shown)),
             "  ".join("-" * widths[i] for i in shown)]
    for row in cells:
        lines += _row_lines(row, shown, widths, numeric, prose)
    text = "\n".join(line.rstrip() for line in lines) + "\n"
    if dropped:
        left_out = ", ".join(headers[i] for i in dropped)
        notes.append(wrap_text(f"Not shown at this width: {left_out} (--wide shows every column).", width))
    return text + "".join(f"\n{n}" for n in notes) + ("\n" if notes else "")


def fits_whole(result) -> bool:
    """Whether `to_table` shows every column of `result` at its whole width at the current width."""
    width = current_width()
    if width is None or not result.rows:
        return True
    headers, numeric, prose, cells = _prepared(result)
    return _fitted(result, headers, cells, numeric, prose, width)[1] is None


def _prepared(result) -> tuple[list[str], list[bool], list[bool], list[list[str]]]:
    """A table's headers as shown, which columns are numbers and which sentences, and its cells' texts."""
    headers = [escape_controls(h) for h in result.display_headers]
    numeric = _numeric_columns(result)
    prose = [not numeric[i] and _is_prose(result, i) for i in range(len(headers))]
    return headers, numeric, prose, _cells(result, numeric, prose, NAME_WIDTH)


def _fitted(result, headers, cells, numeric, prose, width):
    """Each column's natural width, and the plan that fits the table to `width` (None: it fits whole)."""
    natural = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    flexible = [not numeric[i] and natural[i] > len(headers[i]) for i in range(len(headers))]
    keys = [result.columns.index(c) for c in result.key_columns if c in result.columns]
    fitted = fit.plan(headers, natural, flexible, prose, keys, width) if width else None
    if fitted is None or (not fitted.dropped and all(fitted.widths[i] >= natural[i] for i in fitted.shown)):
        return natural, None
    return natural, fitted


# Words of letters separated by single spaces: five in a row make a sentence (a finding, a fix), unless they are
# only C type words (`const unsigned long long int`); an argument list's words have commas between them.
_WORD_RUN = re.compile(r"\b[A-Za-z]+(?: [A-Za-z]+\b){4,}")
_C_WORDS = {"const", "volatile", "unsigned", "signed", "long", "short", "int", "char", "void", "float", "double",
            "bool", "struct", "class", "enum", "operator", "lambda"}


def _is_prose(result, i: int) -> bool:
    """A text column of sentences: wrapped at word boundaries, never shortened."""
    return any(isinstance(row[i], str) and _reads_as_sentence(row[i]) for row in result.rows)


def _reads_as_sentence(text: str) -> bool:
    return any(set(run.split()) - _C_WORDS for run in _WORD_RUN.findall(text))


def _cells(result, numeric, prose, name_width: int) -> list[list[str]]:
    """Every cell as text: numbers with separators, sentences whole, names by the unique-name rule."""
    # each side of a pair (old -> new) is a kernel name, shortened to name_width as any other
    texts = [shorten_names({_text(row[i]) for row in result.rows}, name_width, name_width)
             if not (numeric[i] or prose[i]) else {} for i in range(len(numeric))]
    places = _places(result)
    return [[_pretty(v, places[i]) if numeric[i] else _text(v) if prose[i] else texts[i][_text(v)]
             for i, v in enumerate(row)] for row in result.rows]


def _places(result) -> list[int]:
    """Each column's decimals for a float (Result.decimals, else one)."""
    decimals = getattr(result, "decimals", None) or {}
    return [decimals.get(c, 1) for c in result.columns]


def _narrowed(result, cells, numeric, prose, widths) -> list[list[str]]:
    """The name columns narrowed below NAME_WIDTH shortened again to their width, each column on its own."""
    cells = [list(r) for r in cells]
    width = current_width()
    one_line = width is not None and width <= ONE_LINE_WIDTH
    for i, w in widths.items():
        if numeric[i] or prose[i] or w >= max(len(r[i]) for r in cells):
            continue
        texts = _distinct_cuts(shorten_names({_text(row[i]) for row in result.rows}, w), w, one_line)
        for r, row in zip(cells, result.rows):
            r[i] = texts[_text(row[i])]
    return cells


def _distinct_cuts(shown: dict[str, str], width: int, one_line: bool = False) -> dict[str, str]:
    """Names that the unique-name rule left longer than two lines of `width` (their middle cut is another name's
    too) cut elsewhere: from where they first differ from the column's other names, else at the head and tail
    lengths nearest the middle that no other name shows; a shorter one, or one no cut tells apart, stays whole (its
    cell wraps: a cut there would take the functor that tells it apart).

    `one_line` (a narrow terminal): every name longer than `width` is cut, so that none wraps, to a cut that no
    other name of the column also fits (starts, holds and ends as it shows) where one does, else to a window on
    where it differs and a tail (`…tn_n_tilesize64x64x8…e_kernel__5x_cublas`). A list (`a, b, c`) still wraps
    within two lines, and a pair `old -> new` takes two: each side cut so among the column's sides to a line of its
    own, the arrow at the end of the first (`_cell_lines`)."""
    if one_line:
        shown = _pairs_on_two_lines(shown, width)
    long = sorted(n for n, t in shown.items() if t.count(PAIR) != 1  # pairs (old -> new): told apart by their sides
                  and len(t) > (width if one_line and not _is_list(t) else 2 * width))
    if not long:
        return shown
    column = _Column(shown, width, one_line)
    out = dict(shown)
    for name in long:
        text = column.told_apart(shown[name])
        if text is not None:
            out[name] = text
            column.taken.add(text)
    return out


STRICT_TEXT = 256 * 1024  # the most characters of a column's texts that a strict cut (`_Column`) looks through


class _Column:
    """The texts of one name column, for cutting its long names to `width` so that each still tells its name."""

    def __init__(self, shown: dict[str, str], width: int, strict: bool):
        self.others = sorted(set(shown.values()))
        self.blob = "\n".join(self.others)  # every text, to find those that hold a piece at C speed
        # strict: a cut that another name fits is a last resort. Each cut tried is looked for in every text, so in
        # a column of more than about 1,500 long names (3,000: 3.5 s at 80 columns) the first cut that no other name
        # shows is taken instead.
        self.width, self.strict = width, strict
        self.avoid_fits = strict and len(self.blob) <= STRICT_TEXT
        self.starts = list(accumulate((len(t) + 1 for t in self.others[:-1]), initial=0))
        mid = (width - 1) // 2
        self.heads = sorted(range(1, width - 1), key=lambda h: (abs(h - mid), -h))
        # a cut that two names share tells neither
        self.cuts = {h: Counter(_cut(t, width, h) for t in shown.values()) for h in self.heads}
        self.taken = {t for t in shown.values() if len(t) <= width}
        self._ending: dict[str, list[str]] | None = None

    def told_apart(self, text: str) -> str | None:
        """The first cut of `text` (`cuts_of`) that no other text of the column shows; strict (and the column not
        too long to search, `avoid_fits`), the first that no other text fits, where one does."""
        first = None
        for pieces in self.cuts_of(text):
            shown = _joined(pieces)
            if shown in self.taken:
                continue
            if not self.avoid_fits or not self.fits_another(text, pieces):
                return shown
            first = first or shown
        return first

    def cuts_of(self, text: str):
        """`text`'s cuts to the width as (head, middle, tail), the likeliest to tell it apart first."""
        width = self.width
        yield _from_difference(text, self.others, width, whole_end=self.strict)
        for h in self.heads:
            if self.cuts[h][_cut(text, width, h)] == 1:
                yield text[:h], "", text[len(text) - (width - 1 - h):]
        if self.strict:
            yield from self.windows(text)

    def windows(self, text: str):
        """`…middle…tail` cuts of `text`: tails just long enough to tell it from other names that end alike (none
        first), each with the middles nearest to where it first differs from the names that end as that tail."""
        n, width = len(text), self.width
        ending = self.ending()
        alike = [ending.get(text[n - t:] if t else "", []) for t in range(min(width // 2, n) + 1)]  # with itself
        # a tail of t characters is worth trying where some name shares exactly t - 1 of them with `text`
        for t in [0] + [t for t in range(1, len(alike)) if len(alike[t - 1]) > len(alike[t])]:
            m = width - 2 - t
            if m < 1:
                break
            at = _nearest_head(text, alike[t]) - m // 4
            for s in sorted(range(1, n - t - m), key=lambda s: abs(s - at)):
                yield "", text[s:s + m], text[n - t:] if t else ""

    def ending(self) -> dict[str, list[str]]:
        """{tail: the texts that end with it, sorted} for tails up to half the width (made once, when first asked):
        comparing each long name's tail and head with every other name's took 13 s for 3,000 names."""
        if self._ending is None:
            self._ending = {}
            for o in self.others:  # sorted: each list comes out sorted
                for t in range(min(self.width // 2, len(o)) + 1):
                    self._ending.setdefault(o[len(o) - t:] if t else "", []).append(o)
        return self._ending

    def fits_another(self, text: str, pieces: tuple[str, str, str]) -> bool:
        """Whether another text of the column reads as the cut `pieces` too."""
        return any(_fits(o, pieces) for o in self.holding(max(pieces, key=len)) if o != text)

    def holding(self, piece: str):
        """The texts that hold `piece` (found in the joined texts, not text by text)."""
        at = self.blob.find(piece)
        while at >= 0:
            k = bisect_right(self.starts, at) - 1
            yield self.others[k]
            at = self.blob.find(piece, self.starts[k] + len(self.others[k]) + 1)  # the next text on


def _pairs_on_two_lines(shown: dict[str, str], width: int) -> dict[str, str]:
    """The pairs `old -> new` too long for one line whole with each side shortened to a line of its own (the first with
    the arrow), among every side of the column so that two sides never read alike."""
    pairs = {n: n.split(PAIR) for n in shown if n.count(PAIR) == 1 and len(n) > width}
    if not pairs:
        return shown
    sides = {s for n in shown if n.count(PAIR) == 1 for s in n.split(PAIR)}
    first_width = max(width - len(PAIR.rstrip()), 1)
    first = _distinct_cuts(_shorten_each(sides, first_width), first_width, one_line=True)
    second = _distinct_cuts(_shorten_each(sides, width), width, one_line=True)
    return {**shown, **{n: first[old] + PAIR + second[new] for n, (old, new) in pairs.items()}}


def _nearest_head(text: str, texts: list[str]) -> int:
    """The longest head that `text` shares with another of `texts` (sorted, `text` among them): its neighbours in
    sorted order share the longest."""
    i = bisect_left(texts, text)
    return max((_common_head(text, texts[j]) for j in (i - 1, i + 1) if 0 <= j < len(texts)), default=0)


def _joined(pieces: tuple[str, str, str]) -> str:
    head, middle, tail = pieces
    return head + "…" + (middle + "…" if middle else "") + tail


def _fits(other: str, pieces: tuple[str, str, str]) -> bool:
    """Whether `other` reads as the cut (head, middle, tail) too: it starts, holds and ends as that shows."""
    head, middle, tail = pieces
    return (len(other) >= len(head) + len(middle) + len(tail) and other.startswith(head) and other.endswith(tail)
            and middle in other[len(head):len(other) - len(tail)])


_BRACKETS = {"<": 1, "(": 1, "[": 1, "{": 1, ">": -1, ")": -1, "]": -1, "}": -1}


def _is_list(text: str) -> bool:
    """Several names in one cell, `a, b, c`: a comma outside every bracket (a kernel's are in its arguments)."""
    depth = 0
    for a, b in zip(text, text[1:]):
        depth += _BRACKETS.get(a, 0)
        if a == "," and b == " " and depth <= 0:
            return True
    return False


def _from_difference(text: str, others: list[str], width: int, whole_end: bool) -> tuple[str, str, str]:
    """`width` characters of `text` from where it first differs from every other text of its column (its neighbours
    in sorted order share the longest heads), with `…` for what is left out: `…masked_fill_kernel(…)::[lambda(fl…`
    where all the column's elementwise kernels start alike; as (head, middle, tail). `whole_end` (a narrow
    terminal): from the start of the word that differs (`…tilesize128x64x8…`, not `…64x8…`), and a text whose rest
    fits from there shows its end whole, not all but its last character."""
    start = _nearest_head(text, others)
    if whole_end:
        start = _word_start(text, start, width // 3)
    if whole_end and start and start + width - 1 >= len(text):
        return "", "", text[len(text) - (width - 1):]
    start = min(start, max(len(text) - (width - 1), 0))
    if start == 0:
        return text[:width - 1], "", ""
    body = text[start:start + width - 2]
    return ("", body, "") if start + len(body) < len(text) else ("", "", body)


def _word_start(text: str, at: int, most: int) -> int:
    """Where the word (letters and digits) that holds position `at` of `text` starts, at most `most` before it."""
    start = at
    while start > 0 and at - start < most and text[start - 1].isalnum():
        start -= 1
    return start


def _common_head(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _cut(name: str, width: int, head: int) -> str:
    return name[:head] + "…" + name[len(name) - (width - 1 - head):] if len(name) > width else name


def _row_lines(row, shown, widths, numeric, prose) -> list[str]:
    """One row as one line, or several where a cell is wider than its column: sentences wrapped at words, a name
    that no shorter text tells apart from another broken into pieces of the column's width."""
    parts = [_cell_lines(row[i], widths[i], prose[i]) for i in shown]
    height = max(len(p) for p in parts)
    return [_line([p[k] if k < len(p) else "" for p in parts], [widths[i] for i in shown],
                  [numeric[i] for i in shown]) for k in range(height)]


def _cell_lines(text: str, width: int, prose: bool) -> list[str]:
    if len(text) <= width:
        return [text]
    if prose:
        return textwrap.wrap(text, width, break_on_hyphens=False) or [""]
    if text.count(PAIR) == 1:  # old -> new: a side a line, the arrow ending the first
        old, new = text.split(PAIR)
        return _cell_lines(old + PAIR.rstrip(), width, prose) + _cell_lines(new, width, prose)
    return [text[k:k + width] for k in range(0, len(text), width)]


def _line(cells, widths, right) -> str:
    return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right))


def _numeric_columns(result) -> list[bool]:
    kinds = []
    for i in range(len(result.columns)):
        values = [row[i] for row in result.rows if row[i] is not None]
        kinds.append(bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values))
    return kinds


def _plain(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.1f}" if math.isfinite(v) else str(v)
    return str(v)


def _text(v) -> str:
    """A text cell as a terminal may show it."""
    return escape_controls(_plain(v))


def _pretty(v, places: int = 1) -> str:
    if isinstance(v, bool) or v is None:
        return _plain(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return f"{v:,.{places}f}" if math.isfinite(v) else str(v)
    return str(v)


def _json_value(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


_ARGS = re.compile(r"\((?:[^()]|\([^()]*\))*\)\s*$")
# Noise that long C++ kernel names repeat: casts on template values, library namespaces, lambda call operators.
_CASTS = re.compile(r"\((?:unsigned |signed )?(?:int|long|long long|short|char|bool)\)(?=-?\d)")
_NAMESPACES = re.compile(r"\b(?:at::native::|at::|c10::|std::|templates::cuda::|binary_internal::)|<unnamed>::")
_CALL_OPERATOR = re.compile(r"::operator \(\)\(\) const")
_INSTANCE = re.compile(r" \(instance (\d+)\)\]")
# Lambdas without arguments are type dispatch (AT_DISPATCH_*): the lambda with arguments after them is the functor.
_DISPATCH_LAMBDAS = re.compile(r"(?:::\[lambda\(\)#\d+\])+(?=::\[lambda\()")
# An argument list inside the name (`direct_copy_kernel_cuda(at::TensorIteratorBase &)`), not a lambda's own.
_INNER_ARGS = re.compile(r"(?<=[\w>])(?<!lambda)\((?:[^()]|\([^()]*\))+\)")
LEVELS = 5  # 0 whole, 1 tidied, 2 and 3 deep template arguments collapsed, 4 middle cut


def shorten_name(name: str, width: int = NAME_WIDTH, max_level: int = LEVELS - 1) -> str:
    """Shorten a long C++ kernel name for a table, by the least of these steps that fits `width` (at most
    `max_level` of them): (1) drop the casts, library namespaces, call operators and argument lists but keep what
    tells kernels apart, the functor or lambda (`elementwise_kernel<128, 2, void
    gpu_kernel_impl_nocast<masked_fill_kernel(…)::[lambda(float, bool)#1]>(…)…`); (2, 3) collapse template
    arguments nested three, then two brackets deep into `<…>`; (4) cut the middle."""
    return _shortened(name, width, max_level)[0]


SENTENCE_NAME = 60  # kernel names in a sentence: shortened towards this width, never past the functor or lambda
_SENTENCE_LEVEL = 2  # shorten_name's steps that keep the functor or lambda (`…[lambda(float, bool)#1]`)


def sentence_name(name: str) -> str:
    """A kernel name for a sentence: shortened as tables do, but never past the functor or lambda that tells
    kernels apart (`elementwise_kernel<…masked_fill_kernel(…)::[lambda(float, bool)#1]>…`)."""
    return shorten_name(name, SENTENCE_NAME, _SENTENCE_LEVEL)


PAIR = " -> "  # a cell naming two things, old -> new (diff's variant kernels and renamed ranges)


def shorten_names(names, width: int = NAME_WIDTH, side_width: int | None = None) -> dict[str, str]:
    """{name: shown text} for the names of one table column: as short as `shorten_name` makes them, except that a
    shortened text never reads as another name of the column shortened as far (those take a longer form, at worst
    their whole name): `elementwise_kernel<…, gpu_kernel_impl_nocast<…>…>` would be masked_fill's as much as
    direct_copy's, whichever of the two needed collapsing to fit.

    A pair `A -> B` longer than `width` is shown side by side: each of A and B shortened to `side_width` (default:
    half the width) by the same rule among every side of the column, so the arrow stays and the two sides never read
    alike. Cut as one text, a cuBLAS tile change `…tilesize64x64x8… -> …tilesize128x64x8…` kept A's head and B's
    tail, which read as one kernel."""
    names = set(names)
    pairs = {n: n.split(PAIR) for n in names if len(n) > width and n.count(PAIR) == 1}
    shown = _shorten_each(names - pairs.keys(), width)
    if pairs:
        sides = _shorten_each({s for pair in pairs.values() for s in pair},
                              side_width or max((width - len(PAIR)) // 2, 1))
        shown.update({n: sides[a] + PAIR + sides[b] for n, (a, b) in pairs.items()})
    return shown


def _shorten_each(names: set[str], width: int) -> dict[str, str]:
    """`shorten_names` of names that are each one name."""
    forms: dict[int, Counter] = {}  # level -> every name's text at that level, made when a name is shown so

    def shared(text: str, used: int) -> bool:
        if used not in forms:
            forms[used] = Counter(_forced(n, used, width) for n in names)
        return forms[used][text] > 1

    level = dict.fromkeys(names, LEVELS - 1)
    while True:
        shown = {n: _shortened(n, width, level[n]) for n in level}
        by_text = Counter(text for text, _ in shown.values())
        clashes = [n for n, (text, used) in shown.items()
                   if level[n] > 0 and (by_text[text] > 1 or (used and shared(text, used)))]
        if not clashes:
            return {n: text for n, (text, _) in shown.items()}
        for n in clashes:
            level[n] = max(min(level[n], shown[n][1]) - 1, 0)


def _shortened(name: str, width: int, max_level: int) -> tuple[str, int]:
    """`shorten_name`, and how many of its steps it took."""
    short = name
    for level in range(1, max_level + 1):
        if len(short) <= width:
            return short, level - 1
        short = _LEVEL_STEPS[level](short, width)
    return short, max_level


@lru_cache(maxsize=8192)
def _forced(name: str, level: int, width: int) -> str:
    """The name after every step up to `level`, whether or not it fits before."""
    return name if level == 0 else _LEVEL_STEPS[level](_forced(name, level - 1, width), width)


def _tidy(name: str, width: int) -> str:
    short = _ARGS.sub("(…)", name)
    short = _NAMESPACES.sub("", _CASTS.sub("", short))
    short = _INSTANCE.sub(r"#\1]", _CALL_OPERATOR.sub("", short))
    return _DISPATCH_LAMBDAS.sub("", _INNER_ARGS.sub("(…)", short))


def _collapse(level: int):
    def step(name: str, width: int) -> str:
        return _collapse_templates(name.replace("<unnamed>", "\0"), level).replace("\0", "<unnamed>")
    return step


def _cut_middle(name: str, width: int) -> str:
    keep = width - 1
    return name[: keep // 2] + "…" + name[len(name) - (keep - keep // 2):]


_LEVEL_STEPS = {1: _tidy, 2: _collapse(3), 3: _collapse(2), 4: _cut_middle}


def _collapse_templates(name: str, level: int) -> str:
    """Replace what is nested `level` or more template brackets deep with `<…>`."""
    depth, out = 0, []
    for ch in name:
        if ch == "<":
            depth += 1
            if depth <= level:
                out.append("<…>" if depth == level else "<")
        elif ch == ">":
            if depth < level:
                out.append(">")
            depth = max(depth - 1, 0)
        elif depth < level:
            out.append(ch)
    return "".join(out)
