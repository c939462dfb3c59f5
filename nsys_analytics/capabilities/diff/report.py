"""`build_diff()`: two sides of `ProfileSummary` (one per rank) -> a `DiffReport`: a one-sentence verdict and the
per-kernel, per-category, per-range (and per-rank) tables. No I/O: `diff` feeds it from profiles, `runs diff` from
the catalog, so both give the same tables."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ...core.errors import NsysAnalyticsError
from ...core.result import Result
from . import ALPHA
from .matching import STEP_WORD, pair_renamed, pair_variants, range_families, variant_key
from .sides import mismatch
from .stats import RankTest, benjamini_hochberg, mann_whitney
from .summary import ProfileSummary, RangeStat, Stat
from .verdict import MOVED_FROM, MOVED_TO, compute_only, headline, run_kernel_ns, run_step_ns, step_family, verdict

METHOD = ("noise test: two-sided Mann-Whitney U on per-instance durations (exact when both sides have at most "
          "20 instances and no ties, else normal approximation with tie and continuity correction; more than "
          "2,000 distinct durations are compared in 0.5 % bins); a kernel or range is beyond noise when its "
          "Benjamini-Hochberg adjusted p (q, over the rows of its table whose test can reach {alpha:g}) is below "
          "{alpha:g}. The headline is judged run by run: Welch's t on the runs' means per step with at least two "
          "runs per side, else a minimum effect (docs/diff.md, The noise model)")


@dataclass
class Side:
    """One side of the comparison, ranks merged."""

    labels: list[str]
    kernels: dict[str, tuple[str, Stat]]  # name -> (category, stat)
    ranges: dict[str, RangeStat]  # range name -> its instances
    range_kernels: dict[tuple[str, str], int]  # (range name, kernel name) -> innermost kernel ns
    attribution: str | None
    ranks: list[ProfileSummary]  # every profile of every run of this side
    runs: list[list[ProfileSummary]] = field(default_factory=list)  # the side's runs, each one or more ranks
    per: float = 1.0  # totals are divided by this: steady-state steps over the runs, else the number of runs
    unit: str = "per run"  # 'per step' (steady state) or 'per run' (whole capture)

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
    runs: Result | None = None  # several runs on a side: each run's values per step
    notes: list[str] = field(default_factory=list)
    base_labels: list[str] = field(default_factory=list)
    new_labels: list[str] = field(default_factory=list)

    def tables(self) -> dict[str, Result]:
        out = {"kernels": self.kernels, "categories": self.categories, "ranges": self.ranges}
        if self.range_categories is not None:
            out["range_categories"] = self.range_categories
        if self.ranks is not None:
            out["ranks"] = self.ranks
        if self.runs is not None:
            out["runs"] = self.runs
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "headline": self.headline, "base": self.base_labels, "new": self.new_labels,
                "notes": self.notes, **{k: r.to_records() for k, r in self.tables().items()}}


def merge_side(profiles: list[ProfileSummary], name_kind: str, runs: list[list[ProfileSummary]] | None = None
               ) -> Side:
    """The ranks (and runs) of one side as one: kernels and ranges of the same name merged, kernel time per range
    summed; `runs` (default: `profiles` as the ranks of one run) sets the per-step divisor."""
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
    runs = runs or [profiles]
    steps = [max(p.steps for p in run) for run in runs]
    steady = all(p.window == "steady" for p in profiles) and all(steps)
    return Side(
        [p.label for p in profiles],
        {n: (categories[n], Stat.merge(s)) for n, s in kernels.items()},
        {n: _merge_ranges(rs) for n, rs in ranges.items()},
        dict(range_kernels), modes.pop() if len(modes) == 1 else None, profiles, runs,
        float(sum(steps)) if steady else float(len(runs)), "per step" if steady else "per run",
    )


def _merge_ranges(rs: list[RangeStat]) -> RangeStat:
    kernel = Stat.merge([r.kernel for r in rs]) if all(r.kernel is not None for r in rs) else None
    return RangeStat(rs[0].name, rs[0].style, Stat.merge([r.wall for r in rs]), kernel)


def build_diff(base: list[ProfileSummary], new: list[ProfileSummary], name_kind: str = "demangled",
               alpha: float = ALPHA, min_effect: dict[str, float] | None = None, strict: bool = False) -> DiffReport:
    """Compare BASE and NEW (one run each, of one or more ranks)."""
    return build_diff_runs([base], [new], name_kind, alpha, min_effect, strict)


def build_diff_runs(base_runs: list[list[ProfileSummary]], new_runs: list[list[ProfileSummary]],
                    name_kind: str = "demangled", alpha: float = ALPHA,
                    min_effect: dict[str, float] | None = None, strict: bool = False) -> DiffReport:
    """Compare the runs of BASE with the runs of NEW (each run one or more ranks): the tables of every run of a
    side merged, per step of the steady state; the headline judged run by run (diff/noise.py). Sides whose runs
    have different rank counts get a warning first in the verdict, or with `strict` are refused."""
    problem = mismatch(base_runs, new_runs)
    if problem and strict:
        raise NsysAnalyticsError(f"diff: {problem}")
    base_runs, new_runs = _windowed(base_runs, new_runs)
    b = merge_side([p for run in base_runs for p in run], name_kind, base_runs)
    n = merge_side([p for run in new_runs for p in run], name_kind, new_runs)
    windows = None
    if b.unit != n.unit:  # one side has no steady state: compare per run
        windows = (f"Windows differ: base {'the steady state' if b.unit == 'per step' else 'the whole capture'}, new "
                   f"{'the steady state' if n.unit == 'per step' else 'the whole capture'} (no step ranges on one "
                   "side); compared per run.")
        b.per, b.unit, n.per, n.unit = float(len(base_runs)), "per run", float(len(new_runs)), "per run"
    fam_b, fam_n = _side_families(b, n)
    attributed = b.attribution is not None and n.attribution is not None and b.attribution == n.attribution
    contexts = (_contexts(b, fam_b), _contexts(n, fam_n)) if attributed else ({}, {})
    splits = (_splits(b, fam_b), _splits(n, fam_n)) if attributed else ({}, {})
    kernels = _kernel_table(b, n, contexts, alpha, splits)
    ranges_b, ranges_n = _families(b, fam_b), _families(n, fam_n)
    report = DiffReport(
        "", {}, kernels, _category_table(b, n), _range_table(ranges_b, ranges_n, alpha, b, n),
        _range_category_table(b, n, fam_b, fam_n) if attributed else None,
        _rank_table(b, n, ranges_b, ranges_n, compute_only(b, n)) if _several_ranks(base_runs, new_runs) else None,
        base_labels=b.labels, new_labels=n.labels,
    )
    report.headline = headline(b, n, ranges_b, ranges_n, alpha, min_effect or {})
    if len(base_runs) > 1 or len(new_runs) > 1:
        report.runs = _run_table(b, n, report.headline["range"], report.headline["kernel_scope"] == "compute")
    only = (set(ranges_b) - set(ranges_n), set(ranges_n) - set(ranges_b))
    report.verdict = verdict(report, only, _pace_report(base_runs, new_runs, report.headline, name_kind, alpha,
                                                        min_effect))
    report.notes = _notes(b, n, attributed, alpha) + ([windows] if windows else [])
    for warning in filter(None, (problem, _other_gpus(base_runs, new_runs))):
        report.verdict = f"Warning: {warning}. {report.verdict}"
        report.notes.insert(0, f"Warning: {warning}.")
    return report


def _other_gpus(base_runs: list[list[ProfileSummary]], new_runs: list[list[ProfileSummary]]) -> str | None:
    """Where the sides ran on different GPU models (TARGET_INFO_GPU): the words that say a change may be theirs."""
    def models(runs):
        return sorted({g.strip() for run in runs for p in run for g in (p.meta.get("gpus") or "").split(",")
                       if g.strip()})
    base, new = models(base_runs), models(new_runs)
    if not base or not new or base == new:
        return None
    return (f"the sides ran on different GPUs (base {', '.join(base)}; new {', '.join(new)}): part of any change "
            "may be the hardware's")


def _windowed(base_runs: list[list[ProfileSummary]], new_runs: list[list[ProfileSummary]]) -> tuple[list, list]:
    """The steady-state summaries the catalog's carry (`steady`) where every profile on both sides has one, else
    the summaries as they are (the same window on both sides either way)."""
    profiles = [p for run in (*base_runs, *new_runs) for p in run]
    if profiles and all(p.steady is not None for p in profiles):
        return [[p.steady for p in run] for run in base_runs], [[p.steady for p in run] for run in new_runs]
    return base_runs, new_runs


def _pace_report(base_runs: list[list[ProfileSummary]], new_runs: list[list[ProfileSummary]], h: dict,
                 name_kind: str, alpha: float, min_effect: dict[str, float] | None) -> DiffReport | None:
    """The diff of the rank the others wait for alone (one run a side), whose change the verdict leads with."""
    rank = h.get("paced_by")
    if rank is None:
        return None
    pb, pn = ([p for p in runs[0] if p.rank == rank] for runs in (base_runs, new_runs))
    return build_diff_runs([pb], [pn], name_kind, alpha, min_effect) if pb and pn else None


def _several_ranks(base_runs: list[list], new_runs: list[list]) -> bool:
    """The ranks table pairs the ranks of one run per side."""
    return len(base_runs) == len(new_runs) == 1 and max(len(base_runs[0]), len(new_runs[0])) > 1


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


def _splits(side: Side, families: dict[str, str]) -> dict[str, dict[str, tuple[int, int]]]:
    """{kernel name: {range family: (kernel ns, kernels)}}: where each kernel ran (innermost attribution)."""
    out: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for p in side.ranks:
        for rk in p.range_kernels:
            kernel = rk.kernel if rk.kernel in side.kernels else p.short_names.get(rk.kernel, rk.kernel)
            cell = out[kernel][families.get(rk.range, rk.range)]
            cell[0] += rk.kernel_ns
            cell[1] += rk.kernels
    return {k: {f: (v[0], v[1]) for f, v in per.items()} for k, per in out.items()}


def _split_entry(entry: tuple, splits: tuple[dict, dict]) -> list[tuple]:
    """One kernel entry as one entry per NVTX range family it ran in on either side (its time split by range,
    never charged whole to one), the part no range holds under range None. Without an attribution: as it is."""
    status, name, base, new, context = entry
    old_name, new_name = name.split(" -> ", 1) if status == "variant" else (name, name)
    parts_b = splits[0].get(old_name, {}) if base else {}
    parts_n = splits[1].get(new_name, {}) if new else {}
    if not parts_b and not parts_n:
        return [entry]
    out = []
    for fam in sorted(parts_b.keys() | parts_n.keys()):
        out.append((status, name, _part(base, parts_b.get(fam)), _part(new, parts_n.get(fam)), fam))
    rest_b = _rest(base, parts_b)
    rest_n = _rest(new, parts_n)
    if rest_b or rest_n:
        out.append((status, name, rest_b, rest_n, None))
    return out


def _part(whole: tuple[str, Stat] | None, part: tuple[int, int] | None) -> tuple[str, Stat] | None:
    """(category, the stat of the kernel's runs in one range): total and count exact, the mean from them; median
    and distribution those of the whole kernel (the rank test is the kernel's)."""
    if whole is None or part is None:
        return None
    category, s = whole
    if part == (s.total_ns, s.instances):
        return whole
    avg = part[0] / part[1] if part[1] else 0.0
    return category, Stat(part[1], part[0], avg, float("nan"), s.min_ns, s.max_ns, s.stddev_ns, s.dist)


def _rest(whole: tuple[str, Stat] | None, parts: dict[str, tuple[int, int]]) -> tuple[str, Stat] | None:
    if whole is None:
        return None
    ns = whole[1].total_ns - sum(v[0] for v in parts.values())
    count = whole[1].instances - sum(v[1] for v in parts.values())
    return _part(whole, (ns, count)) if count > 0 else None


def _kernel_table(b: Side, n: Side, contexts: tuple[dict, dict], alpha: float,
                  splits: tuple[dict, dict] = ({}, {})) -> Result:
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
    per = (b.per, n.per)
    parts = []  # (part, test, q, moved)
    for entry, test, q in zip(entries, tests, q_values):
        split = _split_entry(entry, splits)
        moves = _moves(split, per) if _as_many(entry, per) else {}
        parts += [(part, test, q, moves.get(part[4])) for part in split]
    variants, parts = _range_variants(parts)
    rows = [_kernel_row(*part, None, None, alpha, per) for part in variants]
    rows += [_kernel_row(*part, test, q, alpha, per, moved) for part, test, q, moved in parts]
    rows.sort(key=lambda r: (-abs(r[5]), r[-1]))
    return Result(list(KERNEL_COLUMNS), rows, headers=_headers(KERNEL_COLUMNS, b.unit))


def _range_variants(parts: list[tuple]) -> tuple[list[tuple], list[tuple]]:
    """Pair, in one NVTX range, a kernel part that is there on the base side only with one there on the new side
    only, of the same category and the same name but for template arguments and numbers (`variant_key`): a new
    tile for one matmul whose old kernel still runs elsewhere (batch 32 -> 40: `final_matmul`'s
    nn_n_tilesize64x64x8 -> nn_n_tilesize128x64x8, the old tile still used for the attention scores). Whole
    kernels that left and came pair before (pair_variants); parts that moved between ranges are not loose.
    `parts`: (part, test, q, moved). Returns (the variant parts, with no rank test: a part's durations are its whole
    kernel's; the other parts as given)."""
    loose: dict[tuple, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for i, ((status, name, base, new, rng), _test, _q, moved) in enumerate(parts):
        if status != "variant" and moved is None and rng is not None and (base is None) != (new is None):
            side = base or new
            loose[(rng, side[0], variant_key(name))][0 if new is None else 1].append(i)

    def heaviest_first(i: int) -> int:
        base, new = parts[i][0][2:4]
        return -(base or new)[1].total_ns

    pairs, taken = [], set()
    for (rng, _category, _key), (gone, came) in sorted(loose.items(), key=lambda kv: str(kv[0])):
        for g, c in zip(sorted(gone, key=heaviest_first), sorted(came, key=heaviest_first)):
            old, new = parts[g][0], parts[c][0]
            pairs.append(("variant", f"{old[1]} -> {new[1]}", old[2], new[3], rng))
            taken |= {g, c}
    return pairs, [p for i, p in enumerate(parts) if i not in taken]


def _headers(columns: dict[str, str], unit: str) -> list[str]:
    """Column headers naming the unit of the totals and counts: per step (steady state) or per run."""
    short = "/step" if unit == "per step" else "/run"
    return [h.replace("Total (ns)", f"(ns{short})").replace(" Inst", f" Inst{short}")
            .replace("Change (ns)", f"Change (ns{short})") for h in columns.values()]


def _as_many(entry: tuple, per: tuple[float, float]) -> bool:
    """Whether a kernel on both sides ran as many times per step (or run) on each: a range that has it on one
    side only then lost or gained it to another range ("moved"), not the run."""
    status, _name, base, new, _context = entry
    return (status == "changed" and base is not None and new is not None
            and abs(base[1].instances / per[0] - new[1].instances / per[1]) < 1e-9)


def _moves(parts: list[tuple], per: tuple[float, float]) -> dict[str | None, str]:
    """{range: status} for the ranges that hold a kernel on one side only, where it ran as many times per step on
    both sides: where it went ("moved to :backward") or where it came from ("moved from :loss"), the ranges
    that gained (lost) instances per step, most first; None is the part in no range."""
    def count(stat: tuple[str, Stat] | None, divisor: float) -> float:
        return stat[1].instances / divisor if stat else 0.0

    gained = {part[4]: count(part[3], per[1]) - count(part[2], per[0]) for part in parts}
    to = sorted((r for r, d in gained.items() if d > 1e-9), key=lambda r: -gained[r])
    came_from = sorted((r for r, d in gained.items() if d < -1e-9), key=lambda r: gained[r])
    moves = {}
    for _status, _name, base, new, rng in parts:
        if (base is None) != (new is None):
            moves[rng] = MOVED_FROM + _range_list(came_from) if base is None else MOVED_TO + _range_list(to)
    return moves


def _range_list(ranges: list[str | None]) -> str:
    return ", ".join(r if r is not None else "no range" for r in ranges) or "another range"


def _kernel_row(status, name, base, new, context, test, q, alpha, per, moved: str | None = None) -> tuple:
    """One kernel's row in one range; `moved`: its status where it ran as often but in other ranges (`_moves`)."""
    category = (new or base)[0]
    bs, ns = base[1] if base else None, new[1] if new else None
    if (base is None or new is None) and status == "changed":  # in this range, on one side only
        status = moved or ("appeared" if base is None else "disappeared")
    if status == "changed" and bs.instances / per[0] == ns.instances / per[1] and (q is None or q >= alpha):
        status = "same"  # as many instances per step, durations within noise
    return (status, category, context, *_compare(bs, ns, per), *_test_cells(test, q, alpha), name)


def _compare(bs: Stat | None, ns: Stat | None, per: tuple[float, float] = (1.0, 1.0)) -> tuple:
    bt, nt = _per(bs.total_ns if bs else 0, per[0]), _per(ns.total_ns if ns else 0, per[1])
    return (bt, nt, nt - bt, _pct(nt, bt), _per(bs.instances if bs else 0, per[0]),
            _per(ns.instances if ns else 0, per[1]), bs.avg_ns if bs else None, ns.avg_ns if ns else None,
            _med(bs), _med(ns))


def _med(s: Stat | None) -> float | None:
    return None if s is None or s.med_ns != s.med_ns else s.med_ns  # NaN: one range's part of a kernel


def _per(value: float, per: float) -> float:
    """A total per step (per run): exact integers stay integers where the divisor is 1."""
    return value if per == 1 else value / per


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


def _by_category(side: Side) -> dict[str, tuple[float, float]]:
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for category, stat in side.kernels.values():
        out[category][0] += stat.total_ns
        out[category][1] += stat.instances
    return {k: (_per(v[0], side.per), _per(v[1], side.per)) for k, v in out.items()}


def _category_table(b: Side, n: Side) -> Result:
    cb, cn = _by_category(b), _by_category(n)
    tb, tn = _per(b.kernel_ns, b.per), _per(n.kernel_ns, n.per)
    rows = []
    for cat in cb.keys() | cn.keys():
        (bt, bi), (nt, ni) = cb.get(cat, (0, 0)), cn.get(cat, (0, 0))
        rows.append((cat, bt, nt, nt - bt, _pct(nt, bt), _share(bt, tb), _share(nt, tn), bi, ni))
    rows.sort(key=lambda r: (-abs(r[3]), r[0]))
    rows.append(("total", tb, tn, tn - tb, _pct(tn, tb), _share(tb, tb), _share(tn, tn),
                 sum(r[7] for r in rows), sum(r[8] for r in rows)))
    return Result(list(CATEGORY_COLUMNS), rows, headers=_headers(CATEGORY_COLUMNS, b.unit),
                  notes=[f"Kernels only (no memcpy/memset), {b.unit}; shares are of each side's kernel time."])


def _share(part: int, whole: int) -> float | None:
    return 100.0 * part / whole if whole else None


# -- NVTX ranges -----------------------------------------------------------------------------------------------

RANGE_COLUMNS = {
    "range": "Range", "base_instances": "Base Inst", "new_instances": "New Inst",
    "base_total_ns": "Base Total (ns)", "new_total_ns": "New Total (ns)", "change_ns": "Change (ns)",
    "change_pct": "Change (%)", "base_avg_ns": "Base Avg (ns)", "new_avg_ns": "New Avg (ns)",
    "base_med_ns": "Base Med (ns)", "new_med_ns": "New Med (ns)",
    "base_kernel_avg_ns": "Base Kernel Avg (ns)", "new_kernel_avg_ns": "New Kernel Avg (ns)",
    "p_value": "p", "q_value": "q (BH)", "test": "Test", "noise": "Noise",
}


def _families(side: Side, families: dict[str, str]) -> dict[str, RangeStat]:
    groups: dict[str, list[RangeStat]] = defaultdict(list)
    for name, r in side.ranges.items():
        groups[families.get(name, name)].append(r)
    return {f: _merge_ranges(rs) for f, rs in groups.items()}


def _range_table(rb: dict[str, RangeStat], rn: dict[str, RangeStat], alpha: float,
                 b: Side | None = None, n: Side | None = None) -> Result:
    per = (b.per if b else 1.0, n.per if n else 1.0)
    families = sorted(rb.keys() | rn.keys())
    tests = [mann_whitney(rb[f].wall.dist, rn[f].wall.dist) if f in rb and f in rn else None for f in families]
    rows = []
    for fam, test, q in zip(families, tests, _q_values(tests, alpha)):
        bs, ns = rb.get(fam), rn.get(fam)
        bw, nw = (bs.wall if bs else None), (ns.wall if ns else None)
        bt, nt = _per(bw.total_ns if bw else 0, per[0]), _per(nw.total_ns if nw else 0, per[1])
        rows.append((fam, _per(bw.instances if bw else 0, per[0]), _per(nw.instances if nw else 0, per[1]),
                     bt, nt, nt - bt, _pct(nt, bt), bw.avg_ns if bw else None, nw.avg_ns if nw else None,
                     bw.med_ns if bw else None, nw.med_ns if nw else None,
                     bs.kernel.avg_ns if bs and bs.kernel else None, ns.kernel.avg_ns if ns and ns.kernel else None,
                     *_test_cells(test, q, alpha)))
    rows.sort(key=lambda r: (-abs(r[5] or 0), r[0]))
    unit = b.unit if b else "per run"
    return Result(list(RANGE_COLUMNS), rows, headers=_headers(RANGE_COLUMNS, unit),
                  notes=[(f"Per range name (numbered names such as step_0, step_1 as one family step_*): instances "
                          f"and summed duration {unit}, then each instance's duration (Avg, Med; the rank test "
                          "compares them) and the GPU time of the kernels it holds (Kernel Avg).")])


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
    rows = []
    for r, c in cb.keys() | cn.keys():
        bt, nt = _per(cb.get((r, c), 0), b.per), _per(cn.get((r, c), 0), n.per)
        rows.append((r, c, bt, nt, nt - bt, _pct(nt, bt)))
    rows.sort(key=lambda r: (-abs(r[4]), r[0], r[1]))
    return Result(list(RANGE_CATEGORY_COLUMNS), rows, headers=_headers(RANGE_CATEGORY_COLUMNS, b.unit),
                  notes=[(f"Kernel GPU time {b.unit} by innermost NVTX range and category: these add up to the "
                          "kernel time the attribution places in ranges.")])


# -- ranks -----------------------------------------------------------------------------------------------------

RANK_COLUMNS = {
    "rank": "Rank", "base": "Base", "new": "New", "base_kernel_ns": "Base Kernel (ns)",
    "new_kernel_ns": "New Kernel (ns)", "change_pct": "Change (%)", "base_step_avg_ns": "Base Step Avg (ns)",
    "new_step_avg_ns": "New Step Avg (ns)", "step_change_pct": "Step Change (%)",
}


def _rank_table(b: Side, n: Side, rb: dict, rn: dict, compute: bool) -> Result:
    step = step_family(rb, rn)
    ranks_b, ranks_n = {p.rank: p for p in b.ranks}, {p.rank: p for p in n.ranks}
    rows = []
    for rank in sorted(ranks_b.keys() | ranks_n.keys()):
        pb, pn = ranks_b.get(rank), ranks_n.get(rank)
        kb = run_kernel_ns([pb], b.unit, compute) if pb else None
        kn = run_kernel_ns([pn], n.unit, compute) if pn else None
        sb, sn = _rank_step(pb, step), _rank_step(pn, step)
        rows.append((rank, pb.label if pb else None, pn.label if pn else None, kb, kn,
                     _pct(kn, kb) if kb and kn is not None else None, sb, sn,
                     _pct(sn, sb) if sb and sn is not None else None))
    headers = [h.replace("Kernel (ns)", "Kernel (ns/step)" if b.unit == "per step" else "Kernel (ns)")
               for h in RANK_COLUMNS.values()]
    notes = [f"Ranks paired by the number in the file name (rank3), else by position; step: {step}."
             if step else "Ranks paired by the number in the file name (rank3), else by position."]
    if compute:
        notes.append("Kernel: compute kernels, NCCL's left out (a collective's kernels run until the last rank "
                     "arrives, so they hold the waits).")
    return Result(list(RANK_COLUMNS), rows, headers=headers, notes=notes)


RUN_COLUMNS = {
    "side": "Side", "run": "Run", "steps": "Steps", "step_avg_ns": "Step Avg (ns)", "kernel_ns": "Kernel (ns/step)",
}


def _run_table(b: Side, n: Side, step: str | None, compute_only: bool) -> Result:
    """Each run's mean step time and kernel time per step: the samples Welch's t compares."""
    rows = []
    for side, s in (("base", b), ("new", n)):
        for run in s.runs:
            rows.append((side, ", ".join(p.label for p in run), max(p.steps for p in run) or None,
                         run_step_ns(run, step) if step else None, run_kernel_ns(run, s.unit, compute_only)))
    headers = [h if b.unit == "per step" else h.replace("ns/step", "ns/run") for h in RUN_COLUMNS.values()]
    kernels = "kernel time per step without NCCL's kernels" if compute_only else "kernel time per step"
    return Result(list(RUN_COLUMNS), rows, headers=headers,
                  notes=[f"One row per run: its mean step time and {kernels} (one sample each)."])


def _rank_step(p: ProfileSummary | None, step: str | None) -> float | None:
    if p is None or step is None:
        return None
    families = range_families(r.name for r in p.ranges)
    walls = [r.wall for r in p.ranges if families.get(r.name, r.name) == step or r.name == step]
    merged = Stat.merge(walls) if walls else None
    return merged.avg_ns if merged and merged.instances else None


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
    best = max((f for f in families if STEP_WORD.search(f)), key=lambda f: (families[f].wall.total_ns, f), default=None)
    return best, (families[best].wall if best else None)
