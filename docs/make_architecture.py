"""The generated parts of docs/architecture.md, written from the code itself so they cannot drift: the layers
(nsys_analytics/core/layers.py and the folders on disk), which capability imports which, and the commands (the
registry's records, nsys_analytics/core/registry.py). The prose around them is kept; each part lies between
`<!-- generated: NAME -->` and `<!-- end generated -->`.

    python docs/make_architecture.py            # rewrite the generated parts
    python docs/make_architecture.py --check    # exit 1 when docs/architecture.md is not what this writes
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

from nsys_analytics.core import layers, registry

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "nsys_analytics"
DOC = ROOT / "docs" / "architecture.md"
PART = re.compile(r"(<!-- generated: (\w+) -->\n).*?(<!-- end generated -->)", re.S)


def commands_table() -> str:
    rows = ["| command | folder | what it answers | many profiles (ranks) | doc |", "| --- | --- | --- | --- | --- |"]
    for r in registry.records():
        rows.append(f"| `{r.name}` | `{r.folder}/` ({r.module.rsplit('.', 1)[1]}.py) | {_cell(r.summary)} | "
                    f"{_ranks(r)} | {_link(r.doc)} |")
    return "\n".join(rows)


def _ranks(record: registry.Record) -> str:
    """yes, and how they combine: an exact merge (the function's name), off with some options."""
    if not record.ranks:
        return "—"
    if not record.merge:
        return "yes"
    unless = ", ".join(f"`--{o.replace('_', '-')}`" for o in record.merge_unless)
    return f"yes, exact merge `{record.merge.split(':')[1]}`" + (f" (not with {unless})" if unless else "")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("*", "\\*")


def _link(doc: str | None) -> str:
    """docs/x.md as a link from docs/architecture.md itself."""
    return f"[{doc}]({Path(doc).relative_to('docs')})" if doc else "—"


def layers_table() -> str:
    rows = ["| layer | holds | may import (and its own layer) |", "| --- | --- | --- |"]
    for i, layer in reversed(list(enumerate(layers.LAYERS))):
        below = ", ".join(layers.LAYERS[:i]) or "nothing of ours"
        rows.append(f"| {layer} | {', '.join(f'`{x}`' for x in _holds(layer))} | {below} |")
    return "\n".join(rows)


def _holds(layer: str) -> list[str]:
    """The modules and sub-packages of a layer, as they lie on disk."""
    if layer == "api":
        return sorted(f"{m}.py" for m, owner in layers.ROOT_MODULES.items() if owner == "api")
    folder = PACKAGE / layer
    out = sorted(f"{layer}/{p.name}" for p in folder.glob("*.py") if p.name != "__init__.py")
    out += sorted(f"{layer}/{p.name}/" for p in folder.iterdir() if (p / "__init__.py").exists())
    if layer == "cli":
        out += ["__main__.py", f"capabilities/*/*{layers.COMMAND_SUFFIX}.py"]
    return out


def capability_uses() -> str:
    """`a -> b, c` for each capability that imports others (from every import in its modules, `_cmd` ones aside:
    those are the CLI layer)."""
    caps = sorted(p.name for p in (PACKAGE / "capabilities").iterdir() if (p / "__init__.py").exists())
    lines = []
    for cap in caps:
        used = set()
        for path in sorted((PACKAGE / "capabilities" / cap).glob("*.py")):
            if not path.stem.endswith(layers.COMMAND_SUFFIX):
                used |= {c for c in _imported_capabilities(path) if c in caps and c != cap}
        if used:
            lines.append(f"- `{cap}` → {', '.join(f'`{c}`' for c in sorted(used))}")
    return "\n".join(lines)


def _imported_capabilities(path: Path) -> set[str]:
    here = ["nsys_analytics", "capabilities", path.parent.name]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(here[: len(here) - node.level + 1] + [node.module or ""]) if node.level else node.module
            names = [f"{base}.{a.name}" for a in node.names]
        for name in names:
            parts = name.strip(".").split(".")
            if parts[:2] == ["nsys_analytics", "capabilities"] and len(parts) > 2:
                found.add(parts[2])
    return found


PARTS = {"layers": layers_table, "capability_uses": capability_uses, "commands": commands_table}


def render(text: str) -> str:
    """`text` with every generated part written afresh."""
    return PART.sub(lambda m: f"{m.group(1)}{PARTS[m.group(2)]()}\n{m.group(3)}", text)


def main(argv: list[str]) -> int:
    text = DOC.read_text()
    fresh = render(text)
    if "--check" in argv:
        if fresh != text:
            print(f"{DOC.relative_to(ROOT)} is out of date: run python docs/make_architecture.py", file=sys.stderr)
            return 1
        return 0
    if fresh != text:
        DOC.write_text(fresh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
