"""Kernel categories: the name rules (rules.py, kernel_categories.toml), time per kernel name with its category
(data.py; SQL in sql/categories/) and `classify` (classify.py)."""

from .rules import GROUPS, MATMUL, MEMORY, OTHER, Category, Match, Rule, RuleSet, builtin_rules_path, load_rules

__all__ = ["GROUPS", "MATMUL", "MEMORY", "OTHER", "Category", "Match", "Rule", "RuleSet", "builtin_rules_path",
           "load_rules"]
