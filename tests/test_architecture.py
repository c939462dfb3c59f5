"""The package's shape: no import cycle between modules of nsys_analytics/ (nor between capability packages), and
no import from a lower layer into a higher one (the table in nsys_analytics/core/layers.py).

Every import counts: at module level, inside functions, and under `if TYPE_CHECKING:` (a type-only import still
ties two modules together for a reader and breaks when either moves; counting them is the stricter choice).
The implicit import of a module's parent packages is not an edge: `from ..nvtx.report import x` is an edge to
nsys_analytics.capabilities.nvtx.report only, or every module would reach the package's __init__ and so the facade.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from nsys_analytics.core import layers

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "nsys_analytics"


# -- the checker ---------------------------------------------------------------------------------------------
def modules(root: Path, package: str) -> dict[str, Path]:
    """{dotted module name: file} of every module under root/package (a package is its __init__.py)."""
    out = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of `known` that the module `name` imports, anywhere in its file."""
    is_package = path.name == "__init__.py"
    here = name.split(".") if is_package else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {_nearest(a.name, known) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                prefix = here[: len(here) - node.level + 1]
                base = ".".join(prefix + ([base] if base else []))
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.add(child if child in known else _nearest(base, known))
    return found - {None, name}


def _nearest(dotted: str, known: set[str]) -> str | None:
    """`a.b.c` -> the longest known prefix (the module itself, or its package for `import a.b.c` of a name)."""
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in known:
            return ".".join(parts[:n])
    return None


def graph(root: Path, package: str) -> dict[str, set[str]]:
    mods = modules(root, package)
    return {name: imports(name, path, set(mods)) for name, path in mods.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node, or with a self-edge (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in edges.get(v, ()):
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def layer_of(module: str, edges: dict[str, set[str]]) -> str:
    """The layer of a module: the folder it lives in (layers.LAYERS), the root module's entry in
    layers.ROOT_MODULES, or `cli` for a capability's command module (`<name>_cmd.py`)."""
    package = next(iter(edges)).split(".")[0]
    rest = module[len(package) + 1:] if module != package else "__init__"
    top = rest.split(".")[0]
    if rest.endswith(layers.COMMAND_SUFFIX):  # a capability's command: its face in the CLI
        return "cli"
    if top in layers.LAYERS:
        return top
    if top in layers.ROOT_MODULES:
        return layers.ROOT_MODULES[top]
    raise LookupError(f"{module}: a module at the package root that is not the facade; move it into the folder of "
                      f"its layer ({', '.join(layers.LAYERS)})")


def upward(edges: dict[str, set[str]]) -> list[str]:
    rank = {layer: i for i, layer in enumerate(layers.LAYERS)}
    out = []
    for src, targets in sorted(edges.items()):
        for dst in sorted(targets):
            if rank[layer_of(src, edges)] < rank[layer_of(dst, edges)]:
                out.append(f"{src} ({layer_of(src, edges)}) imports {dst} ({layer_of(dst, edges)})")
    return out


def capability_edges(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """{capability package: the other capability packages its modules import}."""
    def capability(module: str) -> str | None:
        parts = module.split(".")
        return parts[2] if layer_of(module, edges) == "capabilities" and len(parts) > 2 else None

    out: dict[str, set[str]] = {}
    for src, targets in edges.items():
        if capability(src):
            out.setdefault(capability(src), set()).update(
                c for c in map(capability, targets) if c and c != capability(src))
    return out


# -- the package --------------------------------------------------------------------------------------------
EDGES = graph(ROOT, PACKAGE)


def test_every_module_has_a_layer():
    for module in EDGES:
        layer_of(module, EDGES)  # raises for an undeclared top-level module


def test_no_import_cycle_between_modules():
    assert cycles(EDGES) == []


def test_no_import_cycle_between_capabilities():
    assert cycles(capability_edges(EDGES)) == []


def test_layers_only_look_down():
    assert upward(EDGES) == []


def test_profile_is_data_access_only():
    """The floor reaches no capability, not even lazily inside a method."""
    assert {layer_of(m, EDGES) for m in EDGES[f"{PACKAGE}.data.profile"]} <= {"core", "output", "data"}


def test_every_package_is_installed():
    """A new capability package is listed in pyproject.toml, or an installed (non-editable) copy would lack it."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {m for m, p in modules(ROOT, PACKAGE).items() if p.name == "__init__.py"}
    assert on_disk - listed == set()


def test_every_folder_of_modules_is_a_package():
    """A folder of modules without an __init__.py (a namespace package) escapes the check above, and was left out
    of an installed copy once (capabilities/catalog: `runs` missing)."""
    folders = {p.parent for p in (ROOT / PACKAGE).rglob("*.py")}
    assert sorted(str(f.relative_to(ROOT)) for f in folders if not (f / "__init__.py").exists()) == []


def test_every_record_file_is_installed():
    """The registry's records (core/registry.py) travel with their package: package-data names them."""
    from nsys_analytics.core import registry

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert registry.RECORD_FILE in data.get("*", [])
    assert {r.folder for r in registry.records()} <= {".".join(m.split(".")[1:]).replace(".", "/") for m in
                                                       tomllib.loads((ROOT / "pyproject.toml").read_text())
                                                       ["tool"]["setuptools"]["packages"]}


# -- the checker finds what it should -----------------------------------------------------------------------
def _tree(tmp_path: Path, files: dict[str, str]) -> dict[str, set[str]]:
    for rel, text in files.items():
        path = tmp_path / PACKAGE / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return graph(tmp_path, PACKAGE)


CLEAN = {
    "__init__.py": "from .api import open\n",
    "api.py": "def open():\n    from .capabilities.kernels.report import summary\n",
    "core/__init__.py": "",
    "core/errors.py": "",
    "data/__init__.py": "",
    "data/profile.py": "from ..core import errors\n",
    "capabilities/__init__.py": "",
    "capabilities/kernels/__init__.py": "",
    "capabilities/kernels/report.py": "from ...data.profile import x\nfrom ...core import errors\n",
    "capabilities/nvtx/__init__.py": "",
    "capabilities/nvtx/report.py": "import nsys_analytics.capabilities.kernels.report\n",
}


def test_checker_passes_a_clean_tree(tmp_path):
    edges = _tree(tmp_path, CLEAN)
    assert edges[f"{PACKAGE}.capabilities.nvtx.report"] == {f"{PACKAGE}.capabilities.kernels.report"}
    assert edges[f"{PACKAGE}.capabilities.kernels.report"] == {f"{PACKAGE}.data.profile", f"{PACKAGE}.core.errors"}
    assert cycles(edges) == [] and upward(edges) == [] and cycles(capability_edges(edges)) == []


@pytest.mark.parametrize("rel, text, problem", [
    # an upward import inside a method, as Profile.kernel_summary had
    ("data/profile.py", "def f():\n    from ..capabilities.kernels.report import summary\n", "upward"),
    # a type-only upward import
    ("core/errors.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..data.profile import Profile\n",
     "upward"),
    # the data layer reaching the facade through the package
    ("data/profile.py", "from .. import open\n", "upward"),
    # two modules of one capability importing each other, one of them only for types (as ncu frames/report did)
    ("capabilities/kernels/data.py",
     "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .report import R\n", "cycle"),
    # two capabilities importing each other through different modules
    ("capabilities/kernels/extra.py", "from ..nvtx import report\n", "capability cycle"),
    # a capability's library code reaching into its own command (the CLI layer)
    ("capabilities/kernels/report.py", "from .kernels_cmd import command\n", "upward"),
    # a loose module at the package root, outside the rooms of the layers
    ("helpers.py", "", "no layer"),
])
def test_checker_finds_violations(tmp_path, rel, text, problem):
    files = dict(CLEAN)
    files[rel] = text
    if rel == "capabilities/kernels/data.py":
        files["capabilities/kernels/report.py"] = "from .data import d\n"
    if "kernels_cmd" in text:
        files["capabilities/kernels/kernels_cmd.py"] = "from ...cli import options\n"
        files["cli/__init__.py"] = files["cli/options.py"] = ""
    edges = _tree(tmp_path, files)
    if problem == "no layer":
        with pytest.raises(LookupError, match="move it into the folder of its layer"):
            [layer_of(m, edges) for m in edges]
        return
    found = {"upward": bool(upward(edges)), "cycle": bool(cycles(edges)),
             "capability cycle": bool(cycles(capability_edges(edges)))}
    assert found[problem], found
