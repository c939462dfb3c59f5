"""Annotations and configurations parsed from NVTX range names."""

from __future__ import annotations

import pandas as pd
import pytest

from nsys_analytics.core.errors import UsageError
from nsys_analytics.capabilities.ncu.config import Config, add_configs, compile_pattern, parse_range


@pytest.mark.parametrize("name,config", [
    ("matmul[M=1024,N=64,K=512]", Config("matmul", {"M": 1024, "N": 64, "K": 512})),
    ("attn[seq=2048, dtype=bf16, scale=0.125]", Config("attn", {"seq": 2048, "dtype": "bf16", "scale": 0.125})),
    ("empty[]", Config("empty", {})),
    ("plain", None),
    ("bad[M]", None),
    ("a[b=1]c", None),
])
def test_parse_range(name, config):
    assert parse_range(name) == config


def test_parse_range_with_a_user_regex():
    pattern = compile_pattern(r"gemm_(?P<M>\d+)x(?P<N>\d+)")
    assert parse_range("gemm_128x64", pattern) == Config("gemm_x", {"M": 128, "N": 64})
    named = compile_pattern(r"(?P<name>\w+?)_(?P<M>\d+)")
    assert parse_range("conv_3", named) == Config("conv", {"M": 3})
    assert parse_range("other", pattern) is None


@pytest.mark.parametrize("text", [r"gemm_\d+", "gemm_("])
def test_bad_regex(text):
    with pytest.raises(UsageError):
        compile_pattern(text)


def test_innermost_range_with_parameters_wins():
    frame = pd.DataFrame({"id": [0, 1, 2]})
    nvtx = pd.DataFrame([
        (0, "<default domain>", "push_pop", 0, "step[i=3]"), (0, "<default domain>", "push_pop", 1, "matmul[M=8]"),
        (0, "<default domain>", "push_pop", 2, "inner"),
        (1, "<default domain>", "push_pop", 0, "outer"),
        (1, "<default domain>", "start_end", 0, "epoch[e=1]"),
    ], columns=["kernel_id", "domain", "kind", "level", "name"])
    params = add_configs(frame, nvtx)
    assert params == ["M"]
    assert list(frame["annotation"][:2]) == ["matmul", "outer"] and pd.isna(frame["annotation"][2])
    assert frame["M"].tolist()[0] == 8 and frame["M"].isna().tolist()[1:] == [True, True]
