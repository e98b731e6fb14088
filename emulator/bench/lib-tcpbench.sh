# lib-tcpbench.sh - what the transport benchmarks (tcp-stripes.sh,
# tcp-sndbuf.sh) share: their own grid under a unique prefix, taken down on
# any exit, and receivers started inside hosts.  Source it after setting
# $GRIDEMU, $src and $me (the script's name, for messages); it sources
# util/bench/lib-bench.sh.
#
#   tb_opt OPT VALUE        the options both take: --topology (topofile),
#                           --from, --to, --reps, --dilate, --tcp (stack),
#                           --csv, and -h/--help (the header, lines 2-32,
#                           bench_usage); an option it does not know: one line
#                           and exit 2.  The caller shifts past OPT and VALUE
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
#                           A receiver may "from tb_serve import serve" (tb_init
#                           writes it to $tmp): serve(HANDLER, BACKLOG) listens
#                           on port argv[1], prints "ready" and runs
#                           HANDLER(connection) in a thread for each one

. "$src/util/bench/lib-bench.sh"
tb_pids=()
tb_opt() {
	case "$1" in
		--topology) topofile=$2 ;;
		--from) from=$2 ;;
		--to) to=$2 ;;
		--reps) reps=$2 ;;
		--dilate) dilate=$2 ;;
		--tcp) stack=$2 ;;
		--csv) csv=$2 ;;
		*) bench_usage 32 "$1" ;;
	esac
}

tb_preflight() {
	bench_need 1 root python3
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
	cat > "$tmp/tb_serve.py" <<'PY'
import socket, sys, threading
def serve(handler, backlog):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", int(sys.argv[1])))
    s.listen(backlog)
    print("ready", flush=True)
    while True:
        c, _ = s.accept()
        threading.Thread(target=handler, args=(c,), daemon=True).start()
PY
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
