"""Kernel categories: the ordered name rules of kernel_categories.toml, merged with the user's.

Pure Python, no database: `load_rules()` builds a `RuleSet`, `RuleSet.classify(name)` gives a `Match`.
Reports classify each distinct kernel name once and join the result to the kernels in DuckDB.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ...core.errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

GROUPS = ("matmul", "non-matmul")
MATMUL = "matmul"
OTHER = "other"    # where names that no rule matches go
MEMORY = "memory"  # where memcpy and memset operations go
REQUIRED_CATEGORIES = (OTHER, MEMORY)

_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_. -]*[A-Za-z0-9_.-])?$")  # inner spaces: the `cuda graph` category
_FILE_KEYS = {"category", "rule", "disable", "replace"}
_CATEGORY_KEYS = {"name", "group", "description"}
_RULE_KEYS = {"name", "category", "pattern", "tags", "description"}


@dataclass(frozen=True)
class Category:
    name: str
    group: str
    description: str = ""


@dataclass(frozen=True)
class Rule:
    name: str
    category: str
    pattern: str
    tags: tuple[str, ...] = ()
    description: str = ""
    source: str = "built-in"  # the file the rule came from
    regex: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        try:
            object.__setattr__(self, "regex", re.compile(self.pattern))
        except re.error as e:
            raise UsageError(f"{self.source}: rule {self.name!r}: pattern is not a valid regular expression ({e})")


@dataclass(frozen=True)
class Match:
    """How one kernel name was classified. `rule` is None when no rule matched (category `other`)."""

    category: str
    rule: str | None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class RuleSet:
    """Categories in report order and rules in match order."""

    categories: tuple[Category, ...]
    rules: tuple[Rule, ...]
    sources: tuple[str, ...] = ("built-in",)

    def fingerprint(self) -> str:
        """A digest of the categories, patterns and order (their repr names each one's pattern and file): what a
        result remembered in the cache folder was classified by."""
        import hashlib

        return hashlib.sha256(repr((self.categories, self.rules)).encode()).hexdigest()

    def classify(self, name: str | None) -> Match:
        """The first rule whose pattern is found in `name`; `other` when none is."""
        if name:
            for rule in self.rules:
                if rule.regex.search(name):
                    return Match(rule.category, rule.name, rule.tags)
        return Match(OTHER, None)

    def classify_all(self, names: Iterable[str | None]) -> dict[str | None, Match]:
        """Each distinct name classified once."""
        return {name: self.classify(name) for name in set(names)}

    def group_of(self, category: str) -> str:
        return self.category(category).group

    def category(self, name: str) -> Category:
        for c in self.categories:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def category_names(self) -> list[str]:
        return [c.name for c in self.categories]


def builtin_rules_path() -> Path:
    """The rules file shipped with the package."""
    return Path(str(resources.files("nsys_analytics.capabilities.categories") / "kernel_categories.toml"))


def load_rules(user_files: str | Path | Sequence[str | Path] | None = None) -> RuleSet:
    """The built-in rules merged with the user's files, later files taking precedence.

    Merge semantics, per user file: its [[rule]]s are tried before all earlier rules (in file order);
    a rule named like an earlier one replaces it; `disable = [names]` drops earlier rules;
    `replace = true` drops all earlier rules first; a [[category]] with a new name is added before
    `other`, one with an existing name changes that category's group and description.
    """
    if isinstance(user_files, (str, Path)):
        user_files = [user_files]
    builtin = builtin_rules_path()
    ruleset = _ruleset_from(_read_toml(builtin), "built-in", None)
    for path in user_files or ():
        ruleset = _ruleset_from(_read_toml(Path(path)), str(path), ruleset)
    return ruleset


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such rules file") from None
    except OSError as e:
        raise UsageError(f"{path}: cannot be read ({e.strerror})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{path}: not valid TOML: {e}") from None


def _ruleset_from(data: dict[str, Any], source: str, base: RuleSet | None) -> RuleSet:
    """Apply one parsed rules file on top of `base` (None for the built-in file)."""
    _check_keys(data, _FILE_KEYS, source, "the file")
    categories = _merge_categories(base.categories if base else (), _categories(data, source))
    rules = list(base.rules) if base else []
    if not isinstance(data.get("replace", False), bool):
        raise UsageError(f"{source}: replace must be true or false")
    if data.get("replace", False):
        rules = []
    dropped = set(_string_list(data.get("disable", []), source, "disable"))
    unknown = dropped - {r.name for r in rules}
    if unknown:
        raise UsageError(f"{source}: disable names rules that do not exist: {', '.join(sorted(unknown))}")
    new = _rules(data, source)
    new_names = {r.name for r in new}
    rules = new + [r for r in rules if r.name not in dropped and r.name not in new_names]
    ruleset = RuleSet(tuple(categories), tuple(rules), (base.sources if base else ()) + (source,))
    _validate(ruleset, source)
    return ruleset


def _categories(data: dict[str, Any], source: str) -> list[Category]:
    out = []
    for i, item in enumerate(_table_list(data, "category", source)):
        where = f"[[category]] #{i + 1}"
        _check_keys(item, _CATEGORY_KEYS, source, where)
        name = _required_name(item, source, where)
        group = item.get("group", "non-matmul")
        if group not in GROUPS:
            raise UsageError(f"{source}: category {name!r}: group must be one of {', '.join(GROUPS)}, not {group!r}")
        out.append(Category(name, group, str(item.get("description", ""))))
    return out


def _merge_categories(base: Sequence[Category], new: Sequence[Category]) -> list[Category]:
    """Changed categories keep their place; added ones go before `other`."""
    merged = list(base)
    for c in new:
        names = [m.name for m in merged]
        if c.name in names:
            old = merged[names.index(c.name)]
            merged[names.index(c.name)] = Category(c.name, c.group, c.description or old.description)
        elif OTHER in names:
            merged.insert(names.index(OTHER), c)
        else:
            merged.append(c)
    return merged


def _rules(data: dict[str, Any], source: str) -> list[Rule]:
    out: list[Rule] = []
    for i, item in enumerate(_table_list(data, "rule", source)):
        where = f"[[rule]] #{i + 1}"
        _check_keys(item, _RULE_KEYS, source, where)
        name = _required_name(item, source, where)
        if any(r.name == name for r in out):
            raise UsageError(f"{source}: two rules are named {name!r}")
        for key in ("category", "pattern"):
            if not isinstance(item.get(key), str) or not item[key]:
                raise UsageError(f"{source}: rule {name!r}: needs {key} = \"...\"")
        tags = tuple(_string_list(item.get("tags", []), source, f"rule {name!r}: tags"))
        out.append(Rule(name, item["category"], item["pattern"], tags, str(item.get("description", "")), source))
    return out


def _validate(ruleset: RuleSet, source: str) -> None:
    names = set(ruleset.category_names)
    for required in REQUIRED_CATEGORIES:
        if required not in names:
            raise UsageError(f"{source}: the category {required!r} must exist")
    for rule in ruleset.rules:
        if rule.category not in names:
            raise UsageError(
                f"{rule.source}: rule {rule.name!r}: unknown category {rule.category!r}; "
                f"add a [[category]] with name = \"{rule.category}\" or use one of {', '.join(sorted(names))}"
            )


def _table_list(data: dict[str, Any], key: str, source: str) -> list[dict[str, Any]]:
    items = data.get(key, [])
    if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
        raise UsageError(f"{source}: write each {key} as a [[{key}]] table")
    return items


def _required_name(item: dict[str, Any], source: str, where: str) -> str:
    name = item.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise UsageError(f"{source}: {where}: needs name = \"...\" (letters, digits, _ . - and inner spaces)")
    return name


def _string_list(value: Any, source: str, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{source}: {what} must be a list of strings")
    return value


def _check_keys(item: dict[str, Any], allowed: set[str], source: str, where: str) -> None:
    extra = sorted(set(item) - allowed)
    if extra:
        raise UsageError(f"{source}: {where}: unknown key {extra[0]!r} (allowed: {', '.join(sorted(allowed))})")
