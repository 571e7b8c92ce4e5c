#!/usr/bin/env python3
"""Counts which methods of rayon's `iter`, `slice`, `str` and `collections` modules exist in
offshoot, by reading both sources (the numbers of docs/RAYON-COVERAGE.md come from here).

Usage: scripts/rayon-coverage.py RAYON_SRC_DIR   (a rayon checkout's `src`)

A trait's methods are the `fn`s at the top level of its `pub trait` block. Left out of
rayon's lists: the plumbing methods (`drive_unindexed`, `opt_len`, `drive`,
`with_producer`: "you should not need to call this directly") and the two
`#[doc(hidden)]` deprecated ones (`find`, `position`). A method counts as present when
offshoot's trait of the same name (for the two iterator traits: either of them) has a
method of that name; whether its signature matches is not checked here.
"""
import os
import re
import sys

OFFSHOOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates", "offshoot", "src")
EXCLUDED = {"find", "position", "drive_unindexed", "opt_len", "drive", "with_producer"}


def traits(path):
    """{trait name: [method names]} of the `pub trait` blocks in `path`."""
    src = open(path).read()
    out = {}
    for m in re.finditer(r"pub trait (\w+)", src):
        i = src.index("{", m.end())
        depth, j = 0, i
        while True:
            depth += {"{": 1, "}": -1}.get(src[j], 0)
            if depth == 0:
                break
            j += 1
        d, fns = 0, []
        for line in src[i + 1 : j].split("\n"):
            f = re.match(r"\s*(?:unsafe )?fn (\w+)", line)
            if d == 0 and f:
                fns.append(f.group(1))
            d += line.count("{") - line.count("}")
        out[m.group(1)] = fns
    return out


def free_fns(paths):
    names = []
    for p in paths:
        names += re.findall(r"^pub fn (\w+)", open(p).read(), re.M)
    return names


def main(rayon):
    r, o = {}, {}
    for p in ["iter/mod.rs", "iter/par_bridge.rs", "slice/mod.rs", "str.rs"]:
        r.update(traits(os.path.join(rayon, p)))
    for p in ["par_iter/mod.rs", "par_iter/str.rs", "par_iter/vec.rs", "par_iter/collect.rs", "slice/mod.rs", "bridge.rs"]:
        o.update(traits(os.path.join(OFFSHOOT, p)))
    iters = ("ParallelIterator", "IndexedParallelIterator")
    total = have = 0
    print("| module | rayon trait / functions | here | missing here |\n|---|---|---|---|")
    groups = [
        ("iter", t) for t in ["ParallelIterator", "IndexedParallelIterator", "IntoParallelIterator",
                              "IntoParallelRefIterator", "IntoParallelRefMutIterator", "FromParallelIterator",
                              "ParallelExtend", "ParallelDrainRange", "ParallelDrainFull", "ParallelBridge"]
    ] + [("slice", "ParallelSlice"), ("slice", "ParallelSliceMut"), ("str", "ParallelString")]
    for module, t in groups:
        names = [n for n in r[t] if n not in EXCLUDED]
        ours = {n for k in iters for n in o[k]} if t in iters else set(o.get(t, []))
        missing = [n for n in names if n not in ours]
        total += len(names)
        have += len(names) - len(missing)
        print(f"| {module} | `{t}` | {len(names) - len(missing)} / {len(names)} | {', '.join(f'`{n}`' for n in missing) or '—'} |")
    rf = free_fns([os.path.join(rayon, "iter", f) for f in os.listdir(os.path.join(rayon, "iter")) if f.endswith(".rs")])
    of = set(free_fns([os.path.join(OFFSHOOT, "par_iter", f) for f in os.listdir(os.path.join(OFFSHOOT, "par_iter"))]))
    missing = [n for n in sorted(rf) if n not in of]
    total += len(rf)
    have += len(rf) - len(missing)
    print(f"| iter | free functions ({', '.join(sorted(rf))}) | {len(rf) - len(missing)} / {len(rf)} | {', '.join(f'`{n}`' for n in missing) or '—'} |")
    print(f"| | **total** | **{have} / {total}** | |")


ENTRY = re.compile(
    r"(?:into_par_vec! \{\s*|impl<[^>]*> (?:IntoParallelIterator|ParallelDrain(?:Full|Range)(?:<\w+>)?) for |\] )"
    r"(&'a mut |&'a |&mut )?(\w+)<[^=>{]*?>(?=\s*(?:=>|\{|,))"
)


def entries(paths):
    """{(collection, "into_par_iter" | "par_iter" | "par_iter_mut" | "par_drain")} in `paths`."""
    out = set()
    for p in paths:
        src = open(p).read()
        for m in ENTRY.finditer(src):
            line = src[src.rfind("\n", 0, m.start()) + 1 : src.find("\n", m.end())]
            # a `drain_full! { ... }` entry is a ParallelDrainFull impl made by that macro
            macros = re.findall(r"(\w+)! \{", src[: m.start()])
            if "ParallelDrain" in line or (line.lstrip().startswith("[") and macros and macros[-1] == "drain_full"):
                kind = "par_drain"
            else:
                kind = {None: "into_par_iter", "&'a ": "par_iter"}.get(m.group(1), "par_iter_mut")
            out.add((m.group(2), kind))
    return out


def collections(rayon):
    names = ["BinaryHeap", "BTreeMap", "BTreeSet", "HashMap", "HashSet", "LinkedList", "VecDeque"]
    cdir = os.path.join(rayon, "collections")
    r = {e for e in entries([os.path.join(cdir, f) for f in os.listdir(cdir)]) if e[0] in names}
    o = {e for e in entries([os.path.join(OFFSHOOT, "par_iter", "vec.rs")]) if e[0] in names}
    print("\n| collection | rayon's entry points | here | missing here |\n|---|---|---|---|")
    for c in names:
        kinds = sorted(k for n, k in r if n == c)
        missing = [k for k in kinds if (c, k) not in o]
        print(f"| `{c}` | {', '.join(kinds)} | {len(kinds) - len(missing)} / {len(kinds)} | {', '.join(missing) or '—'} |")
    print(f"| | **total** | **{len(r & o)} / {len(r)}** | |")


if __name__ == "__main__":
    main(sys.argv[1])
    collections(sys.argv[1])
