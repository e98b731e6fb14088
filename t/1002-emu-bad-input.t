#!/usr/bin/env bash
# Bad input gets a one-line message naming the place, exit status 2, and
# changes nothing: no namespace, no state, no daemon, root namespace intact.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu

tmp=$(mktemp -d); trap 'rm -rf "$tmp"; gb_cleanup' EXIT
before=$(root_snapshot)

nothing_left() {
	local n; n=$(prefix_netns | wc -l)
	[ "$n" = 0 ] && [ ! -e "$GRIDBED_RUNDIR/$GB_PREFIX/state.json" ] &&
		! pgrep -f "gridemu-tapd.*$GRIDBED_RUNDIR/$GB_PREFIX/" >/dev/null
}

# no run directory (nor its lock file) for this prefix: a refused 'up' has
# not left the one that gb_grid_open() made
no_rundir() { [ ! -e "$GRIDBED_RUNDIR/$GB_PREFIX" ]; }

# 1. a malformed topology (unknown key on line 3)
cat > "$tmp/bad.yaml" <<'Y'
name: bad
sites:
  - nme: A
Y
out=$("$GRIDEMU" up "$tmp/bad.yaml" 2>&1); st=$?
is "$st" 2 "malformed topology: status 2"
like "$out" "^gridemu: $tmp/bad.yaml:3:[0-9]+: " "malformed topology: file:line:col"
is "$(printf '%s\n' "$out" | wc -l)" 1 "malformed topology: one line"
ok $(nothing_left; echo $?) "malformed topology: nothing created"
ok $(no_rundir; echo $?) "malformed topology: no run directory or lock left"
: > "$tmp/empty.yaml"
out=$("$GRIDEMU" up "$tmp/empty.yaml" 2>&1); st=$?
is "$st" 2 "empty topology: status 2"
ok $(no_rundir; echo $?) "empty topology: no run directory or lock left"
out=$("$GRIDEMU" up "$tmp/bad.yaml" --part siteA --peer 10.9.9.9 2>&1); st=$?
is "$st" 2 "malformed topology with --part/--peer: status 2"
ok $(no_rundir; echo $?) "malformed topology with --part/--peer: no run directory left"

# 2. a missing file, a directory, a symbolic link loop: bad input too
ln -s "$tmp/loop" "$tmp/loop"
for f in "$tmp/none.yaml" "$tmp" "$tmp/loop"; do
	out=$("$GRIDEMU" up "$f" 2>&1); st=$?
	is "$st" 2 "unreadable topology $f: status 2"
	like "$out" "^gridemu: cannot read topology '$f': " "unreadable topology $f: names the file"
	is "$(printf '%s\n' "$out" | wc -l)" 1 "unreadable topology $f: one line"
	ok $(nothing_left; echo $?) "unreadable topology $f: nothing created"
	ok $(no_rundir; echo $?) "unreadable topology $f: no run directory or lock left"
done

# 2b. the netem backend on a kernel without sch_netem (this host's, as a
# rule; the netem tests run inside user-mode Linux): one line, nothing left.
if unshare --net tc qdisc add dev lo root netem delay 1ms 2>/dev/null; then
	skip 4 "this kernel has sch_netem; the refusal is for kernels without it"
else
	out=$("$GRIDEMU" up "$TOPOS/two-clusters.yaml" --backend netem 2>&1); st=$?
	ok $([ "$st" != 0 ]; echo $?) "--backend netem without sch_netem fails (status $st)"
	like "$out" "^gridemu: backend 'netem' cannot work here: the kernel has no sch_netem.*\\(use --backend tap or auto\\)$" \
		"--backend netem without sch_netem: one line that says why and what to use ($out)"
	is "$(printf '%s\n' "$out" | wc -l)" 1 "--backend netem without sch_netem: one line"
	ok $(nothing_left; echo $?) "--backend netem without sch_netem: nothing created"
fi

# 3. an unknown backend
out=$("$GRIDEMU" up "$TOPOS/two-clusters.yaml" --backend nope 2>&1); st=$?
is "$st" 2 "unknown backend: status 2"
like "$out" "unknown backend 'nope'" "unknown backend: says which"
ok $(nothing_left; echo $?) "unknown backend: nothing created"

# 4. an address block overlapping a route of the host
route=$(ip -4 route show | awk '$1 ~ /\// {print $1; exit}')
if [ -n "$route" ]; then
	cat > "$tmp/overlap.yaml" <<Y
name: overlap
addressing: {data: $route, mgmt: 10.251.0.0/16}
sites:
  - name: s
    clusters:
      - {name: c, hosts: 2}
Y
	out=$("$GRIDEMU" up "$tmp/overlap.yaml" 2>&1); st=$?
	is "$st" 2 "block overlapping the host's route $route: status 2"
	like "$out" "overlaps the host's route" "overlap: says why"
	ok $(nothing_left; echo $?) "overlap: nothing created"
else
	skip 3 "the host has no subnet route to collide with"
fi

# 5. a busy lock
mkdir -p "$GRIDBED_RUNDIR/$GB_PREFIX"
exec 8>"$GRIDBED_RUNDIR/$GB_PREFIX/lock"
flock -x 8
out=$("$GRIDEMU" up "$TOPOS/two-clusters.yaml" 2>&1); st=$?
is "$st" 2 "busy lock: status 2"
like "$out" "is busy" "busy lock: says so"
ok $(nothing_left; echo $?) "busy lock: nothing created"
exec 8>&-

# 6. commands on a grid that is not up: bad input (exit 2), as in gridload
for cmd in status "link show" "link set siteA-siteB delay 5ms"; do
	# shellcheck disable=SC2086
	out=$("$GRIDEMU" $cmd 2>&1); st=$?
	is "$st" 2 "$cmd with no grid: status 2"
	like "$out" "^gridemu: no grid with prefix '$GB_PREFIX' is up$" "$cmd with no grid: one line that says so"
	ok $(no_rundir; echo $?) "$cmd with no grid: leaves no run directory or lock behind"
done
# link set's values are checked before any grid is looked for
for v in "loss 101%" "delay 1e400ms" "rate 5furlongs" "limit 0"; do
	# shellcheck disable=SC2086
	out=$("$GRIDEMU" link set siteA-siteB $v 2>&1); st=$?
	is "$st" 2 "link set $v with no grid: status 2"
	like "$out" "^gridemu: link set: ${v%% *} '${v#* }' is not valid$" "link set $v: one line naming the value ($out)"
done
# one line naming the fault, not the usage
for cmd in "link" "link frob" "link set" "up" "up --frob $TOPOS/two-clusters.yaml" "up --backend" \
	   "up $TOPOS/two-clusters.yaml $TOPOS/two-clusters.yaml"; do
	# shellcheck disable=SC2086
	out=$("$GRIDEMU" $cmd 2>&1); st=$?
	is "$st:$(printf '%s\n' "$out" | wc -l)" "2:1" "$cmd: status 2, one line ($out)"
done
like "$("$GRIDEMU" up --frob x 2>&1)" "unknown option '--frob'" "up --frob: names the option"
ok $(no_rundir; echo $?) "refused commands leave no run directory"
out=$("$GRIDEMU" script "$tmp/none.yaml" 2>&1); st=$?
is "$st" 2 "script on a missing file: status 2"
is "$out" "gridemu: cannot read topology '$tmp/none.yaml': No such file or directory" \
	"script on a missing file: names the file, not file:0:0"

# 7. unknown link, bad value, unknown command, on a live grid
"$GRIDEMU" up "$TOPOS/two-clusters.yaml" >/dev/null 2>&1 || bail "cannot bring the grid up"
snap=$("$GRIDEMU" link show)
out=$("$GRIDEMU" link set no-such-link delay 5ms 2>&1); st=$?
is "$st" 2 "link set on an unknown link: status 2"
like "$out" "no link 'no-such-link'" "unknown link: named"
wan=siteA-siteB
out=$("$GRIDEMU" link set "$wan" delay 5parsecs 2>&1); st=$?
is "$st" 2 "link set with a bad value: status 2"
like "$out" "delay '5parsecs' is not valid" "bad value: named"
out=$("$GRIDEMU" link set "$wan" colour blue 2>&1); st=$?
is "$st" 2 "link set with an unknown parameter: status 2"
is "$("$GRIDEMU" link show)" "$snap" "links unchanged after the refused changes"
out=$("$GRIDEMU" frobnicate 2>&1); st=$?
is "$st" 2 "unknown command: status 2"
"$GRIDEMU" down >/dev/null 2>&1
ok $(nothing_left; echo $?) "down leaves nothing"
is "$(root_snapshot)" "$before" "root namespace unchanged"
done_testing
