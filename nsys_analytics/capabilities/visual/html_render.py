"""One self-contained HTML file from a `Page`: inline CSS, a few lines of vanilla JavaScript to sort tables, and
the plots as base64 PNG. Nothing is fetched when the page is viewed."""

from __future__ import annotations

import base64
import html
import re
import tempfile
from pathlib import Path

from ..breakdown.plot import plot_report
from ..modules.plot import plot_modules
from ..modules.report import to_depth
from ...output.render import shorten_name, shorten_names
from ...core.result import Result
from ...output.textreport import ReportSection
from .html import Page, ProfileView
from .plot import timeline_png

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;margin:0;background:#f6f7f9}
main{max-width:1180px;margin:0 auto;padding:24px 28px 60px;background:#fff}
h1{font-size:24px;margin:0 0 4px}h2{font-size:19px;margin:34px 0 8px;border-bottom:2px solid #e3e6eb;padding-bottom:4px}
h3{font-size:16px;margin:22px 0 6px}.sub{color:#5b6473;margin:0 0 14px}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.card{flex:1 1 0;min-width:0;border:1px solid #e3e6eb;border-radius:6px;padding:8px 12px;background:#fafbfc}
.card b{display:block;font-size:18px}.card span{display:block;color:#5b6473;font-size:12px;white-space:nowrap;
overflow:hidden;text-overflow:ellipsis}
table{border-collapse:collapse;margin:6px 0 4px;font-size:13px;width:100%}
th,td{padding:3px 8px;border-bottom:1px solid #eceef2;text-align:left;vertical-align:top}
th{background:#f0f2f5;cursor:pointer;user-select:none;white-space:nowrap;position:sticky;top:0}
th.sorted-asc::after{content:" \\25B2";font-size:10px}th.sorted-desc::after{content:" \\25BC";font-size:10px}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}td.short{white-space:nowrap}
td.long{overflow-wrap:anywhere;min-width:18em}.scroll{overflow-x:auto;margin:6px 0 4px}
.note{color:#5b6473;font-size:12px;margin:2px 0 10px}.missing{color:#8a5300;background:#fff6e5;padding:6px 10px;
border-radius:4px}.finding{border-left:4px solid #999;padding:4px 12px;margin:14px 0}
.finding.error{border-color:#c62828}.finding.warning{border-color:#e69500}.finding.info{border-color:#1f77b4}
.sev{font-weight:600;text-transform:uppercase;font-size:11px;padding:1px 6px;border-radius:3px;color:#fff}
.sev.error{background:#c62828}.sev.warning{background:#e69500}.sev.info{background:#1f77b4}
img{max-width:100%;height:auto;border:1px solid #eceef2}nav a{margin-right:12px}
"""

NAME_WIDTH = 110  # characters of a name cell before it is shortened

# Click a header to sort by that column (numbers by their raw value in data-v), click again to reverse.
SORT_JS = """
document.querySelectorAll("table.sortable th").forEach(function (th, col) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0], rows = Array.from(body.rows);
    var asc = !th.classList.contains("sorted-asc");
    table.querySelectorAll("th").forEach(function (h) { h.classList.remove("sorted-asc", "sorted-desc"); });
    th.classList.add(asc ? "sorted-asc" : "sorted-desc");
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    function key(row) { var c = row.cells[index]; return c.dataset.v !== undefined ? parseFloat(c.dataset.v) : c.textContent; }
    rows.sort(function (a, b) {
      var x = key(a), y = key(b), r = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
      return asc ? r : -r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
"""


def render_page(page: Page) -> str:
    parts = [f"<h1>{_e(page.title)}</h1>",
             f'<p class="sub">{len(page.profiles)} profile(s); made by nsys-analytics, every figure from its '
             "commands (<code>kernels</code>, <code>breakdown</code>, <code>nvtx-gpu</code>, "
             "<code>modules</code>, <code>diagnose</code>, <code>report</code>).</p>"]
    if len(page.profiles) > 1 or page.assignment:
        links = [f'<a href="#p{i}">{_e(v.label)}</a>' for i, v in enumerate(page.profiles)]
        if page.assignment:
            links.append('<a href="#assignment">assignment answers</a>')
        parts.append(f"<nav>{' '.join(links)}</nav>")
    if page.assignment:
        parts.append(_assignment(page.assignment))
    parts += [_profile(i, v, page.categories) for i, v in enumerate(page.profiles)]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{_e(page.title)}</title>"
            f"<style>{CSS}</style></head><body><main>\n" + "\n".join(parts) +
            f"\n</main><script>{SORT_JS}</script></body></html>\n")


def _profile(i: int, v: ProfileView, categories: list[str]) -> str:
    out = [f'<section id="p{i}" data-profile="{_e(v.label)}"><h2>{_e(v.label)}</h2>', _headline(v), _info(v)]
    out.append("<h3>Top kernels</h3>")
    out.append(_table(v.kernels, "top-kernels") if v.kernels else _missing(v.missing.get("kernels")))
    out.append("<h3>Kernel categories</h3>")
    if v.breakdown:
        if v.info["row_counts"].get("kernels"):  # no picture of nothing (e.g. every kernel row skipped)
            out.append(_image(_breakdown_png(v.breakdown, categories), f"category shares of {v.label}"))
        out += [f"<h4>{_e(s.title)}</h4>{_table(s.result, f'breakdown-{s.key}')}" for s in v.breakdown.sections]
    else:
        out.append(_missing(v.missing.get("categories")))
    out.append("<h3>NVTX ranges and their GPU projection</h3>")
    out.append(_table(v.nvtx, "nvtx") if v.nvtx else _missing(v.missing.get("nvtx")))
    out.append("<h3>GPU time per module, forward and backward</h3>")
    out.append(_modules(v) if v.modules else _missing(v.missing.get("modules")))
    out.append("<h3>Why the GPU waits (diagnose)</h3>")
    out.append(_findings(v))
    return "\n".join(out) + "</section>"


def _headline(v: ProfileView) -> str:
    session, counts = v.info["session"], v.info["row_counts"]
    cards = [(f"{session['duration_ns'] / 1e9:,.3f} s" if session.get("duration_ns") else "?", "captured"),
             (f"{counts.get('kernels', 0):,}", "kernels"), (f"{counts.get('cuda_api', 0):,}", "CUDA API calls")]
    if v.kernels and v.kernels.rows:
        row = dict(zip(v.kernels.columns, v.kernels.rows[0]))
        cards.append((f"{row['time_pct']:.1f} %", "top kernel: " + row["name"]))
    if v.breakdown:
        rollup = next(s.result for s in v.breakdown.sections if s.key == "rollup")
        shares = {r[0]: r[2] for r in rollup.rows}
        cards.append((f"{shares.get('matmul', 0):.1f} %", "of GPU time in matmul"))
    worst = v.findings[0].finding if v.findings else None
    if "findings" in v.failed:  # never "none" for a diagnose that did not run to the end
        cards.append(("failed", "findings: diagnose could not be made"))
    else:
        cards.append((worst.rule if worst else "none", f"top finding ({worst.severity})" if worst else "findings"))
    if v.failed:
        cards.append((f"{len(v.failed)} failed", "sections: " + ", ".join(v.failed)))
    return '<div class="cards" data-test="headline">' + "".join(
        f"<div class=\"card\"><b>{_e(value)}</b><span title=\"{_e(what)}\">{_e(what)}</span></div>"
        for value, what in cards) + "</div>"


def _info(v: ProfileView) -> str:
    from ..info.report import info_rows

    columns, rows = info_rows(v.info)
    return f"<details><summary>Profile info</summary>{_table(Result(columns, rows), 'info')}</details>"


def _findings(v: ProfileView) -> str:
    if "findings" in v.missing:
        return _missing(v.missing["findings"])
    if not v.findings:
        return '<p class="note">No findings: nothing crossed a threshold (see docs/diagnose.md).</p>'
    out = []
    for fv in v.findings:
        f = fv.finding
        ranges = f"<div class=\"note\">NVTX ranges: {_e(', '.join(f.ranges))}</div>" if f.ranges else ""
        picture = ""
        if fv.timeline is not None:
            start, end = f.windows[0]
            picture = f"<div class=\"note\">Worst window {start / 1e6:,.3f} – {end / 1e6:,.3f} ms"
            if fv.timeline.lanes:
                picture += " (and 10 % of its length on each side):</div>" + _image(
                    timeline_png(fv.timeline), f"timeline of the worst window of {f.rule}")
            else:
                picture += ": nothing ran in it or around it, on the GPU or in a traced CUDA call.</div>"
        out.append(f'<div class="finding {f.severity}" data-rule="{_e(f.rule)}"><p><span class="sev {f.severity}">'
                   f"{_e(f.severity)}</span> <b>{_e(f.rule)}</b>: {_e(f.summary)}</p>"
                   f"<p>Fix: {_e(f.fix)}</p>{ranges}{picture}</div>")
    out += [f'<p class="note">{_e(s)}</p>' for s in v.skipped]
    return "\n".join(out)


def _modules(v: ProfileView) -> str:
    """The picture to depth 2 (blocks, blocks.0), the table of every module, the heaviest kernels folded away."""
    report = v.modules
    out = [_image(_modules_png(report), f"GPU time per module of {v.label}") if report.modules.rows else ""]
    out.append(_table(report.modules, "modules"))
    out.append(f"<details><summary>The heaviest kernels per module</summary>{_table(report.kernels, 'modules-kernels')}"
               "</details>")
    return "\n".join(out)


def _modules_png(report) -> bytes:
    with tempfile.TemporaryDirectory(prefix="nsys-analytics-") as tmp:
        return plot_modules(to_depth(report, 2), Path(tmp) / "modules.png").read_bytes()


def _assignment(report) -> str:
    out = [f'<section id="assignment"><h2>{_e(report.title)}</h2>',
           f'<p class="sub">Inputs: {_e(", ".join(report.inputs))}</p>']
    out += [_answer(s) for s in report.sections]
    return "\n".join(out) + "</section>"


def _answer(s: ReportSection) -> str:
    out = [f'<div data-answer="{_e(s.key)}"><h3>{_e(s.title)}</h3>']
    if s.missing:
        out.append(_missing(s.missing))
    out += [f"<p>{_e(line)}</p>" for line in s.lines]
    out += [f"<h4>{_e(t.title)}</h4>{_table(t.result, f'answer-{s.key}')}" for t in s.tables]
    out += [f'<p class="note">{_e(n)}</p>' for n in s.notes]
    return "\n".join(out) + "</div>"


def _table(result: Result, name: str) -> str:
    if not result.rows:
        return '<p class="note">(no rows)</p>' + "".join(f'<p class="note">{_e(n)}</p>' for n in result.notes)
    head = "".join(f"<th>{_e(h)}</th>" for h in result.display_headers)
    shown = [_shown_texts(result, i) for i in range(len(result.columns))]
    places = [result.decimals.get(c, 1) for c in result.columns]
    body = "".join("<tr>" + "".join(_cell(c, v, s, p) for c, v, s, p in zip(result.columns, row, shown, places))
                   + "</tr>" for row in result.rows)
    notes = "".join(f'<p class="note">{_e(n)}</p>' for n in result.notes)
    return (f'<div class="scroll"><table class="sortable" data-table="{_e(name)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>{notes}")


def _shown_texts(result: Result, i: int) -> dict[str, str]:
    """{text: what the cell shows} for a column's texts: shortened, never two different names to one text."""
    texts = {v for row in result.rows if isinstance((v := row[i]), str)}
    return shorten_names(sorted(texts), NAME_WIDTH) if texts else {}


def _cell(column: str, value, shown: dict[str, str] | None = None, places: int = 1) -> str:
    if isinstance(value, bool) or value is None:
        return f"<td data-col=\"{_e(column)}\">{'' if value is None else _e(value)}</td>"
    if isinstance(value, int):
        return f'<td class="n" data-col="{_e(column)}" data-v="{value}">{value:,}</td>'
    if isinstance(value, float):
        return f'<td class="n" data-col="{_e(column)}" data-v="{value!r}">{value:,.{places}f}</td>'
    text = str(value)
    short = (shown or {}).get(text) or shorten_name(text, NAME_WIDTH)
    title = f' title="{_e(text)}"' if short != text else ""
    kind = "short" if len(short) <= 32 else "long"
    shown = _BREAKS.sub(r"\1<wbr>", _e(short)) if kind == "long" else _e(short)
    return f'<td class="{kind}" data-col="{_e(column)}"{title}>{shown}</td>'


# Where a long kernel name may wrap (after _ , ( < : and before nothing else): a C++ name has few spaces, and
# breaking anywhere split words such as "cublas" across lines.
_BREAKS = re.compile(r"(_|,|\(|&lt;|::)")


def _missing(message: str | None) -> str:
    failed = ' data-failed="true"' if message and message.startswith("FAILED:") else ""
    return f'<p class="missing"{failed}>{_e(message or "not available")}</p>'


def _image(png: bytes, alt: str) -> str:
    return f'<img alt="{_e(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'


def _breakdown_png(report, categories: list[str]) -> bytes:
    with tempfile.TemporaryDirectory(prefix="nsys-analytics-") as tmp:
        path = plot_report(report, categories, Path(tmp) / "breakdown.png")
        return path.read_bytes()


def _e(value) -> str:
    return html.escape(str(value), quote=True)
