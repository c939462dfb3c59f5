"""The categories of a real torch.compile capture with Inductor's autotuning in it (fixtures/categories/README.md):
the benchmarked templates (`triton_mm`, `triton_bmm`, `triton_convolution2d`, named as nsys stats names them) are
matmul, and `other` holds under 5 % of the kernel time with no kernel in it over 1 %."""

from __future__ import annotations

import lzma
import shutil

import pytest

from nsys_analytics.capabilities.categories.rules import load_rules

from .conftest import FIXTURES, read_csv
from .test_category_coverage import MAX_OTHER_PCT, unknown

FOLDER = FIXTURES / "categories"
pytestmark = pytest.mark.skipif(not (FOLDER / "compile_autotune_full.sqlite.xz").exists(), reason="fixture absent")


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    target = tmp_path_factory.mktemp("autotune") / "compile_autotune_full.sqlite"
    with lzma.open(FOLDER / "compile_autotune_full.sqlite.xz") as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 22)
    return target


def test_the_autotuning_templates_are_matmul():
    rows = read_csv(FOLDER / "compile_autotune_full_cuda_gpu_kern_sum.csv")[1:]
    names = {r[-1]: float(r[0]) for r in rows}  # NVIDIA's names and Time (%)
    templates = [n for n in names if n in ("triton_mm", "triton_bmm", "triton_convolution2d")]
    assert len(templates) == 3 and sum(names[n] for n in templates) > 5.0  # 6.5 % of the capture's kernel time
    rules = load_rules()
    assert {n: rules.classify(n).category for n in templates} == {n: "matmul" for n in templates}


def test_other_holds_under_5_percent(capture):
    share, big = unknown(capture)
    assert share < MAX_OTHER_PCT and not big, (share, big)
