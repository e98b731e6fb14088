#!/usr/bin/env bash
# 2001-tapd-basic.t - gridemu-tapd: the devices it creates, the delay it
# adds (never less than configured), per-direction delays, exact counters,
# and a clean exit on SIGTERM that takes the devices with it.
#
# The bounds on RTT: a packet can never leave the daemon before its
# deadline, so RTT >= delay(a>b) + delay(b>a) is a hard bound; the upper
# bound on the median (+10 ms) is loose enough that a correct daemon never
# misses it even on a loaded machine.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-tapd.sh"
tapd_begin 28

# ---- 20 ms each way ---------------------------------------------------------
tapd_config "$TAPD_TMP/sym.json" 1 "$(tapd_dir_json $((20 * MS)) 0 0 1000)" \
	"$(tapd_dir_json $((20 * MS)) 0 0 1000)"
tapd_start sym "$TAPD_TMP/sym.json"
ok $? "the daemon reports ready on its ready fd (got '$TAPD_READY')" ||
	bail "daemon did not start: $(cat "$TAPD_LOG")"
is "$(cat "$TAPD_PIDFILE" 2>/dev/null)" "$TAPD_PID" "the pidfile holds the daemon's pid"
is "$(tapd_ctl ping)" pong "the control socket answers ping"

for ns in "$NS_A" "$NS_B"; do
	info=$(ip -n "$ns" -d link show l0 2>&1)
	like "$info" 'tun type tun pi off vnet_hdr on' "$ns: l0 is a layer-3 tun with a vnet header"
	like "$info" 'state DOWN' "$ns: l0 is left down for gridemu to configure"
	is "$(ip -n "$ns" -o addr show dev l0 | wc -l)" 0 "$ns: l0 has no address"
done

tapd_up
ok $? "addresses and up, configured from outside as gridemu does"

before=$(tapd_ctl stats)
rtts=$(ping_rtts "$NS_A" "$ADDR_B" 20 0.05)
after=$(tapd_ctl stats)
is "$(printf '%s\n' "$rtts" | grep -c .)" 20 "20 of 20 pings answered"
min=$(printf '%s\n' "$rtts" | nums_min)
med=$(printf '%s\n' "$rtts" | nums_median)
diag "RTT with 20 ms each way: min $min ms, median $med ms"
num_ge "$min" 40
ok $? "no RTT below 40 ms (min $min): a packet is never early"
num_lt "$med" 50
ok $? "median RTT $med ms < 50 ms"

delta() { echo $(( $(tapd_stat "$1" "$after") - $(tapd_stat "$1" "$before") )); }
for d in ab ba; do
	is "$(delta links.0.$d.rx_packets)/$(delta links.0.$d.tx_packets)" 20/20 \
		"$d: 20 packets read and 20 written"
	is "$(delta links.0.$d.rx_bytes)" $((20 * 84)) "$d: rx_bytes counts 20 IP packets of 84 bytes"
done
is "$(tapd_stat total.dropped_loss "$after")/$(tapd_stat total.dropped_queue "$after")/$(tapd_stat total.queue_depth "$after")" \
	0/0/0 "nothing dropped, nothing left queued"
like "$(tapd_stat total.lateness_ns.count "$after")" '^[0-9]+$' "stats report the lateness distribution"
diag "lateness (ns): $(tapd_stat total.lateness_ns.p50 "$after") p50," \
	"$(tapd_stat total.lateness_ns.p99 "$after") p99, $(tapd_stat total.lateness_ns.max "$after") max"

tapd_stop
ok $? "the daemon exits on SIGTERM"
ip -n "$NS_A" link show l0 >/dev/null 2>&1 || ip -n "$NS_B" link show l0 >/dev/null 2>&1
ok $(( ! $? )) "both devices are gone with it"
[ ! -e "$TAPD_PIDFILE" ] && [ ! -e "$TAPD_CTL" ]
ok $? "pidfile and control socket removed"

# ---- 10 ms a>b, 30 ms b>a -----------------------------------------------------
tapd_ping_link asym 1 "$(tapd_dir_json $((10 * MS)) 0 0 1000)" \
	"$(tapd_dir_json $((30 * MS)) 0 0 1000)" 10 0.05 \
	"a second daemon starts on the same names once the first is gone"
min=$(printf '%s\n' "$rtts" | nums_min)
diag "RTT with 10 ms a>b and 30 ms b>a: min $min ms"
num_ge "$min" 40
ok $? "no RTT below 10 + 30 ms (min $min)"
s=$(tapd_ctl stats)
is "$(tapd_stat links.0.ab.delay_ns "$s")/$(tapd_stat links.0.ba.delay_ns "$s")" \
	$((10 * MS))/$((30 * MS)) "stats report each direction's own delay"
tapd_stop
ok $? "the daemon exits on SIGTERM"
is "$(prefix_netns | wc -l)" 2 "only this test's two namespaces exist (removed by the trap)"

done_testing
