"""`nsys-analytics report`: the assignment-style answers (a)-(f)."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import click

from .report import ReportOptions, build_report
from ..attention.attention_cmd import attention_options, format_option, options_from
from ...cli.profiles import open_profile
from ...output.write import write


@click.command("report")
@click.option("--forward", "forward_path", required=True, type=click.Path(path_type=Path, readable=False),
              help="Profile of forward passes only (inference).")
@click.option("--train", "train_path", type=click.Path(path_type=Path, readable=False),
              help="Profile of full training steps (forward, backward, optimizer).")
@click.option("--timeit", type=click.Path(dir_okay=False, exists=True, path_type=Path),
              help="CSV of Python-timer step times: columns mode,step,seconds (mode forward or train).")
@click.option("--forward-range", default="forward", show_default=True, help="NVTX range around each forward pass.")
@click.option("--step-range", default="step_*", show_default=True,
              help="NVTX range(s) around each training step (name or glob).")
@click.option("--top", type=click.IntRange(min=1), default=8, show_default=True,
              help="Non-matmul kernels to list in (c).")
@attention_options
@format_option("times", "times, heaviest, non_matmul, categories, attention, modules: the tables of (a) to (f)")
def command(forward_path, train_path, timeit, forward_range, step_range, top, fmt, table, output, **kwargs):
    """Assignment-style profiling report: (a) forward time, (b) heaviest kernel, (c) non-matmul kernels,
    (d) inference vs training categories, (e) attention softmax vs matmul, (f) GPU time per model module,
    forward and backward.

    Each answer gives its numbers and the NVTX ranges or kernels they came from; an answer whose input is
    missing says what to add (e.g. the nsys option). See docs/attention.md.

    \b
    Examples:
      nsys-analytics report --forward fwd.sqlite --train train.sqlite --timeit fwd_times.csv \\
          --batch 4 --seq-len 256 --d-model 256 --heads 4
      nsys-analytics report --forward fwd.sqlite --format markdown -o report.md
    """
    options = ReportOptions(options_from(kwargs), forward_range, step_range, top, timeit)
    with ExitStack() as stack:
        forward = stack.enter_context(open_profile(forward_path))
        train = stack.enter_context(open_profile(train_path)) if train_path else None
        report = build_report(forward, train, options)
    write(report, fmt, output, table, inputs=[p for p in (forward_path, train_path) if p])
