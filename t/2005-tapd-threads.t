#!/usr/bin/env bash
# 2005-tapd-threads.t - gridemu-tapd with several links and two workers:
# links are dealt round-robin to the workers (both directions of a link in
# one), each keeps its own delay, and the control socket reaches them all;
# GRIDBED_TAPD_THREADS and GRIDBED_TAPD_SPIN_BUDGET set the defaults.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-tapd.sh"
tapd_begin 17

# Three links between a and b: l0 (5 ms each way), l1 (15 ms), l2 (25 ms).
cat >"$TAPD_TMP/m.json" <<EOF
{ "seed": 9, "links": [
  { "id": 10, "name": "l0", "a": {"netns": "/run/netns/$NS_A", "ifname": "l0"},
    "b": {"netns": "/run/netns/$NS_B", "ifname": "l0"},
    "ab": {"delay_ns": $((5 * MS))}, "ba": {"delay_ns": $((5 * MS))} },
  { "id": 11, "name": "l1", "a": {"netns": "/run/netns/$NS_A", "ifname": "l1"},
    "b": {"netns": "/run/netns/$NS_B", "ifname": "l1"},
    "ab": {"delay_ns": $((15 * MS))}, "ba": {"delay_ns": $((15 * MS))} },
  { "id": 12, "name": "l2", "a": {"netns": "/run/netns/$NS_A", "ifname": "l2"},
    "b": {"netns": "/run/netns/$NS_B", "ifname": "l2"},
    "ab": {"delay_ns": $((25 * MS))}, "ba": {"delay_ns": $((25 * MS))} } ] }
EOF
tapd_start m "$TAPD_TMP/m.json" --threads 2
ok $? "the daemon starts with 3 links on 2 workers (got '$TAPD_READY')" ||
	bail "daemon did not start: $(cat "$TAPD_LOG")"
for k in 0 1 2; do
	ip -n "$NS_A" addr add "10.231.$k.1/30" dev "l$k" &&
	ip -n "$NS_B" addr add "10.231.$k.2/30" dev "l$k" &&
	ip -n "$NS_A" link set "l$k" up && ip -n "$NS_B" link set "l$k" up ||
		bail "cannot configure l$k"
done

s=$(tapd_ctl stats)
is "$(tapd_stat workers.0.links "$s")/$(tapd_stat workers.1.links "$s")" 2/1 \
	"link i goes to worker i % 2"
is "$(tapd_stat links.0.ab.worker "$s")$(tapd_stat links.0.ba.worker "$s")$(tapd_stat links.1.ab.worker "$s")$(tapd_stat links.1.ba.worker "$s")$(tapd_stat links.2.ab.worker "$s")" \
	00110 "both directions of a link share its worker"

for k in 0 1 2; do
	want=$(( (5 + 10 * k) * 2 ))
	rtts=$(ping_rtts "$NS_A" "10.231.$k.2" 5 0.02)
	min=$(printf '%s\n' "$rtts" | nums_min)
	is "$(printf '%s\n' "$rtts" | grep -c .)" 5 "l$k: 5 of 5 pings answered"
	num_ge "${min:-0}" $want
	ok $? "l$k: RTT >= $want ms (min $min)"
done

is "$(tapd_ctl set 12 ab delay_ns=$((35 * MS)))" ok "set names links by their id (12)"
min=$(ping_rtts "$NS_A" "10.231.2.2" 5 0.02 | nums_min)
num_ge "${min:-0}" 60
ok $? "l2 after set: RTT >= 35 + 25 ms (min $min)"
tapd_stop
ok $? "the daemon exits on SIGTERM"

# The environment that gridemu's daemon inherits sets the defaults.
GRIDBED_TAPD_THREADS=1 GRIDBED_TAPD_SPIN_BUDGET=50 tapd_start env1 "$TAPD_TMP/m.json"
ok $? "GRIDBED_TAPD_THREADS=1 GRIDBED_TAPD_SPIN_BUDGET=50: the daemon starts"
s=$(tapd_ctl stats)
is "$(tapd_stat workers.0.links "$s")/$(tapd_stat workers.1.links "$s")" 3/undef \
	"GRIDBED_TAPD_THREADS=1: one worker carries the 3 links"
like "$(cat "$TAPD_LOG")" 'spin budget 50 %' "GRIDBED_TAPD_SPIN_BUDGET=50: the log says so"
tapd_stop
GRIDBED_TAPD_THREADS=1 tapd_start env2 "$TAPD_TMP/m.json" --threads 2
is "$(tapd_stat workers.1.links)" 1 "--threads 2 wins over GRIDBED_TAPD_THREADS=1"
tapd_stop
GRIDBED_TAPD_SPIN_BUDGET=101 tapd_start env3 "$TAPD_TMP/m.json"
like "$TAPD_READY" "GRIDBED_TAPD_SPIN_BUDGET: '101' is not a percentage in \\[0, 100\\]" \
	"a bad GRIDBED_TAPD_SPIN_BUDGET is refused with one line"

done_testing
