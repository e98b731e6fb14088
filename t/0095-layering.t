#!/usr/bin/env bash
# 0095-layering: collectives/ keeps its dependency tiers (docs/architecture.md
# decision 12, collectives/CMakeLists.txt): every folder includes only the
# folders below it, and core/, plan/ and libgbphoenix reach neither <mpi.h>
# nor an emulator header.  The checker is t/layering.py; it is first shown a
# copy of the tree with one bad include planted, so that it is known to
# catch one.
source "$(dirname "$0")/lib-netns.sh"
command -v python3 >/dev/null || skip_all "python3 is not installed"

tmp=$(mktemp -d /tmp/gb-layering.XXXXXX)
trap 'st=$?; rm -rf "$tmp"; (exit $st)' EXIT
check=$GRIDBED_SRC/t/layering.py

plan 7

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
