#!/usr/bin/env bash
# 2007-tapd-io.t - gridemu-tapd's two data paths (--io, GRIDBED_TAPD_IO):
# io_uring by default, epoll when asked, and epoll with one line in the log
# when the kernel refuses io_uring (injected with strace: ENOSYS).  Each
# carries pings with their delay, exact counters, a burst that queues and
# leaves in batches, and stops cleanly.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-tapd.sh"
tapd_begin 26

ab=$(tapd_dir_json $((5 * MS)) 0 0 1000)

# carry NAME WANT_IO [ARGS...]: a daemon, its path, 20 pings, a burst; 8 checks.
carry() {
	local name=$1 want=$2 before after min d
	shift 2
	tapd_config "$TAPD_TMP/$name.json" 1 "$ab" "$ab"
	tapd_start "$name" "$TAPD_TMP/$name.json" "$@"
	ok $? "$name: the daemon starts (got '$TAPD_READY')" ||
		bail "daemon did not start: $(cat "$TAPD_LOG")"
	tapd_up
	is "$(tapd_stat workers.0.io)" "$want" "$name: the worker's data path is $want"
	before=$(tapd_ctl stats)
	rtts=$(ping_rtts "$NS_A" "$ADDR_B" 20 0.02)
	is "$(printf '%s\n' "$rtts" | grep -c .)" 20 "$name: 20 of 20 pings answered"
	min=$(printf '%s\n' "$rtts" | nums_min)
	num_ge "${min:-0}" 10
	ok $? "$name: no RTT below 5 + 5 ms (min $min)"
	# 200 pings 1 ms apart: about five in each direction's queue at once
	ip netns exec "$NS_A" ping -n -q -c 200 -i 0.001 -W 2 "$ADDR_B" >/dev/null 2>&1
	after=$(tapd_ctl stats)
	delta() { echo $(( $(tapd_stat "$1" "$after") - $(tapd_stat "$1" "$before") )); }
	for d in ab ba; do
		is "$(delta links.0.$d.rx_packets)/$(delta links.0.$d.tx_packets)" 220/220 \
			"$name: $d: 220 packets read and 220 written"
	done
	is "$(tapd_stat total.tx_errors "$after")/$(tapd_stat total.queue_depth "$after")" 0/0 \
		"$name: no write failed, nothing left queued"
	num_ge "$(delta workers.0.syscalls)" 1
	ok $? "$name: the loop's system calls are counted ($(delta workers.0.syscalls) for 440 packets)"
}

carry uring uring
grep -q 'io_uring unavailable' "$TAPD_LOG"
ok $(( ! $? )) "uring: nothing about io_uring in the log"
tapd_stop

carry epoll epoll --io epoll
tapd_stop

GRIDBED_TAPD_IO=epoll tapd_start env "$TAPD_TMP/uring.json"
ok $? "GRIDBED_TAPD_IO=epoll: the daemon starts"
is "$(tapd_stat workers.0.io)" epoll "GRIDBED_TAPD_IO=epoll: the worker uses epoll"
tapd_stop
GRIDBED_TAPD_IO=epoll tapd_start envover "$TAPD_TMP/uring.json" --io uring
is "$(tapd_stat workers.0.io)" uring "--io uring overrides GRIDBED_TAPD_IO=epoll"
tapd_stop
GRIDBED_TAPD_IO=bogus tapd_start bad "$TAPD_TMP/uring.json"
like "$TAPD_READY" "GRIDBED_TAPD_IO: 'bogus' is not uring or epoll" \
	"a bad GRIDBED_TAPD_IO is refused with one line"

# The kernel refuses io_uring: epoll, and the log says so.  strace keeps
# the daemon's pid, so it is stopped with `quit`.
if command -v strace >/dev/null; then
	cat >"$TAPD_TMP/noring" <<EOF
#!/bin/sh
exec strace -f -qq -o /dev/null -e trace=io_uring_setup -e inject=io_uring_setup:error=ENOSYS "$TAPD" "\$@"
EOF
	chmod +x "$TAPD_TMP/noring"
	real=$TAPD
	TAPD=$TAPD_TMP/noring
	tapd_config "$TAPD_TMP/noring.json" 1 "$ab" "$ab"
	tapd_start noring "$TAPD_TMP/noring.json"
	ok $? "no io_uring: the daemon starts (got '$TAPD_READY')"
	TAPD=$real
	tapd_up
	like "$(cat "$TAPD_LOG")" 'worker 0: io_uring unavailable \(Function not implemented\): using epoll' \
		"no io_uring: one line in the log says why"
	is "$(tapd_stat workers.0.io)" epoll "no io_uring: the worker uses epoll"
	is "$(ping_rtts "$NS_A" "$ADDR_B" 5 0.02 | grep -c .)" 5 "no io_uring: 5 of 5 pings answered"
	tapd_ctl quit >/dev/null
	tapd_wait_gone "$TAPD_PID"
	ok $? "no io_uring: the daemon exits on quit"
else
	skip 5 "strace is not installed"
fi

done_testing
