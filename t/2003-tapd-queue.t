#!/usr/bin/env bash
# 2003-tapd-queue.t - gridemu-tapd: drop-tail at the queue limit.
#
# a>b holds packets for 500 ms with a limit of 10; a burst of 100 UDP
# datagrams overflows it.  Checked: drops are counted as dropped_queue, the
# queue never held more than the limit, every packet is accounted for
# (rx = dropped + tx once drained), and the receiving kernel saw exactly
# the packets the daemon says it wrote (its own counters are the witness).
# Then `set limit=` raises the limit at run time.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-tapd.sh"
tapd_begin 12

# burst N: N datagrams from a to b's discard port, as fast as perl sends
# them, from an unconnected socket (so ICMP errors cannot stop the burst).
burst() {
	ip netns exec "$NS_A" perl -MSocket -e '
		socket(my $s, PF_INET, SOCK_DGRAM, 0) or die "socket: $!";
		my $to = sockaddr_in(9, inet_aton($ARGV[0]));
		for my $i (1 .. $ARGV[1]) { send($s, "burst $i", 0, $to) or die "send: $!"; }' \
		"$ADDR_B" "$1"
}

# drained: wait (up to 5 s) until a>b holds nothing; prints the stats.
drained() {
	local s i
	for i in $(seq 100); do
		s=$(tapd_ctl stats)
		[ "$(tapd_stat links.0.ab.queue_depth "$s")" = 0 ] && break
		sleep 0.05
	done
	printf '%s' "$s"
}

b_rx_packets() { ip -n "$NS_B" -s -j link show l0 | perl -MJSON::PP -e 'print decode_json(join "", <STDIN>)->[0]{stats64}{rx}{packets}'; }

tapd_config "$TAPD_TMP/q.json" 1 "$(tapd_dir_json $((500 * MS)) 0 0 10)" \
	"$(tapd_dir_json 0 0 0 1000)"
tapd_start q "$TAPD_TMP/q.json" || bail "daemon did not start: $TAPD_READY"
tapd_up || bail "cannot configure the link"
b0=$(b_rx_packets)

burst 100
ok $? "a burst of 100 datagrams sent"
s=$(drained)
rx=$(tapd_stat links.0.ab.rx_packets "$s")
tx=$(tapd_stat links.0.ab.tx_packets "$s")
dq=$(tapd_stat links.0.ab.dropped_queue "$s")
dl=$(tapd_stat links.0.ab.dropped_loss "$s")
diag "a>b: rx $rx, dropped_queue $dq, tx $tx, max depth $(tapd_stat links.0.ab.max_queue_depth "$s")"
is "$rx" 100 "the daemon read the 100 datagrams"
[ "$dq" -gt 0 ]
ok $? "the overflow was dropped at the tail (dropped_queue $dq > 0)"
is "$(tapd_stat links.0.ab.max_queue_depth "$s")" 10 "the queue never held more than its limit"
is "$((rx - dl - dq))" "$tx" "rx - dropped = tx ($rx - $dl - $dq = $tx)"
is "$(tapd_stat links.0.ab.queue_depth "$s")" 0 "nothing is left queued"
[ "$tx" -ge 10 ]
ok $? "at least the first 10 went through ($tx)"
is "$(( $(b_rx_packets) - b0 ))" "$tx" "b's kernel received exactly the $tx packets written"

# ---- a larger limit at run time --------------------------------------------------
is "$(tapd_ctl set 0 ab limit=50)" ok "set 0 ab limit=50"
burst 100
s=$(drained)
is "$(tapd_stat links.0.ab.max_queue_depth "$s")" 50 "the queue now fills to 50"
rx=$(tapd_stat links.0.ab.rx_packets "$s")
tx=$(tapd_stat links.0.ab.tx_packets "$s")
dq=$(tapd_stat links.0.ab.dropped_queue "$s")
is "$((rx - dq))" "$tx" "still rx - dropped = tx ($rx - $dq = $tx)"
tapd_stop
ok $? "the daemon exits on SIGTERM"

done_testing
