"""`attention`: piece times checked against nsys' nvtx_kern_sum and a direct sqlite3 computation; FLOPs and bytes
against hand arithmetic (fixtures/README.md: B=4, T=256, d_model=256, H=4, d_head=64)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict

import pytest
from click.testing import CliRunner

import nsys_analytics as na
from nsys_analytics.cli.main import cli
from nsys_analytics.core.errors import MissingDataError, UsageError
from nsys_analytics.capabilities.attention.report import AttentionOptions, AttentionRanges, analyze_attention
from nsys_analytics.capabilities.attention.flops import Shape, piece_costs, shape_from_options

from .conftest import ORACLE, PROFILES, read_csv

SHAPE = Shape(batch=4, seq_len=256, heads=4, d_head=64)
RENAMED = AttentionRanges("attention", "attn_scores", "attn_softmax", "attn_out")
# Hand arithmetic. B·H·T² = 4·4·256·256 = 1,048,576 scores; B·H·T·d = 4·4·256·64 = 262,144.
QK_FLOPS = 2 * 1_048_576 * 64            # 134,217,728
SOFTMAX_FLOPS = 5 * 1_048_576            # 5,242,880
MASK_FLOPS = 1_048_576
FUSED_FLOPS = 4 * 1_048_576 * 64 + 5 * 1_048_576  # 273,678,336
SCORES_BYTES_FP32 = 4 * (2 * 262_144 + 1_048_576)  # 6,291,456: read Q, K, write scores
SOFTMAX_BYTES_FP32 = 4 * 2 * 1_048_576  # 8,388,608: read and write the scores
FUSED_BYTES_BF16 = 2 * 4 * 262_144      # 2,097,152: Q, K, V in, O out


@pytest.fixture(scope="module")
def forward():
    with na.open(PROFILES / "gpt_forward.sqlite") as p:
        yield p


def _oracle_range_total(name: str, rng: str) -> int:
    """Summed kernel time of one range in nsys' nvtx_kern_sum (all instances, nsys' thread rule)."""
    rows = read_csv(ORACLE / name / f"{name}_nvtx_kern_sum.csv")
    return sum(int(r[6]) for r in rows[1:] if r[0] == rng)


def _by_launch(name: str, windows: list[tuple[int, int]]) -> int:
    """Independent: kernel time of kernels whose runtime launch call started inside one of `windows` (sqlite3)."""
    con = sqlite3.connect(f"file:{PROFILES / name}.sqlite?mode=ro", uri=True)
    rows = con.execute("SELECT r.start, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                       "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId").fetchall()
    con.close()
    return sum(d for s, d in rows if any(a <= s < b for a, b in windows))


def _windows(name: str, text: str, after_warmup: bool) -> list[tuple[int, int]]:
    con = sqlite3.connect(f"file:{PROFILES / name}.sqlite?mode=ro", uri=True)
    q = ("SELECT e.start, e.end FROM NVTX_EVENTS e JOIN StringIds s ON s.id = e.textId "
         "WHERE s.value = ? AND e.eventType = 59")
    spans = con.execute(q, (text,)).fetchall()
    warm = con.execute(q, ("warmup",)).fetchall()
    con.close()
    return [(a, b) for a, b in spans if not after_warmup or not any(w0 <= a and b <= w1 for w0, w1 in warm)]


def test_flop_and_byte_formulas_by_hand():
    c = piece_costs(SHAPE, 4)
    assert (c["scores"].flops, c["output"].flops, c["softmax"].flops, c["mask"].flops) == \
        (QK_FLOPS, QK_FLOPS, SOFTMAX_FLOPS, MASK_FLOPS)
    assert (c["scores"].bytes, c["softmax"].bytes, c["output"].bytes) == \
        (SCORES_BYTES_FP32, SOFTMAX_BYTES_FP32, SCORES_BYTES_FP32)
    assert c["softmax"].intensity == pytest.approx(5 / 8)
    assert piece_costs(SHAPE, 2)["fused"].flops == FUSED_FLOPS
    assert piece_costs(SHAPE, 4, softmax_flops=3)["softmax"].flops == 3 * 1_048_576


def test_shape_options():
    assert shape_from_options(4, 256, 256, 4, None) == SHAPE
    assert shape_from_options(4, 256, None, 4, 64) == SHAPE
    assert shape_from_options(4, None, 256, 4, None) is None
    with pytest.raises(UsageError, match="disagrees"):
        shape_from_options(4, 256, 256, 4, 32)


def test_pieces_match_nsys_nvtx_kern_sum_all_instances(forward):
    """With nothing excluded and nsys' thread rule, each piece (+ mask) sums to nsys' per-range kernel total."""
    a = analyze_attention(forward, AttentionOptions(attribution="thread", warmup_range=None))
    t = a.piece_time_ns
    assert a.instances_counted == 20
    assert t["scores"] + t["mask"] == _oracle_range_total("gpt_forward", ":computing_attention_scores")
    assert t["softmax"] == _oracle_range_total("gpt_forward", ":computing_softmax")
    assert t["output"] == _oracle_range_total("gpt_forward", ":final_matmul")
    assert sum(t.values()) == _oracle_range_total("gpt_forward", ":scaled_dot_product_attention")


def test_warmup_excluded_pieces_match_direct_sqlite(forward):
    a = analyze_attention(forward, AttentionOptions(shape=SHAPE))
    t = a.piece_time_ns
    assert a.instances_counted == 12  # 4 layers x 3 measured steps; 8 in `warmup`
    assert t["softmax"] == _by_launch("gpt_forward", _windows("gpt_forward", "computing_softmax", True))
    assert t["output"] == _by_launch("gpt_forward", _windows("gpt_forward", "final_matmul", True))
    assert t["scores"] + t["mask"] == \
        _by_launch("gpt_forward", _windows("gpt_forward", "computing_attention_scores", True))
    rows = {r[0]: dict(zip(a.totals.columns, r)) for r in a.totals.rows}
    softmax = rows["softmax"]
    assert softmax["flops"] == SOFTMAX_FLOPS and softmax["bytes"] == SOFTMAX_BYTES_FP32
    assert softmax["achieved_tflops"] == pytest.approx(SOFTMAX_FLOPS / (t["softmax"] / 12) / 1e3)
    assert softmax["bound"] == "memory-bound"
    assert rows["QK^T (scores)"]["flops"] == QK_FLOPS and rows["QK^T (scores)"]["bound"] == "compute-bound"
    ratio = next(f for f in a.findings if f.startswith("Runtime ratio"))
    assert f"{t['softmax'] / (t['scores'] + t['output']):.3f}" in ratio
    assert f"{SOFTMAX_FLOPS / (2 * QK_FLOPS):.4f}" in ratio
    assert any("Attribution: process" in n for n in a.notes)


def _gemm_by_launch(name: str, windows: list[tuple[int, int]]) -> int:
    """Independent: kernel time of the GEMM kernels (demangled name holds 'gemm') launched inside one of `windows`."""
    con = sqlite3.connect(f"file:{PROFILES / name}.sqlite?mode=ro", uri=True)
    rows = con.execute("SELECT r.start, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                       "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId "
                       "JOIN StringIds s ON s.id = k.demangledName WHERE s.value LIKE '%gemm%'").fetchall()
    con.close()
    return sum(d for s, d in rows if any(a <= s < b for a, b in windows))


def test_qkt_and_attn_v_rates_are_of_their_gemm_kernels_alone(forward):
    """QK^T's sub-range also runs the copies that make K^T contiguous and the 1/sqrt(d) scaling (attn·V's a copy),
    whose bytes the formulas leave out: the GEMM's FLOPs and bytes are divided by the GEMM kernels' time alone
    (sqlite3 here), while the piece's time keeps every kernel of the sub-range; a note says which."""
    a = analyze_attention(forward, AttentionOptions(shape=SHAPE))
    rows = {r[0]: dict(zip(a.totals.columns, r)) for r in a.totals.rows}
    for piece, sub in (("QK^T (scores)", "computing_attention_scores"), ("attn·V (output)", "final_matmul")):
        gemm_ns = _gemm_by_launch("gpt_forward", _windows("gpt_forward", sub, True)) / 12
        row = rows[piece]
        assert row["achieved_tflops"] == pytest.approx(QK_FLOPS / gemm_ns / 1e3)
        assert row["achieved_gbps"] == pytest.approx(SCORES_BYTES_FP32 / gemm_ns)  # attn·V moves as many bytes
        assert row["rate_time_ns"] == pytest.approx(gemm_ns) and gemm_ns < row["avg_time_ns"]
        assert row["flop_per_byte"] == pytest.approx(QK_FLOPS / SCORES_BYTES_FP32)
    assert rows["softmax"]["rate_time_ns"] == rows["softmax"]["avg_time_ns"]
    assert any(n.startswith("Rates of QK^T and attn·V are of their GEMM kernels alone") for n in a.notes)
    assert any(f.startswith("QK^T (scores), its GEMM kernels: compute-bound") for f in a.findings)


def _instances_holding(name: str, piece: str) -> int:
    """Independent, by sqlite3 and --attribution gpu's rule (docs/nvtx.md, docs/attention.md): a kernel belongs to a
    range whose window its GPU execution overlaps (touching counts), and to the sub-range starting first among those
    of its attention instance it overlaps; a mask-named kernel is 'mask'. The measured instances holding a kernel of
    `piece` (a sub-range's text)."""
    con = sqlite3.connect(f"file:{PROFILES / name}.sqlite?mode=ro", uri=True)
    kernels = con.execute("SELECT k.start, k.end, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                          "JOIN StringIds s ON s.id = k.demangledName").fetchall()
    con.close()
    subs = {t: _windows(name, t, True) for t in ("computing_attention_scores", "computing_softmax", "final_matmul")}
    held = 0
    for a, b in _windows(name, "scaled_dot_product_attention", True):
        mine = {t: [(x, y) for x, y in w if a <= x and y <= b] for t, w in subs.items()}
        for s, e, kernel in kernels:
            if not (s <= b and e >= a) or re.search(r"masked_fill|bitwise_not|\btril|\btriu", kernel):
                continue
            over = [(x, t) for t, w in mine.items() for x, y in w if s <= y and e >= x]
            if over and min(over)[1] == piece:
                held += 1
                break
    return held


def test_gpu_attribution_gives_no_rate_for_a_piece_whose_kernels_ran_elsewhere(forward):
    """Under --attribution gpu a kernel counts where it ran: softmax's ran after its sub-range ended in most
    instances, so its time per instance would be a fraction of the work and its GB/s a multiple of the real one.
    A piece some instance holds no kernel of gets FLOPs and bytes but no rate or bound, and a note says why."""
    a = analyze_attention(forward, AttentionOptions(shape=SHAPE, attribution="gpu"))
    holding = _instances_holding("gpt_forward", "computing_softmax")
    assert a.instances_counted == 12 and 0 < holding < 12 and a.partial == {"softmax": holding}
    rows = {r[0]: dict(zip(a.totals.columns, r)) for r in a.totals.rows}
    assert rows["softmax"]["bytes"] == SOFTMAX_BYTES_FP32
    assert (rows["softmax"]["achieved_gbps"], rows["softmax"]["bound"], rows["total"]["achieved_tflops"]) == \
        (None, None, None)
    assert _instances_holding("gpt_forward", "final_matmul") == 12 and rows["attn·V (output)"]["bound"]
    assert any(n.startswith("Of the 12 instances counted, only some hold a kernel") and f"softmax {holding}" in n
               for n in a.notes)
    assert not any(f.startswith("softmax:") for f in a.findings)


def test_fused_sdpa_reports_the_fused_kernel_whole():
    with na.open(PROFILES / "gpt_sdpa_train.sqlite") as p:
        a = analyze_attention(p, AttentionOptions(shape=SHAPE, dtype="bf16", warmup_range=None))
    assert a.fused and set(a.piece_time_ns) == {"fused", "unassigned"}
    rows = read_csv(ORACLE / "gpt_sdpa_train" / "gpt_sdpa_train_nvtx_kern_sum.csv")
    fused = sum(int(r[6]) for r in rows[1:] if r[0] == ":scaled_dot_product_attention" and "sdpa" in r[12])
    assert a.piece_time_ns["fused"] == fused
    row = dict(zip(a.totals.columns, a.totals.rows[0]))
    assert (row["piece"], row["flops"], row["bytes"]) == ("fused attention", FUSED_FLOPS, FUSED_BYTES_BF16)
    assert "cannot be split" in a.findings[0]


def test_renamed_ranges_need_the_options():
    with na.open(PROFILES / "gpt_renamed_forward.sqlite") as p:
        with pytest.raises(MissingDataError, match="--attention-range"):
            analyze_attention(p)
        a = analyze_attention(p, AttentionOptions(ranges=RENAMED, attribution="thread", warmup_range=None))
    t = a.piece_time_ns
    assert t["softmax"] == _oracle_range_total("gpt_renamed_forward", ":attn_softmax")
    assert t["output"] == _oracle_range_total("gpt_renamed_forward", ":attn_out")
    assert t["scores"] + t["mask"] == _oracle_range_total("gpt_renamed_forward", ":attn_scores")


def test_missing_sub_range_and_no_nvtx_say_what_to_do(forward):
    ranges = AttentionRanges(softmax="no_such_range")
    with pytest.raises(UsageError, match="--softmax-range"):  # a name the user chose: exit 2
        analyze_attention(forward, AttentionOptions(ranges=ranges))
    with na.open(PROFILES / "no_nvtx.sqlite") as p, pytest.raises(MissingDataError, match="--trace=cuda,nvtx"):
        analyze_attention(p)


def test_cli_attention_formats():
    path = str(PROFILES / "gpt_renamed_forward.sqlite")
    args = ["attention", path, "--attention-range", "attention", "--scores-range", "attn_scores",
            "--softmax-range", "attn_softmax", "--output-range", "attn_out", "--batch", "4", "--seq-len", "256",
            "--d-model", "256", "--heads", "4"]
    runner = CliRunner()
    text = runner.invoke(cli, args)
    assert text.exit_code == 0, text.output
    assert "softmax: memory-bound" in text.output and "5,242,880" in text.output
    doc = json.loads(runner.invoke(cli, args + ["--format", "json"]).output)
    totals = doc["sections"]["totals"]["tables"][0]["rows"]
    assert {r["piece"]: r["flops"] for r in totals}["softmax"] == SOFTMAX_FLOPS
    assert runner.invoke(cli, args + ["--format", "markdown"]).output.startswith("# nsys-analytics attention")
    missing = runner.invoke(cli, ["attention", str(PROFILES / "no_nvtx.sqlite")])
    assert missing.exit_code == 1 and "--trace=cuda,nvtx" in missing.output


def test_instances_table_lists_warmup(forward):
    a = analyze_attention(forward)
    warm = a.instances.column("warmup")
    assert len(warm) == 20 and sum(warm) == 8
    per_piece = defaultdict(int)
    for row in a.instances.to_records():
        if not row["warmup"]:
            per_piece["softmax"] += row["softmax_ns"]
    assert per_piece["softmax"] == a.piece_time_ns["softmax"]
