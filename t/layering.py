#!/usr/bin/env python3
"""layering.py SRC - check the include layering of every top-level folder.

Used by t/0095-layering.t.  Prints one line per violation and exits 1 if
there is any, 0 otherwise:
  - a file of collectives/<F>/ includes (with quotes) a header that lives in
    a folder <F> may not use (TIERS below: a folder uses only the folders
    below it, docs/architecture.md, decision 12);
  - a file of core/, plan/ or libgbphoenix reaches mpi.h or an emulator/
    header, directly or through the headers it includes;
  - a file of libgridbcast's executor (EXECUTOR below) calls a function of
    its planning side (PLANNING: the tree sources) or of libgbplan (gb_plan*,
    gb_planner*): the executor runs the tree it is handed (issue 45,
    collectives/bcast/bcast_source.c);
  - a file of a top-level folder includes a header of a folder it may not
    use (TOP_TIERS), or a file of emulator/<P>/ one of an emulator product
    <P> may not use (EMU_TIERS);
  - a file outside emulator/<P>/ includes a header of <P> that is not one
    of its public headers (EMU_PUBLIC, emulator/CMakeLists.txt), or a file
    outside synthapp/ or gridstencil/ one of theirs that is not (TOP_PUBLIC);
  - the tiers themselves (TIERS, TOP_TIERS, EMU_TIERS) have a cycle, so that
    two folders could include each other.
"""
import os
import re
import sys

# What each folder of collectives/ may include, besides itself and
# topologies/ (libgbtopo).  "emulator" and "mpi" are not folders of
# collectives/: they name emulator/'s headers and <mpi.h>.
TIERS = {
    "core": set(),
    "phoenix": {"core", "emulator"},     # emulator: phoenixd.c only, see PURE
    "plan": {"core", "phoenix"},
    "plugin": {"core"},                  # gridbed-plugin, the plugin host
    "monitor": {"core", "plan", "phoenix", "emulator"},
    "advisor": {"core", "plan", "phoenix"},
    "bcast": {"core", "plan", "phoenix", "advisor", "mpi"},
    "tools": {"core", "plan", "phoenix"},
}
# Files that must reach neither MPI nor the emulator, even indirectly.
PURE_DIRS = ("core", "plan")
PURE_FILES = ("phoenix/phoenix.h", "phoenix/phoenix_proto.c", "phoenix/phoenix_sim.c",
              "phoenix/phoenix_tree.c", "phoenix/phoenix_wire.c")

# libgridbcast's executor and its planning side (collectives/bcast/).
EXECUTOR = ("bcast_exec.c", "bcast_pipe.c", "bcast_wait.c", "bcast_stripes.c", "bcast_core.c")
PLANNING = ("bcast_tree.c", "bcast_adaptive.c", "bcast_source.c")
DEFN = re.compile(r'^[a-z][^;(]*\b(gb_[a-z0-9_]+)\(', re.M)
CALL = re.compile(r'\b(gb_[a-z0-9_]+)\s*\(')

INC = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')

# What each top-level folder may include, besides itself (issue 46).
TOP_TIERS = {
    "util": set(),
    "include": set(),                    # gridbed/planner.h, the plugin ABI
    "topologies": {"util"},
    "emulator": {"util", "topologies"},
    "collectives": {"util", "topologies", "include", "emulator"},
    "loadgen": {"util", "topologies", "emulator"},
    "stencil": {"util", "topologies", "collectives"},
    "gridstencil": {"util", "topologies", "emulator", "collectives", "stencil"},
    "synthapp": {"util", "topologies", "collectives"},
    "experiments": {"util", "topologies", "include", "emulator", "collectives", "loadgen",
                    "synthapp"},                # appsched.h, the application's pattern
}
# emulator/'s products (emulator/CMakeLists.txt), what each may use, and
# the headers each offers the others and every other folder.
EMU_TIERS = {
    "tapd": set(),
    "grid": {"tapd"},
    "capture": {"grid", "tapd"},
    "mpirun": {"grid", "tapd"},
    "cli": {"grid", "tapd", "capture", "mpirun"},
}
EMU_PUBLIC = {
    "tapd": {"tapd.h", "tapd_queue.h"},
    "grid": {"gbemu.h", "dilate.h", "netns.h", "cgroup.h", "calibrate.h", "probe.h",
             "probe_child.h", "fidelity.h", "tcpstat.h"},
    "capture": {"capture.h"},
    "mpirun": {"mpirun.h"},
    "cli": set(),
}
# The headers the applications' folders offer the others (synthapp/CMakeLists.txt,
# gridstencil/CMakeLists.txt); their other headers are their own.
TOP_PUBLIC = {
    "synthapp": {"appsched.h"},
    "gridstencil": set(),
}


def tier_cycle(tiers):
    """A cycle in @tiers (folder -> the folders it may use) as a list, or None."""
    state = {}                      # folder -> 1 on the path, 2 done

    def visit(d, path):
        state[d] = 1
        for u in sorted(tiers[d]):
            if u not in tiers:
                continue            # "mpi", "emulator" in TIERS: not a folder of it
            if state.get(u) == 1:
                return path[path.index(u):] + [u]
            if u not in state:
                c = visit(u, path + [u])
                if c:
                    return c
        state[d] = 2
        return None

    for d in sorted(tiers):
        if d not in state:
            c = visit(d, [d])
            if c:
                return c
    return None


def check_top(src):
    """The top-level and emulator/ rules above; returns the violations."""
    tops = [d for d in TOP_TIERS if os.path.isdir(os.path.join(src, d))]
    home = {}                       # header name -> (top folder, emulator product or None)
    for d in tops:
        for root, _, files in os.walk(os.path.join(src, d)):
            rel = os.path.relpath(root, src).split(os.sep)
            prod = rel[1] if d == "emulator" and len(rel) > 1 and rel[1] in EMU_TIERS else None
            for f in files:
                if f.endswith(".h"):
                    home.setdefault(f, (d, prod))
    bad = []
    for d in tops + ["t"]:
        for root, _, files in os.walk(os.path.join(src, d)):
            rel = os.path.relpath(root, src).split(os.sep)
            prod = rel[1] if d == "emulator" and len(rel) > 1 and rel[1] in EMU_TIERS else None
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = "/".join(rel + [f])
                with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        m = INC.match(line)
                        if not m or m.group(1) != '"':
                            continue
                        h = os.path.basename(m.group(2))
                        if h not in home:
                            continue
                        w, wp = home[h]
                        if d != "t" and w != d and w not in TOP_TIERS[d]:
                            bad.append(f"{path}:{n}: {d}/ includes {h} ({w}/), which it may not use")
                            continue
                        if w != d and w in TOP_PUBLIC and h not in TOP_PUBLIC[w]:
                            bad.append(f"{path}:{n}: includes {h}, private to {w}/")
                            continue
                        if w != "emulator" or wp is None or wp == prod:
                            continue
                        if prod is not None and wp not in EMU_TIERS[prod]:
                            bad.append(f"{path}:{n}: emulator/{prod}/ includes {h} "
                                       f"(emulator/{wp}/), which it may not use")
                        elif h not in EMU_PUBLIC[wp]:
                            bad.append(f"{path}:{n}: includes {h}, private to emulator/{wp}/")
    return bad


def main(src):
    coll = os.path.join(src, "collectives")
    where = {}                      # header name -> folder ("core", "emulator", ...)
    for d in TIERS:
        for f in os.listdir(os.path.join(coll, d)):
            if f.endswith(".h"):
                where[f] = d
    for d in ("emulator", "topologies"):
        for root, _, files in os.walk(os.path.join(src, d)):
            for f in files:
                if f.endswith(".h"):
                    where.setdefault(f, d)
    where["mpi.h"] = "mpi"

    incs = {}                       # "dir/file" -> [(header, line)]
    for d in TIERS:
        for f in sorted(os.listdir(os.path.join(coll, d))):
            if not f.endswith((".c", ".h")):
                continue
            with open(os.path.join(coll, d, f), encoding="utf-8") as fh:
                incs[d + "/" + f] = [(m.group(2), n) for n, line in enumerate(fh, 1)
                                     for m in [INC.match(line)] if m]
    bad = []
    for path, lst in incs.items():
        d = path.split("/")[0]
        for h, n in lst:
            w = where.get(h)
            if w is None or w == d or w == "topologies":
                continue
            if w not in TIERS[d]:
                bad.append(f"collectives/{path}:{n}: {d}/ includes {h} ({w}/), "
                           f"which it may not use")

    def reach(path, seen):
        for h, _ in incs.get(path, []):
            w = where.get(h)
            if w in ("mpi", "emulator"):
                return h
            key = f"{w}/{h}"
            if key in incs and key not in seen:
                seen.add(key)
                r = reach(key, seen)
                if r:
                    return r
        return None

    for path in incs:
        if path.split("/")[0] in PURE_DIRS or path in PURE_FILES:
            r = reach(path, {path})
            if r:
                bad.append(f"collectives/{path}: reaches {r}; core/, plan/ and "
                           f"libgbphoenix must stay free of MPI and the emulator")
    bdir = os.path.join(coll, "bcast")
    planning = set()
    for f in PLANNING:
        with open(os.path.join(bdir, f), encoding="utf-8") as fh:
            planning.update(DEFN.findall(fh.read()))
    for f in EXECUTOR:
        with open(os.path.join(bdir, f), encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                code = line.split("//")[0]
                if code.lstrip().startswith(("*", "/*")):
                    continue          # comments name functions freely
                for fn in CALL.findall(code):
                    if fn in planning or fn.startswith(("gb_plan_", "gb_planner")) or \
                            fn == "gb_plan":
                        bad.append(f"collectives/bcast/{f}:{n}: the executor calls {fn}(), "
                                   f"which is planning")
    bad += check_top(src)
    for name, tiers in (("TIERS", TIERS), ("TOP_TIERS", TOP_TIERS), ("EMU_TIERS", EMU_TIERS)):
        c = tier_cycle(tiers)
        if c:
            bad.append(f"t/layering.py: {name} has a cycle: {' -> '.join(c)}")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: layering.py SRC")
    sys.exit(main(sys.argv[1]))
