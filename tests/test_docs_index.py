"""The docs index cannot drift: docs/architecture.md's tables are what docs/make_architecture.py writes from the
registry and the folders, and the README's layout names only folders and modules that exist, every capability
folder among them."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from .conftest import ROOT

PACKAGE = ROOT / "nsys_analytics"
CAPABILITIES = sorted(p.name for p in (PACKAGE / "capabilities").iterdir() if (p / "__init__.py").exists())


def _generator():
    spec = importlib.util.spec_from_file_location("make_architecture", ROOT / "docs" / "make_architecture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAKE = _generator()


def test_architecture_page_is_what_the_generator_writes():
    text = MAKE.DOC.read_text()
    assert MAKE.render(text) == text, "docs/architecture.md is out of date: run python docs/make_architecture.py"
    assert MAKE.main(["--check"]) == 0


def test_architecture_page_names_every_command_and_capability():
    text = MAKE.DOC.read_text()
    commands = re.findall(r"^\| `([\w-]+)` \| `capabilities/|^\| `([\w-]+)` \| `cli/", text, re.M)
    assert sorted(a or b for a, b in commands) == sorted(r.name for r in MAKE.registry.records())
    for cap in CAPABILITIES:
        assert f"`capabilities/{cap}/`" in text


@pytest.mark.parametrize("edit", ["drop a row", "a stale summary", "a part emptied"])
def test_a_hand_edit_of_a_generated_part_is_caught(edit):
    text = MAKE.DOC.read_text()
    if edit == "drop a row":
        stale = "\n".join(line for line in text.splitlines() if not line.startswith("| `ranks` |")) + "\n"
    elif edit == "a stale summary":
        stale = text.replace("Top kernels by total GPU time", "Top kernels", 1)
    else:
        stale = re.sub(r"(<!-- generated: layers -->\n).*?(<!-- end generated -->)", r"\1\2", text, flags=re.S)
    assert stale != text and MAKE.render(stale) == text


# -- the README's layout -------------------------------------------------------------------------------------
def layout_block(readme: str) -> str:
    section = readme.split("\n## Layout\n", 1)[1]
    return section.split("```\n", 2)[1]


PATHLIKE = re.compile(r"(?<![\w<>*.:/-])([\w.-]+(?:/[\w.-]+)*/?)")
SUFFIXES = (".py", ".md", ".json", ".toml", ".sql")


def layout_problems(block: str, root: Path = ROOT) -> list[str]:
    """Names in the layout that are not in the tree, and capability folders it leaves out. A name is looked up
    beside the folder its line describes (and that folder's parents), in the package, and at the root; in the
    capabilities' lines, in any capability folder."""
    package = root / "nsys_analytics"
    problems, seen, head = [], set(), root
    for line in block.splitlines():
        if line.strip() and not line.startswith(" " * 6):  # a line of its own (not a continuation)
            first = line.split()[0]
            head = (package if line.startswith("  ") else root) / first if first.endswith("/") else head
        for name in PATHLIKE.findall(line):
            if "/" not in name and not name.endswith(SUFFIXES):
                continue
            seen.add(name)
            bases = [head, *head.parents[:len(head.relative_to(root).parts)], package, root]
            if head == package / "capabilities":
                bases += [p for p in head.iterdir() if p.is_dir()]
            if not any((base / name).exists() for base in bases):
                problems.append(f"names {name}, which does not exist")
    caps = sorted(p.name for p in (package / "capabilities").iterdir() if (p / "__init__.py").exists())
    problems += [f"leaves out capabilities/{c}/" for c in caps if f"{c}/" not in seen]
    return problems


README_BLOCK = layout_block((ROOT / "README.md").read_text())


def test_readme_layout_matches_the_tree():
    assert layout_problems(README_BLOCK) == []
    assert sum(f"{c}/" in README_BLOCK for c in CAPABILITIES) == len(CAPABILITIES) > 10  # it did read them


@pytest.mark.parametrize("change, problem", [
    (("output/ ", "outputs/ "), "names outputs/, which does not exist"),
    (("registry.py", "registries.py"), "names registries.py, which does not exist"),
    (("columnar.py", "columnar2.py"), "names columnar2.py, which does not exist"),
    (("ranks/ ", ""), "leaves out capabilities/ranks/"),
])
def test_layout_checker_finds_a_stale_layout(change, problem):
    block = README_BLOCK.replace(*change, 1)
    assert block != README_BLOCK
    assert problem in layout_problems(block)
