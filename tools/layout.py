#!/usr/bin/env python3
"""The layout measurements of issue #44, from the source alone.

    python3 tools/layout.py            # every crate
    python3 tools/layout.py --limit 120

Prints, per crate: the import circles between its modules (strongly connected components
of the graph of `crate::a::b` paths a module names, in `use` lines and in code), the
functions longer than the limit (lines from `fn` to its closing brace), and for
mint-runtime the number of `pub mod` lines in lib.rs. Modules are files: `src/a/b.rs` and
`src/a/b/mod.rs` are `a::b`; a path names the longest module prefix that exists.
A file's `#[cfg(test)]` module is left out of both measurements: unit tests may call the
crate's entry points (`crate::translate`) without making the library's modules a circle.
"""

import re
import sys
from pathlib import Path

CRATES = ["mint-translator", "mint-runtime", "mint-macros", "mint-testing", "."]


def library_text(f: Path) -> str:
    """`f`'s text up to its `#[cfg(test)] mod …` (unit tests), which stays in test builds."""
    text = f.read_text()
    m = re.search(r"^#\[cfg\(test\)\]\s*\n\s*mod\s+\w+\s*\{", text, re.M)
    return text[: m.start()] if m else text


def modules(src: Path) -> dict:
    mods = {}
    for f in sorted(src.rglob("*.rs")):
        rel = f.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        mods["::".join(parts)] = f
    return mods


def edges(mods: dict) -> dict:
    out = {m: set() for m in mods}
    for m, f in mods.items():
        # code only: a path in a comment or a doc link is not a dependency
        text = "\n".join(l.split("//")[0] for l in library_text(f).split("\n"))
        # `use crate::{a, b::c}` groups and plain `crate::a::b` paths
        paths = re.findall(r"crate::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)", text)
        for g in re.findall(r"crate::\{([^}]*)\}", text):
            paths += [p.strip().split(" as ")[0] for p in g.split(",") if p.strip()]
        for p in paths:
            segs = [s for s in p.split("::") if s and s != "self"]
            for n in range(len(segs), 0, -1):
                target = "::".join(segs[:n])
                if target in mods:
                    if target != m and not m.startswith(target + "::") and not target.startswith(m + "::"):
                        out[m].add(target)
                    break
    return out


def circles(g: dict) -> list:
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in g:
        if v not in index:
            visit(v)
    return comps


def long_functions(mods: dict, limit: int) -> list:
    out = []
    for m, f in mods.items():
        lines = library_text(f).split("\n")
        i = 0
        while i < len(lines):
            mt = re.match(r"\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+([a-z_][a-z0-9_]*)", lines[i])
            if not mt:
                i += 1
                continue
            depth, started, j = 0, False, i
            while j < len(lines):
                code = re.sub(r'"(\\.|[^"\\])*"|//.*', "", lines[j])
                depth += code.count("{") - code.count("}")
                started |= "{" in code
                if started and depth <= 0:
                    break
                if not started and code.rstrip().endswith(";"):
                    break
                j += 1
            n = j - i + 1
            if started and n > limit:
                out.append((n, f"{f}:{i + 1}", mt.group(6)))
            i += 1
    return sorted(out, reverse=True)


def main():
    limit = 120
    if "--limit" in sys.argv:
        limit = int(sys.argv[sys.argv.index("--limit") + 1])
    root = Path(__file__).resolve().parent.parent
    for c in CRATES:
        src = root / c / "src"
        mods = modules(src)
        comps = circles(edges(mods))
        fns = long_functions(mods, limit)
        name = "mint-stencil" if c == "." else c
        print(f"## {name}: {len(mods)} modules")
        print(f"import circles: {len(comps)}")
        for comp in comps:
            print(f"  {len(comp)} modules: {', '.join(comp)}")
        print(f"functions over {limit} lines: {len(fns)}")
        for n, at, fname in fns:
            print(f"  {n:4d}  {fname}  {at.replace(str(root) + '/', '')}")
        if c == "mint-runtime":
            pub = sum(1 for l in (src / "lib.rs").read_text().split("\n") if re.match(r"\s*pub mod ", l))
            print(f"`pub mod` in mint-runtime/src/lib.rs: {pub}")
        print()


if __name__ == "__main__":
    main()
