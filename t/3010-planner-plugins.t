#!/bin/bash
# 3010-planner-plugins - planners from outside gridbed (docs/plugins.md):
# the example C plugin and the example Python external planner, each built
# or copied outside the tree and run by `gridtree plan`, against a known
# answer; and every fault of the issue, each a one-line error that names
# the file: a missing file, a missing symbol, another ABI version, a tree
# that does not span, a parent that is not a node, a planner that fails,
# a plugin that crashes, one that hangs past its budget (killed, its
# process group with it), and the external planner's own faults.
# Needs neither root nor namespaces: planning is computation.
source "$(dirname "$0")/lib-netns.sh"

GT=$GRIDBED_BUILD/collectives/gridtree
[ -x "$GT" ] || bail "gridtree not built at $GT"
[ -x "$GRIDBED_BUILD/collectives/gridbed-plugin" ] || bail "gridbed-plugin not built"
command -v cc >/dev/null || skip_all "no C compiler (cc) to build the plugins"
command -v make >/dev/null || skip_all "make is not installed"
command -v python3 >/dev/null || skip_all "python3 is not installed"
TG=$TOPOS/teragrid.yaml
TMP=$(mktemp -d /tmp/gb3010.XXXXXX)
MARK=gb3010-$$
trap 'pkill -KILL -f "$MARK" 2>/dev/null; rm -rf "$TMP"' EXIT

# A three-node matrix with one answer for earliest-first: a reaches b in
# 1 ms but c in 1 s; b reaches c in 1 ms.  So a -> b -> c.
cat >"$TMP/m3.json" <<'EOF'
{"nodes": [{"name": "a", "cluster": "A"}, {"name": "b", "cluster": "A"},
           {"name": "c", "cluster": "B"}],
 "o": 0, "lat": [[0, 0.001, 1], [0.001, 0, 0.001], [1, 0.001, 0]],
 "bw": [[0, 1e9, 1e9], [1e9, 0, 1e9], [1e9, 1e9, 0]]}
EOF

# the send lists of a tree file, compact
kids() { python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["children"]))'; }

# --- the example plugin, built outside the tree, as docs/plugins.md says --
cp -r "$GRIDBED_SRC/examples/planner-plugin" "$TMP/ex"
rm -f "$TMP/ex/"*.so
out=$(make -C "$TMP/ex" GRIDBED="$GRIDBED_SRC" 2>&1); st=$?
is "$st" 0 "the example plugin builds outside the tree with its Makefile"
PL=$TMP/ex/earliest-first.so
out=$("$GT" plan --algo "plugin:$PL" --matrix "$TMP/m3.json" --root a --size 1K \
	--format json); st=$?
is "$st" 0 "gridtree plan --algo plugin:PATH"
is "$(kids <<<"$out")" '{"a": ["b"], "b": ["c"]}' \
	"earliest-first: a -> b -> c on the three-node matrix"
like "$out" "\"algo\": \"plugin:$PL\"" "the tree file names the plugin"
out=$("$GT" plan --algo "plugin:$PL" --topo "$TG" --root c2-1 --size 1M); st=$?
is "$st" 0 "the plugin plans teragrid's 64 nodes"
like "$out" "^  c2-1 -> " "and prints a tree from the root"
rel=$(cd "$TMP/ex" && "$GT" plan --algo plugin:./earliest-first.so --matrix "$TMP/m3.json" \
	--root a --size 1K --format json); st=$?
is "$st" 0 "a path relative to the working directory"
out=$("$GT" eval --algo "plugin:$PL" --topo "$TG" --root c2-1 --size 1M --format json); st=$?
is "$st" 0 "gridtree eval --algo plugin:PATH"
like "$out" '"contention": [0-9.]+' "  scores the plugin's tree under every model"

# --- the example external planner ----------------------------------------
cp "$GRIDBED_SRC/examples/external-planner/coordinators.py" "$TMP/coord.py"
out=$("$GT" plan --algo "external:$TMP/coord.py" --matrix "$TMP/m3.json" --root a \
	--size 1K --format json); st=$?
is "$st" 0 "gridtree plan --algo external:PATH (Python)"
is "$(kids <<<"$out")" '{"a": ["c", "b"]}' \
	"coordinators: the root sends to cluster B's coordinator, then its own cluster"
out=$("$GT" plan --algo "external:$TMP/coord.py" --topo "$TG" --root c2-1 --size 1M); st=$?
is "$st" 0 "the external planner plans teragrid"

# --- faults: each a one-line error naming the file -------------------------
# plan FAULT WANT-STATUS REGEX DESCRIPTION [gridtree options...]
fault() {
	local algo=$1 want=$2 re=$3 what=$4
	shift 4
	err=$("$GT" plan --algo "$algo" --matrix "$TMP/m3.json" --root a --size 1K "$@" \
		2>&1 >/dev/null)
	st=$?
	is "$st" "$want" "$what: exit $want"
	like "$err" "^gridtree: .*$re" "$what: '$err'"
	is "$(printf '%s\n' "$err" | wc -l)" 1 "$what: one line"
}
# a plugin from C source: plugin NAME BODY-OF-gridbed_plan [EXTRA-TOP-LEVEL]
plugin() {
	cat >"$TMP/$1.c" <<EOF
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <gridbed/planner.h>
${3-GRIDBED_PLANNER_DEFINE_ABI;}
int gridbed_plan(const struct gridbed_model *m, const struct gridbed_request *r,
		 int *parent, double *order, char *err, size_t errlen)
{
	(void)m; (void)r; (void)parent; (void)order; (void)err; (void)errlen;
	$2
	return 0;
}
EOF
	cc -shared -fPIC -I"$GRIDBED_SRC/include" -o "$TMP/$1.so" "$TMP/$1.c" ||
		bail "cannot build test plugin $1"
}

fault "plugin:$TMP/none.so" 2 "plugin:$TMP/none.so: No such file or directory" \
	"a missing plugin file"
printf 'not an ELF file\n' >"$TMP/text.so"
fault "plugin:$TMP/text.so" 2 "plugin:$TMP/text.so: cannot load: .*text.so" "not a shared object"
plugin nosym "" "GRIDBED_PLANNER_DEFINE_ABI; int other(void) { return 0; }"
sed -i 's/^int gridbed_plan(/static int unused_plan(/' "$TMP/nosym.c"
cc -shared -fPIC -I"$GRIDBED_SRC/include" -o "$TMP/nosym.so" "$TMP/nosym.c" 2>/dev/null ||
	bail "cannot build test plugin nosym"
fault "plugin:$TMP/nosym.so" 2 "plugin:$TMP/nosym.so: no symbol 'gridbed_plan'" \
	"a plugin without gridbed_plan"
plugin noabi "parent[1] = 0; parent[2] = 1;" "/* no ABI */"
fault "plugin:$TMP/noabi.so" 2 "noabi.so: no symbol 'gridbed_planner_abi'" \
	"a plugin that does not declare its ABI"
plugin abi99 "parent[1] = 0; parent[2] = 1;" "const unsigned gridbed_planner_abi = 99;"
fault "plugin:$TMP/abi99.so" 2 "abi99.so: built for planner ABI 99, this gridbed has ABI 1" \
	"an ABI version mismatch"
plugin forest "parent[1] = 0;"
fault "plugin:$TMP/forest.so" 1 "plugin:$TMP/forest.so: 'c' has no parent" \
	"a tree that does not span"
plugin cycle "parent[1] = 2; parent[2] = 1;"
fault "plugin:$TMP/cycle.so" 1 "plugin:$TMP/cycle.so: .*does not reach the root" "a cycle"
plugin range "parent[1] = 0; parent[2] = 7;"
fault "plugin:$TMP/range.so" 1 "range.so: parent\\[2\\] = 7 is not a node" \
	"a parent that is not a node"
plugin refuses "snprintf(err, errlen, \"no tree for %d nodes\", m->n); return 3;"
fault "plugin:$TMP/refuses.so" 1 "refuses.so: the planner failed \\(returned 3\\): no tree for 3 nodes" \
	"a planner that fails, with its reason"
plugin crash "raise(SIGSEGV);"
fault "plugin:$TMP/crash.so" 1 "plugin:$TMP/crash.so: crashed \\(signal 11" "a plugin that crashes"
plugin hang "for (;;) pause();"
t0=$(date +%s%N)
fault "plugin:$TMP/hang.so" 1 "hang.so: overran its budget of 0.20 s \\(killed after 0\\.[0-9]+ s\\)" \
	"a plugin that hangs" --budget-ms 200
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
ok "$([ "$ms" -lt 3000 ]; echo $?)" "the hung plugin was killed at its deadline ($ms ms)"

# its file name carries $MARK, so that pgrep can see it and the helper it
# forks; first shown to work on a copy that nothing kills
HANG=$TMP/$MARK-hang.py
cat >"$HANG" <<'EOF'
#!/usr/bin/env python3
# forks a helper, then both sleep
import os, time
os.fork()
time.sleep(3600)
EOF
chmod +x "$HANG"
"$HANG" </dev/null >/dev/null 2>&1 &
sleep 0.5
is "$(pgrep -f "$MARK" | wc -l)" 2 "pgrep sees a hanging planner and its helper"
pkill -KILL -f "$MARK"
wait 2>/dev/null
fault "external:$HANG" 1 "$MARK-hang.py: overran its budget of 0.30 s" \
	"an external planner that hangs" --budget-ms 300
sleep 0.2
is "$(pgrep -f "$MARK" | wc -l)" 0 "the hung planner and the helper it forked are gone"
printf '#!/bin/sh\necho "model too large for me" >&2\nexit 4\n' >"$TMP/ext-fail.sh"
chmod +x "$TMP/ext-fail.sh"
fault "external:$TMP/ext-fail.sh" 1 "ext-fail.sh: model too large for me" \
	"an external planner that fails, with its last line of stderr"
printf '#!/bin/sh\ncat >/dev/null\necho "hello"\n' >"$TMP/ext-junk.sh"
chmod +x "$TMP/ext-junk.sh"
fault "external:$TMP/ext-junk.sh" 1 "ext-junk.sh: printed no tree file" \
	"an external planner that prints no tree"
printf '#!/bin/sh\ncat >/dev/null\necho %s\n' \
	"'{\"root\": \"b\", \"children\": {\"b\": [\"a\", \"c\"]}}'" >"$TMP/ext-root.sh"
chmod +x "$TMP/ext-root.sh"
fault "external:$TMP/ext-root.sh" 1 "ext-root.sh: the tree is rooted at 'b', not at the request's root 'a'" \
	"an external planner's tree with another root"
printf '#!/bin/sh\nexit 0\n' >"$TMP/ext-noexec.sh"
fault "external:$TMP/ext-noexec.sh" 2 "ext-noexec.sh: not executable" "a file that is not executable"
fault "external:$TMP/none.py" 2 "external:$TMP/none.py: No such file" "a missing external planner"
fault "plugin:" 2 "plugin: needs a file" "plugin: without a file"

done_testing
