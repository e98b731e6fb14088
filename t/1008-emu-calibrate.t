#!/usr/bin/env bash
# 1008-emu-calibrate: the tap delay line's cost per link traversal is
# measured at `up` and subtracted from every delay (issue 16, "Per-hop
# accuracy"; emulator/grid/calibrate.h).  `up` says what it measured and warns,
# once, about links configured below it; `status` and `status --json` show
# it; the daemon holds it (stats pass_ns) while link parameters keep their
# configured values; `up --no-calibrate` subtracts nothing and status says
# so.  Nothing here is timed: the figures are the benchmark's
# (emulator/bench/hop-accuracy.sh).  Tap backend only.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd jq

tmp=$(mktemp -d /tmp/gb-1008.XXXXXX)
trap 'st=$?; rm -rf "$tmp"; (exit $st); gb_cleanup' EXIT
out=$("$GRIDEMU" up --backend tap "$TOPOS/two-clusters.yaml" 2>"$tmp/up.err") ||
	skip_all "the tap backend cannot come up here: $(head -c 200 "$tmp/up.err")"
TAPD=${GRIDEMU%/gridemu}/gridemu-tapd
ctl=$GRIDBED_RUNDIR/$GB_PREFIX/tapd.sock

plan 15

like "$out" "^delay line: [0-9]+ us per link traversal, subtracted from every delay \\(measured at up, a-1 -> a-2: " \
	"up says what it measured, on the root host and its cluster's next host"
st=$("$GRIDEMU" status --json)
pass=$(jq -r .calibration.pass_ns <<<"$st")
is "$(jq -r '[.calibration.src, .calibration.dst, .calibration.traversals, .calibration.config_ns] | join(" ")' <<<"$st")" \
	"a-1 a-2 4 80000" "status --json: the pair, 4 traversals, 80 us configured"
like "$pass" "^(0|[0-9]+000)$" "  pass_ns is a whole number of microseconds ($pass)"
jq -e '.calibration.before_s > 0 and .calibration.after_s > 0 and .calibration.self_s > 0' <<<"$st" >/dev/null
ok $? \
	"  the three medians are there"
is "$("$TAPD" --control "$ctl" --send stats | jq .pass_ns)" "$pass" \
	"the delay line subtracts what status shows"
is "$("$TAPD" --control "$ctl" --send stats | jq .links[0].ab.delay_ns)" 20000 \
	"  and a link's delay is still the configured 20 us"
like "$("$GRIDEMU" link show | grep '^a-1-a ' | head -1)" " 20us " "link show: still 20us"
below=$(jq '[.links[] | .ab, .ba | select(.delay_ms * 1e6 < '"$pass"')] | length' <<<"$st")
if [ "$below" -gt 0 ]; then
	like "$(cat "$tmp/up.err")" "^gridemu: warning: $below of 22 link directions have a delay below the delay line's" \
		"up warns about the $below link directions below it"
else
	is "$(grep -c 'warning: .* below the delay line' "$tmp/up.err")" 0 \
		"no link is below the cost ($pass ns): no warning"
fi
is "$(grep -c 'below the delay line' "$tmp/up.err")" "$([ "$below" -gt 0 ] && echo 1 || echo 0)" \
	"  once"
like "$("$GRIDEMU" status)" "^delay line: [0-9]+ us per link traversal" "status shows it"
t "down" "$GRIDEMU" down

out=$("$GRIDEMU" up --backend tap --no-calibrate "$TOPOS/two-clusters.yaml" 2>&1)
is "$(grep -c '^delay line' <<<"$out")" 0 "up --no-calibrate: nothing measured"
is "$("$TAPD" --control "$ctl" --send stats | jq .pass_ns)" 0 "  nothing subtracted"
is "$("$GRIDEMU" status --json | jq -c .calibration)" null "  status --json: calibration null"
like "$("$GRIDEMU" status)" "^delay line: not calibrated \\(up --no-calibrate\\)" "  status says so"
