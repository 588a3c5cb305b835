"""Import cycles and layer breaks of the streamreg package, measured from the source.

Every ``import`` and ``from ... import`` in a module counts, wherever it stands: at the top,
inside a function (an import put there to dodge a cycle is still an arrow) or under
``if TYPE_CHECKING:`` (an annotation still ties the two modules).  Doctest lines are strings
and do not count.  ``from pkg import name`` is an arrow to ``pkg.name`` when that is a module,
else to ``pkg`` (its ``__init__``).

Reported:

* the strongly connected components of more than one module (each an import cycle), with
  their modules;
* every arrow from a lower layer to a higher one.  The layers, from the bottom:
  ``base`` (root modules that import nothing of the package's layers: validators, outcomes,
  lexer, progress; and the ``screening`` library, which imports nothing of streamreg),
  then ``models`` and ``policies`` (side by side: neither may import the other), ``streams``,
  ``search``; every other module is above them.

Run from the repository root::

    python tools/import_graph.py            # the report
    python tools/import_graph.py --strict   # exit 1 if a cycle or a layer break remains
"""
from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable
from pathlib import Path

PACKAGE = "streamreg"

#: the layers below the option layer, lowest first; modules in no layer are "above"
BASE_MODULES = {"validators", "outcomes", "lexer", "progress"}
LAYERS = {"base": 0, "models": 1, "policies": 1, "streams": 2, "search": 3}


def module_names(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the package."""
    out = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve(current: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute name of a (possibly relative) import's module part."""
    if level == 0:
        return target or ""
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def imports_of(name: str, path: Path, modules: Iterable[str]) -> set[str]:
    """The package's modules that ``name`` imports, anywhere in its source."""
    known = set(modules)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                # "import a.b.c" imports a, a.b and a.b.c: the deepest known one is the arrow
                for k in range(len(parts), 0, -1):
                    if ".".join(parts[:k]) in known:
                        found.add(".".join(parts[:k]))
                        break
        elif isinstance(node, ast.ImportFrom):
            mod = _resolve(name, is_package, node.level, node.module)
            for alias in node.names:
                sub = f"{mod}.{alias.name}"
                if sub in known:
                    found.add(sub)
                elif mod in known:
                    found.add(mod)
    found.discard(name)
    return found


def layer(module: str) -> tuple[str, int]:
    """(layer name, rank) of a module; rank 4 is above the four lower layers."""
    parts = module.split(".")
    if len(parts) == 1:
        return "package", 4
    if parts[1] in LAYERS:
        return parts[1], LAYERS[parts[1]]
    if parts[1] == "screening" or (len(parts) == 2 and parts[1] in BASE_MODULES):
        return "base", 0
    return parts[1], 4


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components (iterative), each sorted; only those of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    comps: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return sorted(comps, key=lambda c: (-len(c), c))


def layer_breaks(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Arrows from a lower layer to a higher one, or between the side-by-side models and policies."""
    out = []
    for src, targets in graph.items():
        s_name, s_rank = layer(src)
        if s_rank >= 4:
            continue
        for dst in targets:
            d_name, d_rank = layer(dst)
            if d_rank > s_rank or (d_rank == s_rank and d_name != s_name and s_name != "base"):
                out.append((src, dst))
    return sorted(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=".", help="repository root (default: the current folder)")
    ap.add_argument("--strict", action="store_true", help="exit 1 if a cycle or a layer break remains")
    args = ap.parse_args(argv)
    files = module_names(Path(args.root))
    graph = {name: imports_of(name, path, files) for name, path in files.items()}
    comps = strongly_connected(graph)
    breaks = layer_breaks(graph)
    arrows = sum(len(t) for t in graph.values())
    print(f"{len(files)} modules, {arrows} import arrows")
    print(f"import cycles (strongly connected components of more than one module): {len(comps)}, "
          f"{sum(map(len, comps))} modules in them")
    for comp in comps:
        print(f"  {len(comp)} modules: {', '.join(m.removeprefix(PACKAGE + '.') for m in comp)}")
    print(f"arrows from a lower layer to a higher one: {len(breaks)}")
    for src, dst in breaks:
        print(f"  {src} ({layer(src)[0]}) -> {dst} ({layer(dst)[0]})")
    return 1 if args.strict and (comps or breaks) else 0


if __name__ == "__main__":
    sys.exit(main())
