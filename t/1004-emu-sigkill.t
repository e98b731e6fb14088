#!/usr/bin/env bash
# SIGKILL `gridemu up` at many points of its work; `gridemu down` must then
# leave nothing: no namespace of the prefix, no tap daemon, no state file,
# and the root namespace unchanged.  Also `down` with the state file deleted
# (falls back to the prefix).
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu

topo=$TOPOS/teragrid.yaml
before=$(root_snapshot)
leftovers() {
	local n d
	n=$(prefix_netns | wc -l)
	d=$(pgrep -f "gridemu-tapd.*$GRIDBED_RUNDIR/$GB_PREFIX/" | wc -l)
	echo "netns=$n tapd=$d state=$([ -e "$GRIDBED_RUNDIR/$GB_PREFIX/state.json" ] && echo yes || echo no)"
}

# How long a full up takes here, to spread the kill points over it.
s=$(date +%s%N)
"$GRIDEMU" up "$topo" >/dev/null 2>&1 || bail "cannot bring teragrid up"
full_ms=$(( ($(date +%s%N) - s) / 1000000 ))
"$GRIDEMU" down >/dev/null 2>&1
diag "a full up takes $full_ms ms"

for pct in 1 5 10 20 35 50 70 90; do
	ms=$(( full_ms * pct / 100 ))
	"$GRIDEMU" up "$topo" >/dev/null 2>&1 &
	pid=$!
	sleep "$(awk -v m="$ms" 'BEGIN {printf "%.3f", m / 1000}')"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	mid=$(leftovers)
	out=$("$GRIDEMU" down 2>&1); st=$?
	ok $st "down after SIGKILL at ${ms} ms (${pct}%; found $mid)" || diag "$out"
	is "$(leftovers)" "netns=0 tapd=0 state=no" "nothing left after SIGKILL at ${pct}%"
done

"$GRIDEMU" up "$topo" >/dev/null 2>&1 || bail "cannot bring teragrid up"
rm -f "$GRIDBED_RUNDIR/$GB_PREFIX/state.json"
t "down without a state file" "$GRIDEMU" down
is "$(leftovers)" "netns=0 tapd=0 state=no" "nothing left without a state file"

is "$(root_snapshot)" "$before" "root namespace identical after all of it"
done_testing
