# shellcheck shell=bash
# lib-tapd.sh - sourced by the 2xxx tests (gridemu-tapd), after lib-netns.sh.
#
# Gives two namespaces joined by one tap link, a daemon started the way
# gridemu starts it (setsid, stdio on a log, --ready-fd), its control
# socket, a JSON reader for its stats, and a cleanup that kills the daemons
# this test started before lib-netns.sh's trap removes the namespaces.

TAPD=${TAPD:-$GRIDBED_BUILD/emulator/gridemu-tapd}
NS_A=${GB_PREFIX}-a
NS_B=${GB_PREFIX}-b
TAPD_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gb-tapd.XXXXXX")
ADDR_A=10.231.0.1
ADDR_B=10.231.0.2
_tapd_pids=()

require_tapd() {
	[ -x "$TAPD" ] || bail "gridemu-tapd not built at $TAPD"
	[ -c /dev/net/tun ] || skip_all "no /dev/net/tun"
	require_cmd ping
	require_cmd perl
}

tapd_cleanup() {
	local pid
	for pid in "${_tapd_pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${_tapd_pids[@]}"; do
		tapd_wait_gone "$pid" || kill -KILL "$pid" 2>/dev/null
	done
	rm -rf "$TAPD_TMP"
}
# Chain in front of lib-netns.sh's gb_cleanup, keeping the exit status.
trap '_st=$?; tapd_cleanup; (exit $_st); gb_cleanup' EXIT

# tapd_alive PID: the process exists and is not a zombie.
tapd_alive() {
	[ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# tapd_wait_gone PID: poll (up to 5 s) until the process has exited.
tapd_wait_gone() {
	local i
	for i in $(seq 100); do
		tapd_alive "$1" || return 0
		sleep 0.05
	done
	return 1
}

# tapd_begin N: how every 2xxx test begins: skip unless namespaces and the
# daemon can run, plan N checks, then the two namespaces (tapd_netns).
tapd_begin() {
	require_netns
	require_tapd
	plan "$1"
	tapd_netns
}
MS=1000000	# a millisecond in the daemon's nanoseconds

# Two namespaces with loopback up and IPv6 off, so that the only packets
# on the link are the ones the test sends (exact accounting).
tapd_netns() {
	local ns
	for ns in "$NS_A" "$NS_B"; do
		ip netns add "$ns" || bail "cannot create netns $ns"
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 >/dev/null
		ip -n "$ns" link set lo up
	done
}

# tapd_dir_json DELAY_NS JITTER_NS LOSS LIMIT
tapd_dir_json() {
	printf '{"delay_ns": %s, "jitter_ns": %s, "loss": %s, "limit": %s}' "$1" "$2" "$3" "$4"
}

# tapd_config FILE SEED AB_JSON BA_JSON: one link, id 0, l0 in each namespace.
tapd_config() {
	cat >"$1" <<EOF
{ "seed": $2, "links": [ { "id": 0, "name": "a-b",
    "a": {"netns": "/run/netns/$NS_A", "ifname": "l0"},
    "b": {"netns": "/run/netns/$NS_B", "ifname": "l0"},
    "ab": $3,
    "ba": $4 } ] }
EOF
}

# tapd_start NAME CONFIG [ARGS...]: start a daemon as gridemu does and wait
# for its ready byte.  Sets TAPD_CTL, TAPD_PIDFILE, TAPD_LOG, TAPD_PID and
# TAPD_READY (what the ready fd said: "R", or "E<message>").  0 when ready.
tapd_start() {
	local name=$1 cfg=$2 fifo rfd ch line=
	shift 2
	TAPD_CTL=$TAPD_TMP/$name.sock
	TAPD_PIDFILE=$TAPD_TMP/$name.pid
	TAPD_LOG=$TAPD_TMP/$name.log
	fifo=$TAPD_TMP/$name.ready
	rm -f "$fifo"
	mkfifo "$fifo"
	# Opened read-write, so neither side blocks in open(2).
	exec {rfd}<>"$fifo"
	setsid "$TAPD" --config "$cfg" --ready-fd 3 --control "$TAPD_CTL" \
		--pidfile "$TAPD_PIDFILE" "$@" 3>"$fifo" </dev/null >>"$TAPD_LOG" 2>&1 &
	TAPD_PID=$!
	_tapd_pids+=("$TAPD_PID")
	TAPD_READY=
	if read -r -t 10 -N 1 ch <&"$rfd"; then
		[ "$ch" = E ] && read -r -t 2 line <&"$rfd"
		TAPD_READY=$ch$line
	fi
	exec {rfd}<&-
	rm -f "$fifo"
	[ "$TAPD_READY" = R ]
}

# tapd_stop: SIGTERM the daemon and wait for it to be gone.
tapd_stop() {
	kill -TERM "$TAPD_PID" 2>/dev/null
	tapd_wait_gone "$TAPD_PID"
}

# tapd_up: addresses on both ends and links up (what gridemu does by netlink).
tapd_up() {
	ip -n "$NS_A" addr add "$ADDR_A/30" dev l0 &&
	ip -n "$NS_B" addr add "$ADDR_B/30" dev l0 &&
	ip -n "$NS_A" link set l0 up &&
	ip -n "$NS_B" link set l0 up
}

# tapd_ctl REQUEST...: one request to the running daemon, reply on stdout.
tapd_ctl() { "$TAPD" --control "$TAPD_CTL" --send "$*"; }

# tapd_stat PATH [JSON]: a value from `stats` (or from JSON given), by a
# dotted path such as links.0.ab.rx_packets.
tapd_stat() {
	local json=${2:-$(tapd_ctl stats)}
	printf '%s' "$json" | perl -MJSON::PP -e '
		my $v = decode_json(join "", <STDIN>);
		for my $k (split /\./, $ARGV[0]) {
			$v = ref $v eq "ARRAY" ? $v->[$k] : $v->{$k};
		}
		print defined $v ? $v : "undef";' "$1"
}

# tapd_ping_link NAME SEED AB_JSON BA_JSON COUNT INTERVAL DESC: a daemon
# NAME on a one-link config $TAPD_TMP/NAME.json (tapd_config), ok DESC when
# it starts, the link up (tapd_up), then COUNT pings from a to b INTERVAL s
# apart: their RTTs in $rtts, and a check that all COUNT were answered.
tapd_ping_link() {
	tapd_config "$TAPD_TMP/$1.json" "$2" "$3" "$4"
	tapd_start "$1" "$TAPD_TMP/$1.json"
	ok $? "$7"
	tapd_up
	rtts=$(ping_rtts "$NS_A" "$ADDR_B" "$5" "$6")
	is "$(printf '%s\n' "$rtts" | grep -c .)" "$5" "$5 of $5 pings answered"
}

# ping_rtts NS DEST COUNT INTERVAL: the RTTs (ms), one per line.
ping_rtts() {
	ip netns exec "$1" ping -n -c "$3" -i "$4" -W 2 "$2" 2>/dev/null |
		sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p'
}

# Statistics of numbers on stdin, with awk: min, median (count must be > 0).
nums_min() { sort -g | head -n1; }
nums_median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# num_ge A B: A >= B (floating point).
num_ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
num_lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
