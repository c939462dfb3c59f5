"""The exact merges over ranks that the commands' registry records name (`merge = "...merges:<function>"`): each
takes the rank set and the command's options and returns the combined and per-rank tables (a SetResult)."""

from __future__ import annotations


def kernels(pset, limit=None, by_launch_config=False, graphs=False, **options):
    from ...core.filters import kernel_filter_from
    from .sets import kernel_summary_set

    return kernel_summary_set(pset, kernel_filter_from(**options), limit, by_launch_config, graphs)


def nvtx_gpu(pset, attribution="thread", exclusive=False, **_):
    from .nvtx import nvtx_gpu_set

    return nvtx_gpu_set(pset, attribution, exclusive)


def nvtx_kernels(pset, attribution="thread", exclusive=False, name_kind="demangled", graphs=False, **_):
    from .nvtx import nvtx_kernels_set

    return nvtx_kernels_set(pset, attribution, exclusive, name_kind, graphs)


def classify(pset, unmatched=False, limit=None, rules_files=(), **options):
    from ...core.filters import kernel_filter_from
    from ..categories.rules import load_rules
    from .sets import classify_set

    return classify_set(pset, load_rules(rules_files), kernel_filter_from(**options), unmatched, limit)


def nvtx(pset, **_):
    from .nvtx import nvtx_sum_set

    return nvtx_sum_set(pset)
