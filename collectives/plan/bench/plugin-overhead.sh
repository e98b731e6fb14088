#!/usr/bin/env bash
# plugin-overhead.sh - benchmark reading, not a test: what a planner from
# outside gridbed costs per request (issue 45, docs/plugins.md), against a
# built-in planner, on one model.
#
#   collectives/plan/bench/plugin-overhead.sh [--build DIR] [--n N] [--topo FILE]
#                                             [--size BYTES]
#
# Plans the same tree N times (default 20) with each of:
#   mpich-g2                          built in, in gridtree's own process
#   plugin:earliest-first.so          examples/planner-plugin, built here with
#                                     its Makefile: a child process
#                                     (gridbed-plugin) that dlopens it
#   external:coordinators.py          examples/external-planner (Python 3): a
#                                     child process that reads JSON on stdin
# and prints the minimum, median and maximum of gridtree's own "planning"
# figure (the request alone: for a plugin or an external planner, the
# child's start, the model sent, the tree read back and checked), not the
# process start of gridtree itself.  Default model: topologies/teragrid.yaml
# (64 nodes), root c2-1, 1 MiB.  Run it on a quiet box and give the load
# average with its figures (printed first).  Needs cc and python3; no root.
set -u
here=$(cd "$(dirname "$0")/../../.." && pwd)
me=plugin-overhead.sh
. "$here/util/bench/lib-bench.sh"
build=$here/build n=20 topo=$here/topologies/teragrid.yaml size=1M
bench_parse "23 strip" "build n topo size" "$@"
case $n in ''|*[!0-9]*|0) echo "plugin-overhead.sh: --n '$n' is not a count" >&2; exit 2 ;; esac
gt=$build/collectives/gridtree
[ -x "$gt" ] || { echo "plugin-overhead.sh: no gridtree at $gt (--build DIR)" >&2; exit 2; }
[ -r "$topo" ] || { echo "plugin-overhead.sh: cannot read $topo" >&2; exit 2; }

tmp=$(mktemp -d /tmp/gb-plugin-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cp -r "$here/examples/planner-plugin" "$tmp/plugin"
make -s -C "$tmp/plugin" GRIDBED="$here" >/dev/null ||
	{ echo "plugin-overhead.sh: the example plugin does not build" >&2; exit 1; }
cp "$here/examples/external-planner/coordinators.py" "$tmp/coordinators.py"

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs; $n requests each;" \
	"$(basename "$topo"), root c2-1, $size"
printf '%-28s %10s %10s %10s\n' planner "min ms" "median ms" "max ms"
for algo in mpich-g2 "plugin:$tmp/plugin/earliest-first.so" "external:$tmp/coordinators.py"; do
	for _ in $(seq "$n"); do
		"$gt" plan --algo "$algo" --topo "$topo" --root c2-1 --size "$size" |
			sed -n 's/^planning *\([0-9.]*\) ms$/\1/p'
	done | sort -g > "$tmp/ms"
	[ "$(wc -l < "$tmp/ms")" = "$n" ] ||
		{ echo "plugin-overhead.sh: $algo: a request failed" >&2; exit 1; }
	label=${algo/$tmp\/plugin\//}; label=${label/$tmp\//}
	awk -v l="$label" '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%-28s %10.3f %10.3f %10.3f\n", l, v[1], m, v[NR] }' "$tmp/ms"
done
