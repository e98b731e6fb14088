#!/usr/bin/env bash
# 1016-emu-calib-cache: `gridemu up` reuses a recent calibration of the same
# machine, delay line, pair and hop set instead of measuring it again
# (issue 46; emulator/grid/calib_cache.h), and says its age (up, status,
# status --json); the delay line subtracts the reused cost.  A changed key
# (the dilation, the delay line's binary), a stale entry (older than 600
# s), a load average that moved by more than 1, another boot, or `up
# --recalibrate` measure afresh, and the calibration says why.  A corrupt
# entry is one warning line, a fresh measurement and a repaired entry,
# never a failure.  The test keeps its calibrations in its own run
# directory, so that no other test's count, and removes it.  Nothing is
# timed.  Tap backend only.
GRIDBED_RUNDIR=$(mktemp -d /run/gb-1016.XXXXXX 2>/dev/null || mktemp -d /tmp/gb-1016r.XXXXXX)
export GRIDBED_RUNDIR
source "$(dirname "$0")/lib-netns.sh"
tmp=$(mktemp -d /tmp/gb-1016.XXXXXX)
# gb_cleanup takes the grid down; the run directory with the calibrations
# goes after it
trap 'st=$?; rm -rf "$tmp"; (exit $st); (gb_cleanup); rm -rf "$GRIDBED_RUNDIR"; exit $st' EXIT
require_netns
require_gridemu
require_cmd jq

TOPO=$TOPOS/two-clusters.yaml
TAPD=${GRIDEMU%/gridemu}/gridemu-tapd
ctl=$GRIDBED_RUNDIR/$GB_PREFIX/tapd.sock
cache_dir=$GRIDBED_RUNDIR/calibration

up() { # up [OPTIONS]: a fresh grid; its stdout in $out, stderr in $err, status in $st
	"$GRIDEMU" down >/dev/null 2>&1
	out=$("$GRIDEMU" up --backend tap "$@" "$TOPO" 2>"$tmp/err"); st=$?
	err=$(cat "$tmp/err")
}
cal() { "$GRIDEMU" status --json | jq -r ".calibration.$1"; }
entry() { ls "$cache_dir"/tap-*.json 2>/dev/null | head -1; }
# edit JQ-FILTER: change the cache entry (one: two-clusters at k = 1)
edit() { jq "$1" "$(entry)" > "$tmp/e.json" && mv "$tmp/e.json" "$(entry)"; }
# the load average now, so that the entry passes the load rule
load_now() { edit ".load1 = $(cut -d' ' -f1 /proc/loadavg)"; }

up
[ "$st" = 0 ] || skip_all "the tap backend cannot come up here: ${err:0:200}"
plan 26

is "$(cal reused)" false "first up: measured (nothing to reuse)"
is "$(cal cache)" "no earlier calibration of this pair" "  and says why"
is "$(ls "$cache_dir" | grep -c '^tap-[0-9a-f]*\.json$')" 1 "  kept as one entry in the run directory's calibration/"
pass=$(cal pass_ns)
when=$(cal measured_unix)
is "$(jq -r '[.key.src, .key.dst, (.key.out | length), (.key.back | length)] | join(" ")' "$(entry)")" \
	"a-1 a-2 2 2" "  keyed by the pair and its hop set, out and back"

load_now
up
is "$(cal reused) $(cal pass_ns) $(cal measured_unix)" "true $pass $when" \
	"second up: the same cost reused, with its measurement's time"
like "$out" "^delay line: [0-9]+ us per link traversal, subtracted from every delay \\(measured at up, a-1 -> a-2: .*; load [0-9.]+; measured [0-9]+ s ago, reused\\)$" \
	"  up says its age"
like "$("$GRIDEMU" status)" "; measured [0-9]+ s ago, reused\\)" "  status too"
is "$("$TAPD" --control "$ctl" --send stats | jq .pass_ns)" "$pass" "  the delay line subtracts it"
is "$(grep -v 'below the delay line' <<<"$err")" "" "  no warning (but the links below the cost)"

load_now
up --recalibrate
is "$(cal reused) $(cal cache)" "false asked to measure afresh" "up --recalibrate measures afresh"
like "$out" "\\(measured at up, a-1 -> a-2: [^;]*; load [0-9.]+\\)$" "  its line has no age"

load_now
up --dilate 2
is "$(cal reused) $(cal cache)" "false no earlier calibration of this pair" \
	"another dilation: another key, measured afresh"
is "$(ls "$cache_dir" | wc -l)" 2 "  and kept beside the first"
rm -f "$(ls -t "$cache_dir"/tap-*.json | head -1)"      # back to one entry

cp "$TAPD" "$tmp/gridemu-tapd"
load_now
GRIDBED_TAPD=$tmp/gridemu-tapd up
is "$(cal reused) $(cal cache)" "false the delay line's binary changed" \
	"another delay line binary: measured afresh"
load_now
up
is "$(cal reused) $(cal cache)" "false the delay line's binary changed" "  and back again"

edit ".measured_unix -= 700"
load_now
up
like "$(cal reused) $(cal cache)" "^false the last one was measured 7[0-9][0-9] s ago, not within 600 s$" \
	"an entry older than 600 s: measured afresh"

edit ".load1 = $(awk '{print $1 + 3}' /proc/loadavg)"
up
like "$(cal reused) $(cal cache)" "^false the load average was [0-9.]+ then and is [0-9.]+ now, more than 1 apart$" \
	"a load average 3 higher then: measured afresh"

edit '.machine.boot_id = "00000000-0000-0000-0000-000000000000"'
load_now
up
is "$(cal reused) $(cal cache)" "false the machine rebooted" "another boot: measured afresh"

f=$(entry)
printf '{"format": "gridbed-calibration-cache", "version": 1, "key": ' > "$f"
up
is "$st" 0 "a truncated entry: up still works"
like "$err" "^gridemu: warning: the calibration cache '$f' is unreadable \\(.*\\); measured afresh$" \
	"  one warning line naming the file"
is "$(grep -c 'calibration cache' <<<"$err")" 1 "  only one"
is "$(cal reused)" false "  measured afresh"
jq -e '.format == "gridbed-calibration-cache" and .pass_ns >= 0' "$f" >/dev/null
ok $? "  and the entry is whole again"

edit '.pass_ns = "fast"'
up
like "$st $(grep 'calibration cache' <<<"$err")" "^0 gridemu: warning: the calibration cache '$f' is not one \\(a field is missing or wrong\\); measured afresh$" \
	"an entry with a wrong field: the same"

out=$("$GRIDEMU" up --backend tap --recalibrate --no-calibrate "$TOPO" 2>&1); st=$?
is "$st:$out" "2:gridemu: up: --recalibrate and --no-calibrate exclude each other" \
	"--recalibrate with --no-calibrate: refused in one line"
t "down" "$GRIDEMU" down
