"""The built-in category rules know the kernels of every fixture: at most 5 % of a fixture's kernel time is `other`,
and no kernel carrying more than 1 % of it is. Kernel times are summed here with sqlite3, names classified with the
rules file, so a fixture added later (a new workload, a new compiler's kernel names) is checked too."""

from __future__ import annotations

import sqlite3

import pytest

from nsys_analytics.categories.rules import OTHER, load_rules

from .conftest import FIXTURE_NAMES, PROFILES, shared_profiles

RULES = load_rules()
MAX_OTHER_PCT = 5.0
NAMED_KERNEL_PCT = 1.0


def kernel_times(path) -> dict[str, int]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        if not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'").fetchone():
            return {}
        return dict(con.execute("SELECT s.value, sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                "JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value"))
    finally:
        con.close()


def unknown(path) -> tuple[float, list[tuple[float, str]]]:
    """(% of kernel time in `other`, [(%, name)] of the kernels over 1 % that no rule knows)."""
    times = kernel_times(path)
    total = sum(times.values())
    if not total:
        return 0.0, []
    other = {n: t for n, t in times.items() if RULES.classify(n).category == OTHER}
    big = sorted(((100 * t / total, n[:160]) for n, t in other.items() if 100 * t / total > NAMED_KERNEL_PCT),
                 reverse=True)
    return 100 * sum(other.values()) / total, big


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_a_fixture_has_at_most_5_percent_of_its_kernel_time_in_other(name):
    share, big = unknown(PROFILES / f"{name}.sqlite")
    assert share <= MAX_OTHER_PCT, f"{share:.1f} % in other; heaviest: {big[:5]}"


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_no_kernel_over_1_percent_of_a_fixture_is_other(name):
    _, big = unknown(PROFILES / f"{name}.sqlite")
    assert not big


@pytest.mark.shared
@pytest.mark.parametrize("profile", [p for p in shared_profiles() if "h200" in str(p)], ids=lambda p: p.stem)
def test_the_h200_reference_exports_have_no_kernel_time_in_other(profile):
    share, big = unknown(profile)
    assert share <= MAX_OTHER_PCT and not big, big
