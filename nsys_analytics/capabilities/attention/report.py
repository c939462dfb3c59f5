"""`attention`: GPU time of QK^T, softmax and attention·V per attention instance, against their FLOPs and bytes.

Kernels are placed in the NVTX sub-ranges by their launch (issue 3's kernel_ranges, `process` attribution by
default), never by the ranges' wall-clock length. A fused kernel (FlashAttention, cuDNN SDPA) inside an attention
range without sub-ranges is reported whole. See docs/attention.md. Builds an `AttentionAnalysis`; no printing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..categories.rules import MATMUL, load_rules
from ...core.errors import MissingDataError, UsageError
from ...core.filters import ATTRIBUTIONS
from ...core.result import Result
from ...data.sql_files import Relation
from .data import (OP_RANGES, Warmup, gpu_names, kernel_times, known_ranges, matches, no_range, require_kernels,
                   require_nvtx, resolve_warmup)
from .flops import (
    DEFAULT_DTYPE,
    DEFAULT_SOFTMAX_FLOPS,
    PIECE_LABELS,
    PIECES,
    Cost,
    Shape,
    dtype_size,
    piece_costs,
    verdict,
)
from .peaks import Ridge, ridge_for
from .precision import infer_dtype

if TYPE_CHECKING:
    from ...data.profile import Profile
    from ...output.textreport import TextReport

DEFAULT_MASK_REGEX = r"masked_fill|bitwise_not|\btril|\btriu"
ATTENTION_CATEGORY = "attention"
GEMM_PIECES = ("scores", "output")  # their FLOPs and bytes are a GEMM's: their rates are over its kernels alone
_ATTRIBUTION_TEXT = {
    "thread": "launched inside the sub-range on the range's own thread (nsys' rule)",
    "process": "launched inside the sub-range's time window from any thread of the process",
    "gpu": "running on the GPU at some time within the sub-range's time window",
}


@dataclass(frozen=True)
class AttentionRanges:
    """The NVTX range names (text or 'domain:text') of the attention call and its three pieces."""

    attention: str = "scaled_dot_product_attention"
    scores: str = "computing_attention_scores"
    softmax: str = "computing_softmax"
    output: str = "final_matmul"

    def flag_of(self, piece: str) -> str:
        return {"scores": "--scores-range", "softmax": "--softmax-range", "output": "--output-range"}[piece]


DEFAULT_RANGES = AttentionRanges()


@dataclass(frozen=True)
class AttentionOptions:
    """Everything `attention` can be told; the defaults are those of the common assignment."""

    ranges: AttentionRanges = AttentionRanges()
    attribution: str = "process"
    shape: Shape | None = None
    dtype: str | None = None   # None: read from the attention kernels' names, else DEFAULT_DTYPE
    softmax_flops: float = DEFAULT_SOFTMAX_FLOPS
    mask_regex: str = DEFAULT_MASK_REGEX
    ridge: float | None = None  # None: the dtype's ridge on the profile's GPU (peaks.py)
    warmup_range: str | None = "warmup"
    warmup_steps: int = 0
    step_range: str = "forward"

    def __post_init__(self):
        if self.attribution not in ATTRIBUTIONS:
            raise UsageError(f"attribution {self.attribution!r}: choose one of {', '.join(ATTRIBUTIONS)}")
        if self.dtype is not None:
            dtype_size(self.dtype)
        if self.softmax_flops <= 0 or (self.ridge is not None and self.ridge <= 0):
            raise UsageError("--softmax-flops and --ridge must be positive")


@dataclass
class AttentionAnalysis:
    """The result: a totals table, a per-instance table, and sentences (findings first, then notes)."""

    profile: str
    fused: bool
    instances_counted: int
    piece_time_ns: dict[str, int]          # summed over the counted instances
    rate_time_ns: dict[str, int]           # the time the rates divide by: QK^T's and attn·V's GEMM kernels alone
    costs: dict[str, Cost] | None          # per instance; None without a shape
    totals: Result
    instances: Result
    findings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # pieces some counted instance holds no kernel of -> the instances that hold one: their time per instance
    # misses kernels that ran elsewhere (--attribution gpu), so no rate or bound is given for them
    partial: dict[str, int] = field(default_factory=dict)
    precision: Precision | None = None     # the data type and ridge used; None without a shape
    gemm_rated: tuple[str, ...] = ()       # pieces whose rates are of their GEMM kernels alone (QK^T, attn·V)


@dataclass(frozen=True)
class Precision:
    """The data type and ridge point the costs and verdicts use, each with a sentence on where it comes from."""

    dtype: str
    dtype_source: str
    ridge: Ridge

    @property
    def peaks(self) -> tuple[float, float] | None:
        """(TFLOP/s, TB/s) of the GPU the ridge comes from, when it is one of peaks.py's."""
        r = self.ridge
        return (r.peak_tflops, r.peak_tbps) if r.peak_tflops and r.peak_tbps else None


def analyze_attention(profile: Profile, options: AttentionOptions | None = None,
                      ops: str = OP_RANGES, names: dict[str, int] | None = None) -> AttentionAnalysis:
    """Time, FLOPs and bytes of the attention pieces of `profile` (see the module docstring). `ops`: the
    attribution read (attention/data.py attributed_ops); `names`: its range_names, when the caller has them."""
    options = options or AttentionOptions()
    names = require_nvtx(profile, "the attention analysis", names)
    require_kernels(profile)
    fused = _check_ranges(profile, names, options.ranges)
    warmup = resolve_warmup(profile, names, options.warmup_range, options.warmup_steps, options.step_range)
    fused_names = _kernel_names(profile, _is_attention_kernel) if fused else []
    matmul_names = [] if fused else _kernel_names(profile, _is_matmul_kernel)
    every = _instance_pieces(profile, options, warmup, fused_names, matmul_names, ops)
    counted = every.counted()
    if not counted:
        raise MissingDataError(f"{profile.path}: every {options.ranges.attention!r} range is warm-up; "
                               "nothing is left to analyse (check --warmup-range / --warmup-steps)")
    if fused and not every.time(counted, "fused"):
        raise MissingDataError(_no_pieces_message(profile, options.ranges))
    precision = _precision(profile, options, warmup, fused, fused_names, ops) if options.shape else None
    return _build(profile, options, warmup, every, counted, fused, precision)


def _precision(profile: Profile, options: AttentionOptions, warmup: Warmup, fused: bool, fused_names: list[str],
               ops: str) -> Precision:
    """--dtype and --ridge, or what the kernels and the GPU say (read only for what the user did not give)."""
    if options.dtype is not None:
        dtype, source = options.dtype, "from --dtype"
    else:
        dtype, source = _inferred_dtype(profile, options, warmup, fused, fused_names, ops)
    if options.ridge is not None:
        ridge = Ridge(options.ridge, "from --ridge")
    else:
        ridge = ridge_for(dtype, gpu_names(profile))
    return Precision(dtype, source, ridge)


def _inferred_dtype(profile: Profile, options: AttentionOptions, warmup: Warmup, fused: bool,
                    fused_names: list[str], ops: str) -> tuple[str, str]:
    """The dtype the counted attention kernels agree on (fused: the fused kernels only), else DEFAULT_DTYPE."""
    kernels = kernel_times(profile, options.ranges.attention, warmup, options.attribution, ops)
    if fused:  # the other kernels of the range (copies, casts) are not the attention's own
        chosen = set(fused_names)
        kernels = [k for k in kernels if k.name in chosen]
    guess = infer_dtype(kernels)
    if guess.dtype is not None:
        return guess.dtype, guess.because + _SIXTEEN_NOTE.get(guess.dtype, "") + "; --dtype sets another"
    return DEFAULT_DTYPE, f"the default: {guess.because}; give --dtype"


_SIXTEEN_NOTE = {"fp16/bf16": "; a bare f16 is how cuDNN names fp16 and bf16 alike, 2 bytes either way"}


_ALL_PIECES = ("scores", "mask", "softmax", "output", "fused", "unassigned")  # attention_pieces' columns


@dataclass
class _Instances:
    """The rows of attention_pieces (one per instance: start, warm-up flag, time and kernels of each piece), kept
    as the query's tuples: a 10 M-kernel profile has 170,000 instances."""

    rows: list[tuple]
    at: dict[str, int]  # column name -> position

    def counted(self) -> list[tuple]:
        warm = self.at["in_warmup"]
        return [r for r in self.rows if not r[warm]]

    def time(self, rows: list[tuple], piece: str) -> int:
        i = self.at[f"{piece}_ns"]
        return sum(r[i] for r in rows)

    def kernels(self, rows: list[tuple], piece: str) -> int:
        i = self.at[f"{piece}_kernels"]
        return sum(r[i] for r in rows)

    def holding(self, rows: list[tuple], piece: str) -> int:
        """How many of `rows` hold at least one kernel of `piece`."""
        i = self.at[f"{piece}_kernels"]
        return sum(1 for r in rows if r[i])


def _check_ranges(profile: Profile, names: dict[str, int], ranges: AttentionRanges) -> bool:
    """True for fused attention (no sub-range at all); errors when the attention range or some sub-ranges are
    missing."""
    if not matches(names, ranges.attention):
        raise no_range(f"{profile.path}: ", names, ranges.attention, "--attention-range", DEFAULT_RANGES.attention,
                       f"wrap the attention call in `nvtx.annotate({DEFAULT_RANGES.attention!r})`")
    missing = [p for p in ("scores", "softmax", "output") if not matches(names, getattr(ranges, p))]
    for piece in missing:
        if getattr(ranges, piece) != getattr(DEFAULT_RANGES, piece):  # one the user named: exit 2
            raise no_range(f"{profile.path}: ", names, getattr(ranges, piece), ranges.flag_of(piece), "", "")
    if missing and len(missing) < 3:
        listed = ", ".join(f"{getattr(ranges, p)!r} ({ranges.flag_of(p)})" for p in missing)
        raise MissingDataError(
            f"{profile.path}: no NVTX sub-range named {listed} "
            f"(closest first: {known_ranges(names, getattr(ranges, missing[0]))}); name yours with those options, or "
            "annotate each piece of attention with its own NVTX range")
    return len(missing) == 3


def _no_pieces_message(profile: Profile, ranges: AttentionRanges) -> str:
    return (f"{profile.path}: the {ranges.attention!r} ranges have no sub-ranges named {ranges.scores!r}, "
            f"{ranges.softmax!r}, {ranges.output!r} and hold no fused attention kernel; annotate QK^T, softmax "
            "and attention·V with NVTX ranges, or name yours with --scores-range, --softmax-range, --output-range")


def _instance_pieces(profile: Profile, options: AttentionOptions, warmup: Warmup, fused_names: list[str],
                     matmul_names: list[str], ops: str) -> _Instances:
    """Kernel time per piece of every attention instance (fused kernels: `fused_names`; the GEMMs of QK^T and
    attn·V: `matmul_names`; both by the category rules)."""
    params = {"attribution": options.attribution, "mask_regex": options.mask_regex, "ops": Relation(ops),
              "fused_names": fused_names, "matmul_names": matmul_names, **warmup.params(),
              **{k: getattr(options.ranges, k) for k in ("attention", "scores", "softmax", "output")}}
    result = profile.run_file("attention", "attention_pieces", params)
    return _Instances(result.rows, {c: i for i, c in enumerate(result.columns)})


def _kernel_names(profile: Profile, keep) -> list[str]:
    """The profile's kernel (and graph) names that `keep(rules, name)` picks by the category rules."""
    rules = load_rules()
    names = profile.run_file("attention", "kernel_name_list").rows
    return [name for (name,) in names if name and keep(rules, name)]


def _is_attention_kernel(rules, name: str) -> bool:
    return rules.classify(name).category == ATTENTION_CATEGORY


def _is_matmul_kernel(rules, name: str) -> bool:
    return rules.group_of(rules.classify(name).category) == MATMUL


def _pieces(fused: bool) -> tuple[str, ...]:
    return ("fused", "unassigned") if fused else (*PIECES, "unassigned")


def _build(profile: Profile, options: AttentionOptions, warmup: Warmup, every: _Instances,
           counted: list[tuple], fused: bool, precision: Precision | None) -> AttentionAnalysis:
    pieces = _pieces(fused)
    time = {p: every.time(counted, p) for p in pieces}
    rated = _rate_keys(pieces, every, counted)
    rate_time = {p: every.time(counted, key) for p, key in rated.items()}
    costs = (piece_costs(options.shape, dtype_size(precision.dtype), options.softmax_flops)
             if options.shape and precision else None)
    partial = {p: held for p in pieces if p != "unassigned" and rate_time[p]
               and (held := every.holding(counted, rated[p])) < len(counted)}
    ridge = precision.ridge.value if precision else None
    analysis = AttentionAnalysis(
        str(profile.path), fused, len(counted), time, rate_time, costs,
        _totals(pieces, every, counted, time, rate_time, costs, ridge, partial), _instance_table(pieces, every),
        partial=partial, precision=precision, gemm_rated=tuple(p for p, key in rated.items() if key != p),
    )
    analysis.findings = _findings(analysis, options)
    size = dtype_size(precision.dtype) if precision else None
    analysis.notes = (_notes(options, warmup, len(every.rows) - len(counted), fused, size)
                      + _gemm_note(analysis) + _partial_note(analysis, options))
    return analysis


def _rate_keys(pieces: tuple[str, ...], every: _Instances, counted: list[tuple]) -> dict[str, str]:
    """The kernels each piece's rates are of (a column prefix of attention_pieces): QK^T's and attn·V's GEMM kernels
    when they hold any, since their FLOPs and bytes are the GEMM's; every other piece's, all its kernels."""
    return {p: f"{p}_gemm" if p in GEMM_PIECES and every.kernels(counted, f"{p}_gemm") else p for p in pieces}


def _gemm_note(a: AttentionAnalysis) -> list[str]:
    """Which kernels the rates of QK^T and attn·V are of: their GEMMs alone, or (none found) all their kernels."""
    n, t, r = a.instances_counted, a.piece_time_ns, a.rate_time_ns
    gemm = [f"{PIECE_LABELS[p]} {r[p] / n / 1e3:.2f} of {t[p] / n / 1e3:.2f} us" for p in a.gemm_rated]
    whole = [PIECE_LABELS[p] for p in GEMM_PIECES if p not in a.gemm_rated and t.get(p)]
    notes = []
    if gemm:
        notes.append(f"Rates of QK^T and attn·V are of their GEMM kernels alone (category matmul, docs/categories.md; "
                     f"'Time for Rates': {', '.join(gemm)} per instance): their FLOPs and bytes are the GEMM's, so "
                     "the copies and 1/sqrt(d) scaling in their sub-ranges count in their time but not in their "
                     "TFLOP/s, GB/s or bound.")
    if whole:
        notes.append(f"{', '.join(whole)}: no kernel of the sub-range is a matmul by the category rules, so its rates "
                     "are of all its kernels, whose copies and scaling move bytes the formulas leave out.")
    return notes


def _partial_note(a: AttentionAnalysis, options: AttentionOptions) -> list[str]:
    if not a.partial:
        return []
    held = ", ".join(f"{PIECE_LABELS[p]} {n}" for p, n in a.partial.items())
    return [f"Of the {a.instances_counted} instances counted, only some hold a kernel of these pieces: {held}. "
            f"Under --attribution {options.attribution} the others' kernels ran outside their sub-range, so a time "
            "per instance would miss them: no TFLOP/s, GB/s or bound is given for these pieces (--attribution "
            "process, the default, and thread place every kernel by its launch)."]


_TOTAL_COLUMNS = ["piece", "instances", "kernels", "total_time_ns", "avg_time_ns", "rate_time_ns", "time_pct",
                  "flops", "achieved_tflops", "bytes", "achieved_gbps", "flop_per_byte", "bound"]
_TOTAL_HEADERS = ["Piece", "Instances", "Kernels", "Total Time (ns)", "Avg per Instance (ns)", "Time for Rates (ns)",
                  "Time (%)", "FLOPs per Instance", "Achieved TFLOP/s", "Bytes per Instance", "Achieved GB/s",
                  "FLOP/Byte", "Bound"]


def _totals(pieces: tuple[str, ...], every: _Instances, counted: list[tuple], time: dict[str, int],
            rate_time: dict[str, int], costs: dict[str, Cost] | None, ridge: float | None,
            partial: dict[str, int]) -> Result:
    """One row per piece and a total row; FLOP columns empty without a shape or for 'other kernels', rates empty
    for a piece some instance holds no kernel of (`partial`) and then for the total. Rates divide by `rate_time`
    per instance (QK^T's and attn·V's GEMM kernels)."""
    n = len(counted)
    whole = sum(time.values())
    rows = []
    for p in pieces:
        if p in ("unassigned", "mask") and not time[p]:
            continue
        kernels = every.kernels(counted, p)
        cost = costs.get(p) if costs else None
        rates = _rates(cost, rate_time[p] / n, ridge)
        if p in partial and cost is not None:
            rates = (cost.flops, None, cost.bytes, None, cost.intensity, None)
        rows.append((PIECE_LABELS[p], n, kernels, time[p], time[p] / n, rate_time[p] / n, _pct(time[p], whole),
                     *rates))
    all_kernels = sum(every.kernels(counted, p) for p in _ALL_PIECES)
    total_rates = _total_rates(pieces, costs, time, n)
    if partial:
        total_rates = (total_rates[0], *(None,) * 5)
    rows.append(("total", n, all_kernels, whole, whole / n, None, 100.0 if whole else 0.0, *total_rates))
    return Result(list(_TOTAL_COLUMNS), rows, [], list(_TOTAL_HEADERS))


def _rates(cost: Cost | None, avg_ns: float, ridge: float | None) -> tuple:
    if cost is None or ridge is None:
        return (None,) * 6
    tflops = cost.flops / avg_ns / 1e3 if avg_ns else None
    gbps = cost.bytes / avg_ns if avg_ns else None
    bound = verdict(cost, avg_ns, ridge)[0] if avg_ns else None
    return cost.flops, tflops, cost.bytes, gbps, cost.intensity, bound


def _total_rates(pieces, costs, time, n) -> tuple:
    if not costs:
        return (None,) * 6
    counted = [p for p in pieces if p in costs and (p != "mask" or time[p])]
    flops = sum(costs[p].flops for p in counted)
    avg = sum(time[p] for p in counted) / n
    return flops, (flops / avg / 1e3 if avg else None), None, None, None, None


def _pct(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole else 0.0


def _instance_table(pieces: tuple[str, ...], every: _Instances) -> Result:
    columns = ["instance", "start_ns", "warmup"] + [f"{p}_ns" for p in pieces] + ["total_ns"]
    headers = ["Instance", "Start (ns)", "Warm-up"] + [f"{PIECE_LABELS[p]} (ns)" for p in pieces] + ["Total (ns)"]
    keep = [every.at[c] for c in ("instance", "start_ns", "in_warmup", *(f"{p}_ns" for p in pieces))]
    times = [every.at[f"{p}_ns"] for p in _ALL_PIECES]
    rows = [(*(r[i] for i in keep), sum(r[i] for i in times)) for r in every.rows]
    return Result(columns, rows, [], headers)


def _findings(a: AttentionAnalysis, options: AttentionOptions) -> list[str]:
    """The sentences that answer the question: ratios, verdicts, or what is missing for them."""
    t = a.piece_time_ns
    if a.fused:
        out = [(f"Fused attention: softmax runs inside the fused kernel, so its time cannot be split from the two "
               f"matmuls; the fused kernels took {t['fused'] / a.instances_counted / 1e3:.2f} us per instance.")]
    else:
        out = [_time_ratio_sentence(t)]
    if a.costs is None:
        out.append("FLOPs, TFLOP/s and bytes need the model shape: give --batch, --seq-len, --heads and --d-model "
                   "(or --d-head).")
        return out
    pr = a.precision
    out.append(f"Shape: {options.shape.describe()}; data type {pr.dtype} ({dtype_size(pr.dtype)} bytes per "
               f"element), {pr.dtype_source}.")
    out.append(f"Ridge point {pr.ridge.value:g} FLOP/byte for {pr.dtype}, {_ridge_source(pr.ridge)}.")
    if not a.fused:
        out.append(_flop_ratio_sentence(t, a.costs))
    for p in (("fused",) if a.fused else PIECES):
        if t.get(p) and p not in a.partial:
            bound, why = verdict(a.costs[p], a.rate_time_ns[p] / a.instances_counted, pr.ridge.value, pr.peaks)
            gemm = ", its GEMM kernels" if p in a.gemm_rated else ""
            out.append(f"{PIECE_LABELS[p]}{gemm}: {bound}: {why}.")
    if a.fused:
        out.append("FLOPs count the full T x T scores; a causal kernel skips about half of them, so its real "
                   "rate is about half the one shown.")
    return out


def _ridge_source(ridge: Ridge) -> str:
    if ridge.peak_tflops:
        return f"from {ridge.source}; --ridge sets another"
    return ridge.source


def _time_ratio_sentence(t: dict[str, int]) -> str:
    matmul = t["scores"] + t["output"]
    return (f"GPU time: QK^T {t['scores'] / 1e3:.1f} us, softmax {t['softmax'] / 1e3:.1f} us, attn·V "
            f"{t['output'] / 1e3:.1f} us" + (f", mask {t['mask'] / 1e3:.1f} us" if t["mask"] else "")
            + f"; softmax takes {t['softmax'] / matmul:.2f}x the time of the two matmuls together."
            if matmul else "GPU time: the matmul sub-ranges hold no kernel.")


def _flop_ratio_sentence(t: dict[str, int], costs: dict[str, Cost]) -> str:
    matmul_flops = costs["scores"].flops + costs["output"].flops
    matmul_ns = t["scores"] + t["output"]
    flop_ratio = costs["softmax"].flops / matmul_flops
    time_ratio = t["softmax"] / matmul_ns if matmul_ns else 0.0
    per_flop = time_ratio / flop_ratio if flop_ratio else 0.0
    return (f"Runtime ratio softmax : matmuls = {time_ratio:.3f}, FLOP ratio = {flop_ratio:.4f}: per FLOP the "
            f"softmax is {per_flop:.0f}x slower than the matmuls.")


def _notes(options: AttentionOptions, warmup: Warmup, excluded: int, fused: bool,
           size: int | None) -> list[str]:
    r = options.ranges
    where = (f"inside {r.attention!r} and classified as attention kernels (fused)" if fused else
             f"in the sub-ranges {r.scores!r}, {r.softmax!r}, {r.output!r} of {r.attention!r}")
    notes = [
        (f"Attribution: {options.attribution}: a kernel counts in a piece when it was "
        f"{_ATTRIBUTION_TEXT[options.attribution]}; times are summed kernel GPU time {where}, not range lengths."),
        f"{warmup.text} {excluded} attention instance(s) left out as warm-up.",
    ]
    if not fused:
        notes.append(f"Kernels of a sub-range whose name matches /{options.mask_regex}/ are counted as 'mask'; "
                     "'other kernels' ran in the attention range outside its sub-ranges. A piece's time is every "
                     "kernel launched in its sub-range (e.g. the copies that make K^T contiguous and the 1/sqrt(d) "
                     "scaling count in QK^T's time).")
    notes.append(_formula_note(options, fused, size))
    return notes


def _formula_note(options: AttentionOptions, fused: bool, size: int | None) -> str:
    """The FLOP and byte formulas of the pieces shown (`size`: bytes per element, None without a shape)."""
    s = str(size) if size else "s"
    flops = (f"fused 4·B·H·T²·d + {options.softmax_flops:g}·B·H·T² FLOPs" if fused else
             f"QK^T and attn·V 2·B·H·T²·d FLOPs each, softmax {options.softmax_flops:g}·B·H·T², mask B·H·T²")
    moved = (f"{s}·4·B·H·T·d bytes (Q, K, V read, O written; the T x T scores stay on chip)" if fused else
             f"bytes QK^T {s}·(2·B·H·T·d + B·H·T²) (Q, K read, the T x T scores written), softmax and mask "
             f"{s}·2·B·H·T² (the scores read and written), attn·V {s}·(B·H·T² + 2·B·H·T·d) (the weights and V "
             "read, the output written)")
    return f"Formulas (per instance, all heads; {s} bytes per element): {flops}; {moved} (docs/attention.md)."


def attention_text_report(a: AttentionAnalysis) -> TextReport:
    """The analysis as a two-section TextReport (totals with findings, then every instance)."""
    from ...output.textreport import ReportSection, Table, TextReport

    kind = "fused attention kernels" if a.fused else "QK^T, softmax and attn·V"
    totals = ReportSection("totals", f"Attention: {kind}, {a.instances_counted} instance(s) counted",
                           list(a.findings), [Table("GPU time, FLOPs and bytes per piece", a.totals, "totals")],
                           list(a.notes))
    per = ReportSection("instances", "Per attention instance (warm-up ones listed, not counted)",
                        tables=[Table("Kernel GPU time per piece", a.instances, "instances")])
    return TextReport(f"nsys-analytics attention: {a.profile}", [f"profile: {a.profile}"], [totals, per],
                      {"totals": "totals", "instances": "instances"})
