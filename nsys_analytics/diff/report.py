"""`build_diff()`: two sides of `ProfileSummary` (one per rank) -> a `DiffReport`: a one-sentence verdict and the
per-kernel, per-category, per-range (and per-rank) tables. No I/O: `diff` feeds it from profiles, `runs diff` from
the catalog, so both give the same tables."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..render import shorten_name
from ..result import Result
from . import ALPHA
from .matching import pair_renamed, pair_variants, range_families
from .stats import RankTest, benjamini_hochberg, mann_whitney
from .summary import ProfileSummary, RangeStat, Stat

METHOD = ("noise test: two-sided Mann-Whitney U on per-instance durations (exact when both sides have at most "
          "20 instances and no ties, else normal approximation with tie and continuity correction; more than "
          "2,000 distinct durations are compared in 0.5 % bins); a kernel or range is beyond noise when its "
          "Benjamini-Hochberg adjusted p (q, over the rows of its table whose test can reach {alpha:g}) is below "
          "{alpha:g}; the step time, one test named in advance, when its own p is below {alpha:g}")
_STEP = re.compile(r"(^|[^a-z])(step|iter|iteration|batch)([^a-z]|$)", re.IGNORECASE)
_VERDICT_NAME = 60  # kernel names in the verdict are shortened to this many characters
_WARMUP = re.compile(r"warm", re.IGNORECASE)  # ranges the verdict does not blame (warm-up is not the step)


@dataclass
class Side:
    """One side of the comparison, ranks merged."""

    labels: list[str]
    kernels: dict[str, tuple[str, Stat]]  # name -> (category, stat)
    ranges: dict[str, RangeStat]  # range name -> its instances
    range_kernels: dict[tuple[str, str], int]  # (range name, kernel name) -> innermost kernel ns
    attribution: str | None
    ranks: list[ProfileSummary]

    @property
    def kernel_ns(self) -> int:
        return sum(s.total_ns for _, s in self.kernels.values())


@dataclass
class DiffReport:
    verdict: str
    headline: dict[str, Any]
    kernels: Result
    categories: Result
    ranges: Result
    range_categories: Result | None = None
    ranks: Result | None = None
    notes: list[str] = field(default_factory=list)
    base_labels: list[str] = field(default_factory=list)
    new_labels: list[str] = field(default_factory=list)

    def tables(self) -> dict[str, Result]:
        out = {"kernels": self.kernels, "categories": self.categories, "ranges": self.ranges}
        if self.range_categories is not None:
            out["range_categories"] = self.range_categories
        if self.ranks is not None:
            out["ranks"] = self.ranks
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "headline": self.headline, "base": self.base_labels, "new": self.new_labels,
                "notes": self.notes, **{k: r.to_records() for k, r in self.tables().items()}}


def merge_side(profiles: list[ProfileSummary], name_kind: str) -> Side:
    """The ranks of one side as one: kernels and ranges of the same name merged, kernel time per range summed."""
    kernels: dict[str, list] = defaultdict(list)
    categories: dict[str, str] = {}
    for p in profiles:
        for k in p.kernel_stats(name_kind):
            kernels[k.name].append(k.stat)
            categories.setdefault(k.name, k.category)
    ranges: dict[str, list[RangeStat]] = defaultdict(list)
    for p in profiles:
        for r in p.ranges:
            ranges[r.name].append(r)
    range_kernels: dict[tuple[str, str], int] = defaultdict(int)
    for p in profiles:
        for rk in p.range_kernels:
            name = rk.kernel if name_kind == "demangled" else p.short_names.get(rk.kernel, rk.kernel)
            range_kernels[(rk.range, name)] += rk.kernel_ns
    modes = {p.attribution for p in profiles}
    return Side(
        [p.label for p in profiles],
        {n: (categories[n], Stat.merge(s)) for n, s in kernels.items()},
        {n: _merge_ranges(rs) for n, rs in ranges.items()},
        dict(range_kernels), modes.pop() if len(modes) == 1 else None, profiles,
    )


def _merge_ranges(rs: list[RangeStat]) -> RangeStat:
    kernel = Stat.merge([r.kernel for r in rs]) if all(r.kernel is not None for r in rs) else None
    return RangeStat(rs[0].name, rs[0].style, Stat.merge([r.wall for r in rs]), kernel)


def build_diff(base: list[ProfileSummary], new: list[ProfileSummary], name_kind: str = "demangled",
               alpha: float = ALPHA) -> DiffReport:
    """Compare BASE and NEW (each one or more ranks)."""
    b, n = merge_side(base, name_kind), merge_side(new, name_kind)
    fam_b, fam_n = _side_families(b, n)
    attributed = b.attribution is not None and n.attribution is not None and b.attribution == n.attribution
    contexts = (_contexts(b, fam_b), _contexts(n, fam_n)) if attributed else ({}, {})
    kernels = _kernel_table(b, n, contexts, alpha)
    ranges_b, ranges_n = _families(b, fam_b), _families(n, fam_n)
    report = DiffReport(
        "", {}, kernels, _category_table(b, n), _range_table(ranges_b, ranges_n, alpha),
        _range_category_table(b, n, fam_b, fam_n) if attributed else None,
        _rank_table(b, n, ranges_b, ranges_n) if len(base) > 1 or len(new) > 1 else None,
        base_labels=b.labels, new_labels=n.labels,
    )
    report.headline = _headline(b, n, ranges_b, ranges_n, alpha)
    report.verdict = _verdict(report, alpha)
    report.notes = _notes(b, n, attributed, alpha)
    return report


def _side_families(b: Side, n: Side) -> tuple[dict[str, str], dict[str, str]]:
    """{range name: family} per side; a family found on one side only that matches one found on the other only
    (renamed: same instance count, mostly the same kernels) becomes `old -> new` on both."""
    families = range_families([*b.ranges, *n.ranges])
    fam_b = {name: families[name] for name in b.ranges}
    fam_n = {name: families[name] for name in n.ranges}
    renames = pair_renamed(_family_facts(b, fam_b), _family_facts(n, fam_n))
    for old, new in renames:
        for fam in (fam_b, fam_n):
            for name, f in fam.items():
                if f in (old, new):
                    fam[name] = f"{old} -> {new}"
    return fam_b, fam_n


def _family_facts(side: Side, fam: dict[str, str]) -> dict[str, tuple[int, set[str]]]:
    """{family: (instances, kernel names whose innermost range it is)}."""
    instances: dict[str, int] = defaultdict(int)
    for name, r in side.ranges.items():
        instances[fam[name]] += r.wall.instances
    kernels: dict[str, set[str]] = defaultdict(set)
    for (rng, kernel) in side.range_kernels:
        kernels[fam.get(rng, rng)].add(kernel)
    return {f: (i, kernels.get(f, set())) for f, i in instances.items()}


# -- kernels ---------------------------------------------------------------------------------------------------

KERNEL_COLUMNS = {
    "status": "Status", "category": "Category", "range": "Range", "base_total_ns": "Base Total (ns)",
    "new_total_ns": "New Total (ns)", "change_ns": "Change (ns)", "change_pct": "Change (%)",
    "base_instances": "Base Inst", "new_instances": "New Inst", "base_avg_ns": "Base Avg (ns)",
    "new_avg_ns": "New Avg (ns)", "base_med_ns": "Base Med (ns)", "new_med_ns": "New Med (ns)",
    "p_value": "p", "q_value": "q (BH)", "test": "Test", "noise": "Noise", "name": "Name",
}


def _contexts(side: Side, families: dict[str, str]) -> dict[str, str]:
    """{kernel name: the range family holding most of its time (innermost attribution)}."""
    per: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for (rng, kernel), ns in side.range_kernels.items():
        per[kernel][families.get(rng, rng)] += ns
    return {k: min(f.items(), key=lambda kv: (-kv[1], kv[0]))[0] for k, f in per.items()}


def _kernel_table(b: Side, n: Side, contexts: tuple[dict, dict], alpha: float) -> Result:
    gone = [k for k in b.kernels if k not in n.kernels]
    came = [k for k in n.kernels if k not in b.kernels]

    def described(side, ctx, names):
        return [(k, side.kernels[k][0], ctx.get(k), side.kernels[k][1].total_ns) for k in names]

    pairs = pair_variants(described(b, contexts[0], gone), described(n, contexts[1], came))
    paired_gone, paired_came = {g for g, _ in pairs}, {c for _, c in pairs}
    entries = []  # (status, name, base (category, stat), new (category, stat), range context)
    for name in [k for k in b.kernels if k in n.kernels]:
        entries.append(("changed", name, b.kernels[name], n.kernels[name],
                        contexts[1].get(name) or contexts[0].get(name)))
    for g, c in pairs:
        entries.append(("variant", f"{g} -> {c}", b.kernels[g], n.kernels[c], contexts[1].get(c) or contexts[0].get(g)))
    entries += [("disappeared", k, b.kernels[k], None, contexts[0].get(k)) for k in gone if k not in paired_gone]
    entries += [("appeared", k, None, n.kernels[k], contexts[1].get(k)) for k in came if k not in paired_came]
    tests = [mann_whitney(base[1].dist, new[1].dist) if base and new else None for _, _, base, new, _ in entries]
    q_values = _q_values(tests, alpha)
    rows = [_kernel_row(*entry, test, q, alpha) for entry, test, q in zip(entries, tests, q_values)]
    rows.sort(key=lambda r: (-abs(r[5]), r[-1]))
    return Result(list(KERNEL_COLUMNS), rows, headers=list(KERNEL_COLUMNS.values()))


def _kernel_row(status, name, base, new, context, test, q, alpha) -> tuple:
    category = (new or base)[0]
    bs, ns = base[1] if base else None, new[1] if new else None
    if status == "changed" and bs.instances == ns.instances and (q is None or q >= alpha):
        status = "same"  # as many instances, durations within noise
    return (status, category, context, *_compare(bs, ns), *_test_cells(test, q, alpha), name)


def _compare(bs: Stat | None, ns: Stat | None) -> tuple:
    bt, nt = (bs.total_ns if bs else 0), (ns.total_ns if ns else 0)
    return (bt, nt, nt - bt, _pct(nt, bt), bs.instances if bs else 0, ns.instances if ns else 0,
            bs.avg_ns if bs else None, ns.avg_ns if ns else None, bs.med_ns if bs else None,
            ns.med_ns if ns else None)


def _q_values(tests: list[RankTest | None], alpha: float) -> list[float | None]:
    """Benjamini-Hochberg adjusted p-values of one table's tests. The family is the tests that can speak: those
    whose smallest possible p is below alpha (Tarone's rule for discrete tests: 3 against 3 instances can never
    reach p < 0.1, and counting such rows would only weaken the others). None for the rest."""
    family = [i for i, t in enumerate(tests) if t is not None and t.min_p < alpha]
    q_values: list[float | None] = [None] * len(tests)
    for i, q in zip(family, benjamini_hochberg([tests[i].p_value for i in family])):
        q_values[i] = q
    return q_values


def _test_cells(test: RankTest | None, q: float | None, alpha: float) -> tuple:
    if test is None:
        return (None, None, None, None)
    if test.min_p >= alpha:  # e.g. 3 vs 3 instances: p is at least 0.1 whatever the durations
        return (test.p_value, None, test.method, "too few")
    return (test.p_value, q, test.method, "beyond" if q < alpha else "within")


def _pct(new: float, base: float) -> float | None:
    return 100.0 * (new - base) / base if base else None


# -- categories ------------------------------------------------------------------------------------------------

CATEGORY_COLUMNS = {
    "category": "Category", "base_total_ns": "Base Total (ns)", "new_total_ns": "New Total (ns)",
    "change_ns": "Change (ns)", "change_pct": "Change (%)", "base_share_pct": "Base Share (%)",
    "new_share_pct": "New Share (%)", "base_instances": "Base Inst", "new_instances": "New Inst",
}


def _by_category(side: Side) -> dict[str, tuple[int, int]]:
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for category, stat in side.kernels.values():
        out[category][0] += stat.total_ns
        out[category][1] += stat.instances
    return {k: (v[0], v[1]) for k, v in out.items()}


def _category_table(b: Side, n: Side) -> Result:
    cb, cn = _by_category(b), _by_category(n)
    tb, tn = b.kernel_ns, n.kernel_ns
    rows = []
    for cat in cb.keys() | cn.keys():
        (bt, bi), (nt, ni) = cb.get(cat, (0, 0)), cn.get(cat, (0, 0))
        rows.append((cat, bt, nt, nt - bt, _pct(nt, bt), _share(bt, tb), _share(nt, tn), bi, ni))
    rows.sort(key=lambda r: (-abs(r[3]), r[0]))
    rows.append(("total", tb, tn, tn - tb, _pct(tn, tb), _share(tb, tb), _share(tn, tn),
                 sum(r[7] for r in rows), sum(r[8] for r in rows)))
    return Result(list(CATEGORY_COLUMNS), rows, headers=list(CATEGORY_COLUMNS.values()),
                  notes=["Kernels only (no memcpy/memset); shares are of each side's summed kernel time."])


def _share(part: int, whole: int) -> float | None:
    return 100.0 * part / whole if whole else None


# -- NVTX ranges -----------------------------------------------------------------------------------------------

RANGE_COLUMNS = {
    "range": "Range", "base_instances": "Base Inst", "new_instances": "New Inst",
    "base_avg_ns": "Base Avg (ns)", "new_avg_ns": "New Avg (ns)", "change_ns": "Change (ns)",
    "change_pct": "Change (%)", "base_med_ns": "Base Med (ns)", "new_med_ns": "New Med (ns)",
    "base_kernel_avg_ns": "Base Kernel Avg (ns)", "new_kernel_avg_ns": "New Kernel Avg (ns)",
    "p_value": "p", "q_value": "q (BH)", "test": "Test", "noise": "Noise",
}


def _families(side: Side, families: dict[str, str]) -> dict[str, RangeStat]:
    groups: dict[str, list[RangeStat]] = defaultdict(list)
    for name, r in side.ranges.items():
        groups[families.get(name, name)].append(r)
    return {f: _merge_ranges(rs) for f, rs in groups.items()}


def _range_table(rb: dict[str, RangeStat], rn: dict[str, RangeStat], alpha: float) -> Result:
    families = sorted(rb.keys() | rn.keys())
    tests = [mann_whitney(rb[f].wall.dist, rn[f].wall.dist) if f in rb and f in rn else None for f in families]
    rows = []
    for fam, test, q in zip(families, tests, _q_values(tests, alpha)):
        b, n = rb.get(fam), rn.get(fam)
        bw, nw = (b.wall if b else None), (n.wall if n else None)
        change = (nw.avg_ns - bw.avg_ns) if bw and nw else None
        rows.append((fam, bw.instances if bw else 0, nw.instances if nw else 0, bw.avg_ns if bw else None,
                     nw.avg_ns if nw else None, change, _pct(nw.avg_ns, bw.avg_ns) if bw and nw else None,
                     bw.med_ns if bw else None, nw.med_ns if nw else None,
                     b.kernel.avg_ns if b and b.kernel else None, n.kernel.avg_ns if n and n.kernel else None,
                     *_test_cells(test, q, alpha)))
    rows.sort(key=lambda r: (-abs(r[5] or 0), r[0]))
    return Result(list(RANGE_COLUMNS), rows, headers=list(RANGE_COLUMNS.values()),
                  notes=[("Per range name (numbered names such as step_0, step_1 as one family step_*): the "
                         "instances' durations; Kernel Avg is the GPU time of the kernels each instance holds.")])


RANGE_CATEGORY_COLUMNS = {
    "range": "Range", "category": "Category", "base_total_ns": "Base Total (ns)", "new_total_ns": "New Total (ns)",
    "change_ns": "Change (ns)", "change_pct": "Change (%)",
}


def _range_category_table(b: Side, n: Side, fam_b: dict[str, str], fam_n: dict[str, str]) -> Result:
    def cells(side, families):
        out: dict[tuple[str, str], int] = defaultdict(int)
        for (rng, kernel), ns in side.range_kernels.items():
            category = side.kernels[kernel][0] if kernel in side.kernels else "other"
            out[(families.get(rng, rng), category)] += ns
        return out

    cb, cn = cells(b, fam_b), cells(n, fam_n)
    rows = [(r, c, cb.get((r, c), 0), cn.get((r, c), 0), cn.get((r, c), 0) - cb.get((r, c), 0),
             _pct(cn.get((r, c), 0), cb.get((r, c), 0))) for r, c in cb.keys() | cn.keys()]
    rows.sort(key=lambda r: (-abs(r[4]), r[0], r[1]))
    return Result(list(RANGE_CATEGORY_COLUMNS), rows, headers=list(RANGE_CATEGORY_COLUMNS.values()),
                  notes=[("Kernel GPU time by innermost NVTX range and category: these add up to the kernel time "
                         "the attribution places in ranges.")])


# -- ranks -----------------------------------------------------------------------------------------------------

RANK_COLUMNS = {
    "rank": "Rank", "base": "Base", "new": "New", "base_kernel_ns": "Base Kernel (ns)",
    "new_kernel_ns": "New Kernel (ns)", "change_pct": "Change (%)", "base_step_avg_ns": "Base Step Avg (ns)",
    "new_step_avg_ns": "New Step Avg (ns)", "step_change_pct": "Step Change (%)",
}


def _rank_table(b: Side, n: Side, rb: dict, rn: dict) -> Result:
    step = _step_family(rb, rn)
    ranks_b, ranks_n = {p.rank: p for p in b.ranks}, {p.rank: p for p in n.ranks}
    rows = []
    for rank in sorted(ranks_b.keys() | ranks_n.keys()):
        pb, pn = ranks_b.get(rank), ranks_n.get(rank)
        kb = sum(k.stat.total_ns for k in pb.kernel_stats("demangled")) if pb else None
        kn = sum(k.stat.total_ns for k in pn.kernel_stats("demangled")) if pn else None
        sb, sn = _rank_step(pb, step), _rank_step(pn, step)
        rows.append((rank, pb.label if pb else None, pn.label if pn else None, kb, kn,
                     _pct(kn, kb) if kb and kn is not None else None, sb, sn,
                     _pct(sn, sb) if sb and sn is not None else None))
    return Result(list(RANK_COLUMNS), rows, headers=list(RANK_COLUMNS.values()),
                  notes=[f"Ranks paired by the number in the file name (rank3), else by position; step: {step}."
                         if step else "Ranks paired by the number in the file name (rank3), else by position."])


def _rank_step(p: ProfileSummary | None, step: str | None) -> float | None:
    if p is None or step is None:
        return None
    families = range_families(r.name for r in p.ranges)
    walls = [r.wall for r in p.ranges if families.get(r.name, r.name) == step or r.name == step]
    merged = Stat.merge(walls) if walls else None
    return merged.avg_ns if merged and merged.instances else None


# -- headline and verdict --------------------------------------------------------------------------------------

def _step_family(rb: dict[str, RangeStat], rn: dict[str, RangeStat]) -> str | None:
    """The range family that looks like a training/inference step (step, iter, batch), on both sides, the one with
    the most time."""
    both = [f for f in rb.keys() & rn.keys() if _STEP.search(f)]
    return max(both, key=lambda f: (rb[f].wall.total_ns, f), default=None)


def _headline(b: Side, n: Side, rb: dict, rn: dict, alpha: float) -> dict[str, Any]:
    step = _step_family(rb, rn)
    if step is not None:
        sb, sn = rb[step].wall, rn[step].wall
        test = mann_whitney(sb.dist, sn.dist)
        return {"metric": "step", "range": step, "base_ns": sb.avg_ns, "new_ns": sn.avg_ns,
                "change_pct": _pct(sn.avg_ns, sb.avg_ns), "base_instances": sb.instances,
                "new_instances": sn.instances, "p_value": test.p_value, "test": test.method,
                "min_p": test.min_p, "beyond_noise": None if test.min_p >= alpha else test.p_value < alpha}
    return {"metric": "kernel_time", "range": None, "base_ns": b.kernel_ns, "new_ns": n.kernel_ns,
            "change_pct": _pct(n.kernel_ns, b.kernel_ns), "base_instances": 1, "new_instances": 1,
            "p_value": None, "test": None, "min_p": None, "beyond_noise": None}


def _verdict(report: DiffReport, alpha: float) -> str:
    h = report.headline
    if h["metric"] == "step":
        what = f"Step time ({h['range']}, mean of {h['base_instances']} vs {h['new_instances']})"
        if h["beyond_noise"] is None:
            noise = (f"too few instances for the noise test: p >= {h['min_p']:.2g} whatever the durations, "
                     f"so the threshold alone decides")
        else:
            noise = (f"p = {h['p_value']:.2g}, {h['test']} Mann-Whitney U: "
                     f"{'beyond' if h['beyond_noise'] else 'within'} noise")
    else:
        what, noise = "GPU kernel time", "one value per side: no noise test"
    change = h["change_pct"]
    text = f"{what} {_ms(h['base_ns'])} -> {_ms(h['new_ns'])} ({_signed(change)}, {noise})"
    where = _where(report, -1 if (change or 0) < 0 else 1)
    if not where:
        return text + "."
    real = h["beyond_noise"] if h["beyond_noise"] is not None else abs(change or 0) >= 1.0
    return text + (f", mostly {where}." if real else f"; largest move: {where}.")


def _where(report: DiffReport, sign: int) -> str | None:
    """The range and category, then the kernel, whose change weighs most in the headline's direction."""
    cell = None
    if report.range_categories is not None:
        cell = next((r for r in report.range_categories.rows if r[4] * sign > 0 and not _WARMUP.search(r[0])), None)
    if cell is None:
        cat = next((r for r in report.categories.rows if r[0] != "total" and r[3] * sign > 0), None)
        if cat is None:
            return None
        place, category, delta = f"{cat[0]} kernels", cat[0], cat[3]
    else:
        place, category, delta = f"{cell[1]} kernels in {cell[0]}", cell[1], cell[4]
    text = f"{place} ({_signed_ms(delta)})"
    rows = report.kernels.rows
    kernel = next((r for r in rows if r[1] == category and r[5] * sign > 0
                   and (cell is None or r[2] == cell[0])), None)
    kernel = kernel or next((r for r in rows if r[1] == category and r[5] * sign > 0), None)
    if kernel is not None:
        text += f": {_kernel_phrase(kernel)}"
    return text


def _kernel_phrase(row: tuple) -> str:
    status, name = row[0], row[-1]
    if status == "variant":
        old, new = _distinct(*name.split(" -> ", 1))
        return f"{old} -> {new} ({_signed_ms(row[5])})"
    word = {"appeared": "new ", "disappeared": "gone: "}.get(status, "")
    return f"{word}{shorten_name(name, _VERDICT_NAME)} ({_signed_ms(row[5])})"


def _distinct(old: str, new: str, context: int = 16) -> tuple[str, str]:
    """Two kernel names short enough for a sentence that still show where they differ (a tile size, say)."""
    a, b = shorten_name(old, _VERDICT_NAME), shorten_name(new, _VERDICT_NAME)
    if a != b:
        return a, b
    prefix = next((i for i, (x, y) in enumerate(zip(old, new)) if x != y), min(len(old), len(new)))
    suffix = next((i for i, (x, y) in enumerate(zip(reversed(old), reversed(new))) if x != y),
                  min(len(old), len(new)))

    def cut(name: str) -> str:
        start, end = max(prefix - context, 0), max(len(name) - suffix + context, 0)
        return ("…" if start else "") + name[start:end] + ("…" if end < len(name) else "")

    return cut(old), cut(new)


def _ms(ns: float) -> str:
    return f"{ns / 1e6:,.3f} ms" if abs(ns) < 1e7 else f"{ns / 1e6:,.1f} ms"


def _signed_ms(ns: float) -> str:
    return ("+" if ns > 0 else "-" if ns < 0 else "") + _ms(abs(ns))


def _signed(pct: float | None) -> str:
    return "n/a" if pct is None else f"{pct:+.1f} %"


def _notes(b: Side, n: Side, attributed: bool, alpha: float) -> list[str]:
    notes = [METHOD.format(alpha=alpha) + "."]
    if attributed:
        notes.append(f"Kernels placed in NVTX ranges by the {b.attribution} attribution (docs/nvtx.md); a kernel's "
                     "Range is the range family holding most of its time; variants pair by category and range.")
    else:
        notes.append("No NVTX attribution on both sides: variants pair by category alone.")
    skipped = [p.meta["attribution_skipped_kernels"] for p in (*b.ranks, *n.ranks)
               if p.meta.get("attribution_skipped_kernels")]
    if skipped:
        notes.append(f"NVTX attribution skipped (--attribution auto) on profiles of more than 300,000 kernels (here "
                     f"{max(skipped):,}): --attribution process adds per-range kernel time and range context, at "
                     "about 1.3 s of CPU per million kernels.")
    return notes


def step_of(profiles: list[ProfileSummary]) -> tuple[str | None, Stat | None]:
    """One side's step-like range family (step, iter, batch) with the most time, and its instances' durations."""
    side = merge_side(profiles, "demangled")
    families = _families(side, range_families(side.ranges))
    best = max((f for f in families if _STEP.search(f)), key=lambda f: (families[f].wall.total_ns, f), default=None)
    return best, (families[best].wall if best else None)
