"""One self-contained HTML file from a `JobView` (the page of a distributed job), in the style of the single-profile
page (html_render.py): the verdict first, then the NCCL summary, the kernels and categories per rank, and each
rank's timeline of one step on one time axis."""

from __future__ import annotations

from ...core.result import Result
from .html_render import CSS, SORT_JS, _breakdown_png, _e, _image, _missing, _table
from .job import JobView
from .plot import timeline_png


def render_job_page(job: JobView, categories: list[str]) -> str:
    links = [("verdict", "verdict"), ("nccl", "NCCL"), ("kernels", "kernels"), ("categories", "categories"),
             ("timelines", "timelines")]
    parts = [f"<h1>{_e(job.title)}</h1>",
             (f'<p class="sub">{_e(job.what)}; made by nsys-analytics, every figure from its '
              "commands (<code>ranks</code>, <code>nccl</code>, <code>kernels</code>, <code>breakdown</code>, "
              "<code>timeline</code>).</p>"),
             "<nav>" + " ".join(f'<a href="#{k}">{w}</a>' for k, w in links) + "</nav>",
             _verdict(job), _nccl(job), _kernels(job), _categories(job, categories), _timelines(job)]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{_e(job.title)}</title>"
            f"<style>{CSS}</style></head><body><main>\n" + "\n".join(parts) +
            f"\n</main><script>{SORT_JS}</script></body></html>\n")


def _section(key: str, title: str, body: list[str]) -> str:
    return f'<section id="{key}" data-section="{key}"><h2>{_e(title)}</h2>' + "\n".join(body) + "</section>"


def _notes(lines) -> str:
    return "".join(f'<p class="note">{_e(n)}</p>' for n in lines)


def _verdict(job: JobView) -> str:
    if job.verdict is None:
        return _section("verdict", "Verdict (ranks)", [_notes(job.head), _missing(job.missing.get("ranks"))])
    tables = job.verdict.tables()
    findings = [f'<div class="finding {_e(s)}" data-test="verdict"><p><span class="sev {_e(s)}">{_e(s)}</span> '
                f"{_e(m)}</p></div>" for s, m, *_ in tables["findings"].rows]
    if not findings:
        findings = ['<p class="note" data-test="verdict">No finding: the ranks are balanced.</p>']
    body = [_notes(job.verdict.head), *findings]
    for name, title in (("summary", "Per rank (mean per steady step)"), ("steps", "Per rank and step"),
                        ("phases", "NVTX ranges inside a step (mean per steady step)")):
        body.append(f"<h3>{_e(title)}</h3>{_table(tables[name], f'ranks-{name}')}")
    return _section("verdict", "Verdict (ranks)", body)


def _set_tables(result, key: str) -> list[str]:
    body = []
    if result.combined is not None:
        body.append(f"<h3>All ranks</h3>{_table(_without_notes(result.combined), f'{key}-combined')}")
    body.append(f"<h3>Per rank</h3>{_table(_without_notes(result.ranks), f'{key}-ranks')}")
    return body + [_notes(result.notes)]


def _without_notes(result: Result) -> Result:
    return Result(result.columns, result.rows, [], result.headers)


def _nccl(job: JobView) -> str:
    body = _set_tables(job.nccl, "nccl") if job.nccl else [_missing(job.missing.get("nccl"))]
    return _section("nccl", "NCCL: GPU time per operation", body)


def _kernels(job: JobView) -> str:
    body = _set_tables(job.kernels, "kernels") if job.kernels else [_missing(job.missing.get("kernels"))]
    return _section("kernels", "Top kernels", body)


def _categories(job: JobView, categories: list[str]) -> str:
    b = job.categories
    if b is None:
        return _section("categories", "Kernel categories per rank", [_missing(job.missing.get("categories"))])
    body = [_image(_breakdown_png(b, categories), "category shares per rank")]
    body += [f"<h3>{_e(s.title)}</h3>{_table(s.result, f'breakdown-{s.key}')}" for s in b.sections]
    return _section("categories", "Kernel categories per rank", body)


def _timelines(job: JobView) -> str:
    if not job.timelines:
        return _section("timelines", "Timelines", [_missing(job.missing.get("timelines"))])
    w = job.timelines[0].timeline.window
    body = [(f'<p class="note">Each rank\'s {_e(job.step)} on one time axis: the clocks of the ranks are aligned by '
             f"their sessions' start (ms on rank {job.ranks[0]}'s clock); {w.start_ns / 1e6:,.3f} – "
             f"{w.end_ns / 1e6:,.3f} ms.</p>")]
    for part in job.timelines:
        t = part.timeline
        body.append(f'<figure data-rank="{part.rank}" data-start-ns="{t.window.start_ns}" '
                    f'data-end-ns="{t.window.end_ns}"><figcaption>rank {part.rank}</figcaption>'
                    + _image(timeline_png(t), f"timeline of rank {part.rank}, {job.step}") + "</figure>")
    return _section("timelines", f"Timelines of {job.step}, rank by rank", body)
