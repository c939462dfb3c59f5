"""`nsys-analytics classify`."""

from __future__ import annotations

import click

from .classify import classify_kernels
from .rules import load_rules
from ...cli.options import PROFILE_ARG, kernel_filter_options, output_options
from ...cli.profiles import open_profile
from ...cli.rules_option import RULES_OPTION
from ...output.write import write


@click.command("classify")
@PROFILE_ARG
@click.option("--unmatched", is_flag=True, help="Only the kernels that no rule matched (category other).")
@click.option("--limit", type=click.IntRange(min=1), help="Show only the N heaviest kernel names.")
@RULES_OPTION
@kernel_filter_options
@output_options
def command(profile, unmatched, limit, rules_files, kernel_filter, fmt, output):
    """Each kernel name with its category (matmul, attention, softmax, ...) and the rule that matched.

    Rules are regular expressions on the demangled name, tried in order; the first match wins.

    \b
    Examples:
      nsys-analytics classify run.sqlite --limit 20
      nsys-analytics classify run.sqlite --unmatched
      nsys-analytics classify run.sqlite --rules my_rules.toml --format csv
    """
    rules = load_rules(rules_files)
    with open_profile(profile) as p:
        write(classify_kernels(p, rules, kernel_filter, unmatched, limit), fmt, output, inputs=[profile])
