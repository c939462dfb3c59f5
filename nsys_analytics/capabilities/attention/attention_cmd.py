"""`nsys-analytics attention`, and the attention/shape options that `report` shares."""

from __future__ import annotations

import click

from .flops import DEFAULT_DTYPE, DEFAULT_SOFTMAX_FLOPS, DTYPE_BYTES, shape_from_options
from .report import DEFAULT_MASK_REGEX, AttentionOptions, AttentionRanges, analyze_attention, attention_text_report
from ...core.filters import ATTRIBUTIONS
from ...cli.options import PROFILE_ARG, output_options, table_option
from ...cli.profiles import open_profile
from ...output.write import write

_DEFAULTS = AttentionRanges()
_OPTIONS = [
    click.option("--attention-range", default=_DEFAULTS.attention, show_default=True,
                 help="NVTX range around each attention call."),
    click.option("--scores-range", default=_DEFAULTS.scores, show_default=True, help="Sub-range of QK^T."),
    click.option("--softmax-range", default=_DEFAULTS.softmax, show_default=True, help="Sub-range of the softmax."),
    click.option("--output-range", default=_DEFAULTS.output, show_default=True, help="Sub-range of attention·V."),
    click.option("--attribution", type=click.Choice(ATTRIBUTIONS), default="process", show_default=True,
                 help="How kernels belong to ranges: process (launched in the window from any thread, so "
                      "autograd's kernels count), thread (nsys' rule) or gpu (execution overlaps)."),
    click.option("--batch", type=int, help="Batch size B."),
    click.option("--seq-len", type=int, help="Sequence length T."),
    click.option("--d-model", type=int, help="Model width (d_head = d_model / heads)."),
    click.option("--heads", type=int, help="Attention heads H."),
    click.option("--d-head", type=int, help="Head dimension d (instead of --d-model)."),
    click.option("--dtype", type=click.Choice(list(DTYPE_BYTES)),
                 help="Element type, for bytes moved and the ridge point. Default: the type the attention kernels' "
                      f"names say (bf16, f16, f32, ...); {DEFAULT_DTYPE} when they say none or disagree."),
    click.option("--softmax-flops", type=float, default=DEFAULT_SOFTMAX_FLOPS, show_default=True,
                 help="FLOPs per score element of the softmax (max, subtract, exp, sum, divide)."),
    click.option("--mask-kernels", "mask_regex", default=DEFAULT_MASK_REGEX, show_default=True,
                 help="Regular expression: kernels of a sub-range matching it are counted as the mask."),
    click.option("--ridge", type=float,
                 help="FLOP/byte below which a piece is memory-bound. Default: the data type's peak FLOP/s / peak "
                      "bytes/s of the profile's GPU, from NVIDIA's datasheets (docs/attention.md)."),
    click.option("--warmup-range", default="warmup", show_default=True,
                 help="Range holding warm-up steps; what runs inside it is excluded."),
    click.option("--warmup-steps", type=click.IntRange(min=0), default=0, show_default=True,
                 help="Also exclude everything before the (N+1)-th step (step range, else forward range)."),
]
ATTENTION_KEYS = ("attention_range", "scores_range", "softmax_range", "output_range", "attribution", "batch",
                  "seq_len", "d_model", "heads", "d_head", "dtype", "softmax_flops", "mask_regex", "ridge",
                  "warmup_range", "warmup_steps")


def attention_options(f):
    """The options above, passed to the command as keyword arguments (see `options_from`)."""
    for option in reversed(_OPTIONS):
        f = option(f)
    return f


def options_from(kwargs: dict, step_range: str = "forward") -> AttentionOptions:
    """AttentionOptions from the keyword arguments of `attention_options` (removed from kwargs)."""
    k = {key: kwargs.pop(key) for key in ATTENTION_KEYS}
    ranges = AttentionRanges(k["attention_range"], k["scores_range"], k["softmax_range"], k["output_range"])
    shape = shape_from_options(k["batch"], k["seq_len"], k["d_model"], k["heads"], k["d_head"])
    return AttentionOptions(ranges, k["attribution"], shape, k["dtype"], k["softmax_flops"], k["mask_regex"],
                            k["ridge"], k["warmup_range"] or None, k["warmup_steps"], step_range)


def format_option(default_table: str, names: str):
    """--format, -o and --table (the one table of --format csv or parquet)."""
    def decorate(f):
        return output_options(table_option(default_table, names)(f))
    return decorate


@click.command("attention")
@PROFILE_ARG
@attention_options
@format_option("totals", "totals, instances")
def command(profile, fmt, table, output, **kwargs):
    """GPU time of QK^T, softmax and attention·V per attention instance, with FLOPs, TFLOP/s and bytes.

    Kernels are placed in the NVTX sub-ranges by where they were launched (default: process attribution), not
    by range length. Give the shape for FLOPs; a fused kernel (FlashAttention, cuDNN SDPA) is reported whole.
    Warm-up (the `warmup` range) is excluded. See docs/attention.md.

    \b
    Examples:
      nsys-analytics attention fwd.sqlite --batch 4 --seq-len 256 --d-model 256 --heads 4
      nsys-analytics attention fwd.sqlite --attention-range attention --scores-range attn_scores \\
          --softmax-range attn_softmax --output-range attn_out --format markdown
      nsys-analytics attention sdpa.sqlite --batch 4 --seq-len 256 --heads 4 --d-head 64 --dtype bf16
    """
    options = options_from(kwargs)
    with open_profile(profile) as p:
        analysis = analyze_attention(p, options)
    write(attention_text_report(analysis), fmt, output, table, inputs=[profile])
