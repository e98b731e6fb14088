#!/usr/bin/env bash
# 2002-tapd-loss.t - gridemu-tapd: seeded random loss.
#
# Loss 0.2 on a>b only, 500 pings: every ping that got no answer is one
# that the daemon counted in dropped_loss (exact accounting, IPv6 is off so
# nothing else crosses the link), the fraction lies in a band of +/- 3.9
# standard deviations of Binomial(500, 0.2) (0.13 .. 0.27), and a second
# daemon with the same seed drops exactly the same number of packets.
# Last, jitter: no packet ever leaves before delay - jitter.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-tapd.sh"
tapd_begin 15
N=500

# run_loss NAME SEED: one daemon, N pings; sets SENT RECV DROP_AB DROP_BA RX_AB
# and SEQS, the icmp_seq numbers answered (which packets were lost).
run_loss() {
	local out s
	tapd_config "$TAPD_TMP/$1.json" "$2" "$(tapd_dir_json $((1 * MS)) 0 0.2 1000)" \
		"$(tapd_dir_json $((1 * MS)) 0 0 1000)"
	tapd_start "$1" "$TAPD_TMP/$1.json" || bail "daemon did not start: $TAPD_READY"
	tapd_up || bail "cannot configure the link"
	out=$(ip netns exec "$NS_A" ping -n -c $N -i 0.002 -W 1 "$ADDR_B" 2>&1)
	SEQS=$(printf '%s\n' "$out" | sed -n 's/.* icmp_seq=\([0-9]*\) .*/\1/p' | sort -n | tr '\n' ' ')
	SENT=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p')
	RECV=$(printf '%s\n' "$out" | sed -n 's/.* \([0-9]*\) received.*/\1/p')
	s=$(tapd_ctl stats)
	DROP_AB=$(tapd_stat links.0.ab.dropped_loss "$s")
	DROP_BA=$(tapd_stat links.0.ba.dropped_loss "$s")
	RX_AB=$(tapd_stat links.0.ab.rx_packets "$s")
	tapd_stop || bail "the daemon did not exit on SIGTERM"
}

run_loss first 42
is "$SENT" $N "ping sent $N echo requests"
is "$RX_AB" $N "the daemon read all $N of them"
is "$DROP_BA" 0 "no loss configured b>a, none counted"
is "$DROP_AB" $((SENT - RECV)) "dropped_loss ($DROP_AB) = pings lost ($SENT - $RECV)"
frac=$(awk -v d="$DROP_AB" -v n=$N 'BEGIN { printf "%.3f", d / n }')
diag "loss fraction with p = 0.2 over $N packets: $frac"
num_ge "$frac" 0.13 && num_lt "$frac" 0.27
ok $? "loss fraction $frac within 0.13 .. 0.27"
first=$DROP_AB
first_seqs=$SEQS

run_loss second 42
is "$SENT/$RX_AB" $N/$N "second run: all $N requests sent and read"
is "$DROP_AB" "$first" "the same seed drops the same number ($first) again"
is "$DROP_AB" $((SENT - RECV)) "and accounts for every lost ping"
[ "$SEQS" = "$first_seqs" ]
ok $? "the same seed loses the very same packets (by icmp_seq)"

run_loss third 43
diag "seed 43 drops $DROP_AB (seed 42: $first)"
is "$DROP_AB" $((SENT - RECV)) "another seed: still exact accounting"

# ---- jitter -------------------------------------------------------------------
# a>b: 10 ms +/- 8 ms, b>a: 1 ms.  Every RTT >= 2 + 1 ms.
tapd_ping_link jit 7 "$(tapd_dir_json $((10 * MS)) $((8 * MS)) 0 1000)" \
	"$(tapd_dir_json $((1 * MS)) 0 0 1000)" 50 0.01 "a daemon with jitter starts"
min=$(printf '%s\n' "$rtts" | nums_min)
max=$(printf '%s\n' "$rtts" | sort -g | tail -n1)
diag "RTT with 10 +/- 8 ms a>b and 1 ms b>a: min $min ms, max $max ms"
num_ge "$min" 3
ok $? "no RTT below (10 - 8) + 1 ms (min $min)"
is "$(tapd_stat links.0.ab.jitter_ns)" $((8 * MS)) "stats report the jitter"
tapd_stop
ok $? "the daemon exits on SIGTERM"

done_testing
