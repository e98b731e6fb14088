#!/usr/bin/env bash
# 0095-layering: every top-level folder, emulator/'s products and
# collectives/'s folders keep their dependency tiers (docs/architecture.md
# decision 12, emulator/CMakeLists.txt, collectives/CMakeLists.txt): each
# includes only what is below it; no folder includes an emulator product's
# private header, or one of synthapp/'s or gridstencil/'s; no tiers form a
# cycle; core/, plan/ and libgbphoenix reach neither <mpi.h> nor an
# emulator header.  The checker is t/layering.py; it is first shown
# copies of the tree with bad includes planted, so that it is known to
# catch them.
source "$(dirname "$0")/lib-netns.sh"
command -v python3 >/dev/null || skip_all "python3 is not installed"

tmp=$(mktemp -d /tmp/gb-layering.XXXXXX)
trap 'st=$?; rm -rf "$tmp"; (exit $st)' EXIT
check=$GRIDBED_SRC/t/layering.py

plan 14

out=$(python3 "$check" "$GRIDBED_SRC" 2>&1); st=$?
ok $st "the tree keeps its layering" || printf '%s\n' "$out" | sed 's/^/#   /'

mkdir -p "$tmp/src"
cp -r "$GRIDBED_SRC/collectives" "$GRIDBED_SRC/emulator" "$GRIDBED_SRC/topologies" "$tmp/src/"
printf '#include "gbemu.h"\n' >>"$tmp/src/collectives/core/gbcore.h"
out=$(python3 "$check" "$tmp/src" 2>&1); st=$?
is "$st" 1 "a planted emulator include in core/ fails the check"
like "$out" 'core/gbcore.h:[0-9]+: core/ includes gbemu.h' "it names the file and line"
like "$out" 'plan/[a-z_]+\.[ch]: reaches gbemu.h' "and the plan/ files that reach it through core/"

# the executor calls nothing of planning (issue 45): plant a call in a copy
rm -rf "$tmp/src"
mkdir -p "$tmp/src"
cp -r "$GRIDBED_SRC/collectives" "$GRIDBED_SRC/emulator" "$GRIDBED_SRC/topologies" "$tmp/src/"
printf 'static void planted(struct gb_bcast_comm *c) { (void)gb_bcast_planning_init(c); }\n' \
	>>"$tmp/src/collectives/bcast/bcast_pipe.c"
out=$(python3 "$check" "$tmp/src" 2>&1); st=$?
is "$st" 1 "a planted call from bcast_pipe.c into bcast_tree.c fails the check"
like "$out" 'bcast/bcast_pipe.c:[0-9]+: the executor calls gb_bcast_planning_init\(\), which is planning' \
	"it names the file, the line and the function"
printf 'static int planted2(void) { return gb_planner_find("flat") != 0; }\n' \
	>>"$tmp/src/collectives/bcast/bcast_exec.c"
like "$(python3 "$check" "$tmp/src" 2>&1)" 'bcast/bcast_exec.c:[0-9]+: the executor calls gb_planner_find\(\)' \
	"and a call into libgbplan"

# the top-level tiers and emulator/'s products (issue 46): plant in a copy
# of every folder
rm -rf "$tmp/src"
mkdir -p "$tmp/src"
for d in util include topologies emulator collectives loadgen stencil gridstencil synthapp experiments; do
	cp -r "$GRIDBED_SRC/$d" "$tmp/src/"
done
printf '#include "grid_priv.h"\n' >>"$tmp/src/loadgen/flow.c"
printf '#include "gbexp.h"\n' >>"$tmp/src/emulator/grid/status.c"
printf '#include "mpirun.h"\n' >>"$tmp/src/emulator/capture/capture.c"
printf '#include "gbexp.h"\n' >>"$tmp/src/synthapp/synthapp_model.c"
printf '#include "synthapp_priv.h"\n' >>"$tmp/src/experiments/gridexp_calibrate.c"
out=$(python3 "$check" "$tmp/src" 2>&1); st=$?
is "$st" 1 "planted includes across folders fail the check"
like "$out" 'loadgen/flow.c:[0-9]+: includes grid_priv.h, private to emulator/grid/' \
	"a private header of emulator/grid/ included from loadgen/ is named"
like "$out" 'emulator/grid/status.c:[0-9]+: emulator/ includes gbexp.h \(experiments/\)' \
	"an emulator file that includes experiments/ is named"
like "$out" 'emulator/capture/capture.c:[0-9]+: emulator/capture/ includes mpirun.h \(emulator/mpirun/\)' \
	"and an emulator product that uses one beside it"
like "$out" 'synthapp/synthapp_model.c:[0-9]+: synthapp/ includes gbexp.h \(experiments/\)' \
	"the application that includes the campaign tool's header is named"
like "$out" 'experiments/gridexp_calibrate.c:[0-9]+: includes synthapp_priv.h, private to synthapp/' \
	"and a private header of synthapp/ included from experiments/"

# the tiers themselves have no cycle (the first test); the finder finds one
cyc=$(python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import layering
print(layering.tier_cycle({"a": {"b"}, "b": {"c", "mpi"}, "c": {"a"}}))' "$GRIDBED_SRC/t" 2>&1)
is "$cyc" "['a', 'b', 'c', 'a']" "a cycle in a table of tiers is found"
