# lib-tcpbench.sh - what the transport benchmarks (tcp-stripes.sh,
# tcp-sndbuf.sh) share: their own grid under a unique prefix, taken down on
# any exit, and receivers started inside hosts.  Source it after setting
# $GRIDEMU and $me (the script's name, for messages).
#
#   tb_preflight            before anything is brought up: root, python3, and
#                           $topofile, or one line and exit; $csv defaults to
#                           $src/results/bench/${me%.sh}.csv, its folder made
#   tb_init PREFIX          $tmp (a new /tmp/gb-PREFIX.XXXXXX), GRIDBED_PREFIX=PREFIX$$,
#                           and the exit trap that stops the receivers, takes
#                           the grid down and removes $tmp
#   tb_up FILE K "KEYS"     the grid of topology FILE at dilation K, the hosts'
#                           TCP stack KEYS over the file's (may be ""); writes
#                           gridemu status --json to $tmp/st.json
#   tb_rx HOST NAME ARGS... python3 $tmp/NAME ARGS... inside HOST, in the
#                           background, its output in $tmp/NAME-HOST.log; waits
#                           up to 10 s for it to print "ready"

tb_pids=()
tb_preflight() {
	[ "$(id -u)" = 0 ] || { echo "$me: needs root" >&2; exit 1; }
	command -v python3 >/dev/null || { echo "$me: python3 is not installed" >&2; exit 1; }
	[ -f "$topofile" ] || { echo "$me: no topology '$topofile'" >&2; exit 2; }
	[ -z "$csv" ] && csv=$src/results/bench/${me%.sh}.csv
	mkdir -p "$(dirname "$csv")"
}

tb_cleanup() {
	[ ${#tb_pids[@]} -gt 0 ] && kill "${tb_pids[@]}" 2>/dev/null
	wait 2>/dev/null
	"$GRIDEMU" down >/dev/null 2>&1
	rm -rf "$tmp"
}

tb_init() {
	export GRIDBED_PREFIX=$1$$
	tmp=$(mktemp -d "/tmp/gb-$1.XXXXXX")
	trap tb_cleanup EXIT
	trap 'exit 130' INT TERM
}

tb_up() {
	cp "$1" "$tmp/topo.yaml"
	[ -n "$3" ] && echo "tcp: {$3}" >>"$tmp/topo.yaml"
	"$GRIDEMU" up "$tmp/topo.yaml" --dilate "$2" --quiet 2>"$tmp/up.err" ||
		{ echo "$me: up failed: $(cat "$tmp/up.err")" >&2; exit 1; }
	"$GRIDEMU" status --json > "$tmp/st.json"
}

tb_rx() {
	local host=$1 name=$2 log
	shift 2
	log=$tmp/$name-$host.log
	"$GRIDEMU" exec "$host" -- python3 -u "$tmp/$name" "$@" > "$log" 2>&1 &
	tb_pids+=($!)
	for _ in $(seq 100); do grep -q ready "$log" 2>/dev/null && return 0; sleep 0.1; done
	echo "$me: receiver on $host did not start: $(cat "$log")" >&2
	exit 1
}
