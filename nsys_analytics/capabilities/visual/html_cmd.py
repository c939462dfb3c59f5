"""`nsys-analytics html`."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import click

from ..assignment.report import ReportOptions, build_report
from ..categories import load_rules
from ...core.errors import SectionsFailed, UsageError
from .html import Page, profile_view
from .html_render import render_page
from ...core.files import check_output, replacing
from ..attention.attention_cmd import attention_options, options_from
from ..categories.classify_cmd import RULES_OPTION
from ...cli.profiles import note_one_rank, open_profile
from ...core.words import plural


@click.command("html")
@click.argument("profiles", nargs=-1, metavar="[PROFILES]...", type=click.Path(path_type=Path, readable=False))
@click.option("--forward", "forward_path", type=click.Path(path_type=Path, readable=False),
              help="With --train: a forward-only profile; the page adds the assignment answers (a)-(f), as `report`.")
@click.option("--train", "train_path", type=click.Path(path_type=Path, readable=False), help="The training profile of the pair.")
@click.option("--timeit", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="With --forward: Python-timer step times (CSV: mode,step,seconds), as `report`.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The page to write (FILE.html).")
@click.option("--skip-bad", is_flag=True, help="Several profiles: go on without those that cannot be read (named on "
                                               "stderr).")
@attention_options
@RULES_OPTION
def command(profiles, forward_path, train_path, timeit, output, skip_bad, rules_files, **kwargs):
    """One self-contained HTML page (no network needed to view it): per profile a headline, its info, the
    top kernels, GPU time by category with a plot, NVTX ranges with their GPU projection, and the diagnose
    findings, each with a timeline of its worst window. With --forward and --train it also answers the
    assignment questions (a)-(f), as `nsys-analytics report`. Tables sort when their header is clicked. The NVTX
    table places GPU work in ranges by --attribution, process by default as `report` (= `nvtx-gpu --attribution
    process`; `nvtx-gpu` alone follows nsys' thread rule).

    PROFILES: one profile, or several (one per rank of a job: files, globs or a folder) for one page of the job:
    the `ranks` verdict and tables, the NCCL summary, each rank's top kernels and kernel categories, and each
    rank's timeline of one steady step on one time axis.

    \b
    Examples:
      nsys-analytics html train.sqlite -o train.html
      nsys-analytics html runs/ -o job.html               # the ranks of one job
      nsys-analytics html --forward fwd.sqlite --train train.sqlite --batch 4 --seq-len 256 \\
          --d-model 256 --heads 4 -o report.html
    """
    paths = list(profiles) + [p for p in (forward_path, train_path) if p is not None and p not in profiles]
    if not paths:
        raise UsageError("give at least one profile (or --forward F --train T)")
    if train_path is not None and forward_path is None:
        raise UsageError("--train needs --forward (the forward-only profile of the pair)")
    if output.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"-o {output}: give a file name ending in .html")
    if forward_path is None and profiles and (len(profiles) > 1 or profiles[0].is_dir()):
        return _job_page(profiles, output, rules_files, skip_bad)
    output = check_output(output, paths)
    rules = load_rules(rules_files)
    with ExitStack() as stack:
        opened = {p: stack.enter_context(open_profile(p)) for p in paths}
        if len(opened) == 1:
            note_one_rank(paths[0], opened[paths[0]])
        views = [profile_view(opened[p], rules, attribution=kwargs["attribution"]) for p in paths]
        assignment = None
        if forward_path is not None:
            options = ReportOptions(options_from(kwargs), timeit=timeit)
            assignment = build_report(opened[forward_path], opened.get(train_path), options)
    title = f"nsys-analytics: {', '.join(p.name for p in paths)}"
    page = render_page(Page(title, rules.category_names, views, assignment))
    with replacing(output) as tmp:
        tmp.write_text(page, encoding="utf-8")
    click.echo(f"wrote {output} ({len(page) / 1e6:.1f} MB)", err=True)
    failed = [f"{v.label}: {key} ({why})" for v in views for key, why in v.failed.items()]
    if failed:  # the page shows them as failed; the exit code says so too (README: Exit codes)
        raise SectionsFailed(f"{output}: {len(failed)} section(s) could not be made and show as failed: "
                             + "; ".join(failed))


def _job_page(profiles, output: Path, rules_files, skip_bad: bool) -> None:
    """The page of a job's ranks (several profiles, a folder or a glob)."""
    from ...data.engine import make_engine
    from ...data.profile_set import ProfileSet
    from .job import is_one_job, job_view
    from .job_render import render_job_page

    pset = ProfileSet(list(profiles), engine=make_engine(jobs=1), skip_bad=skip_bad)
    output = check_output(output, [Path(m.path) for m in pset.members])
    for line in [f"{plural(len(pset), 'rank')} (rank ids from the {pset.rank_source})", *pset.messages()]:
        click.echo(line, err=True)
    rules = load_rules(rules_files)
    what = plural(len(pset), "rank" if is_one_job(pset) else "profile")
    title = f"nsys-analytics: {what} ({', '.join(map(str, profiles))})"
    page = render_job_page(job_view(pset, rules, title), rules.category_names)
    with replacing(output) as tmp:
        tmp.write_text(page, encoding="utf-8")
    click.echo(f"wrote {output} ({len(page) / 1e6:.1f} MB)", err=True)
