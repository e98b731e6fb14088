#!/usr/bin/env bash
# 2004-tapd-control.t - gridemu-tapd: the control socket (set, ping, quit,
# errors), and refusals at startup that leave nothing behind.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-tapd.sh"
tapd_begin 63

# ---- set changes the delay at run time -------------------------------------------
tapd_config "$TAPD_TMP/c.json" 1 "$(tapd_dir_json $((10 * MS)) 0 0 1000)" \
	"$(tapd_dir_json $((10 * MS)) 0 0 1000)"
tapd_start c "$TAPD_TMP/c.json" || bail "daemon did not start: $TAPD_READY"
tapd_up || bail "cannot configure the link"
main_pid=$TAPD_PID main_ctl=$TAPD_CTL main_pidfile=$TAPD_PIDFILE

min=$(ping_rtts "$NS_A" "$ADDR_B" 5 0.05 | nums_min)
num_ge "${min:-0}" 20
ok $? "10 ms each way: RTT >= 20 ms (min $min)"
is "$(tapd_ctl set 0 ab delay_ns=$((30 * MS)))" ok "set 0 ab delay_ns=30000000"
is "$(tapd_ctl set 0 ba delay_ns=$((30 * MS)) jitter_ns=0 loss=0 limit=1000)" ok \
	"set 0 ba with every key"
min=$(ping_rtts "$NS_A" "$ADDR_B" 5 0.05 | nums_min)
num_ge "${min:-0}" 60
ok $? "30 ms each way after set: RTT >= 60 ms (min $min)"
is "$(tapd_stat links.0.ab.delay_ns)/$(tapd_stat links.0.ba.delay_ns)" \
	$((30 * MS))/$((30 * MS)) "stats report the new delays"

# ---- pass: the daemon's own cost per traversal, taken off every delay -------------------
is "$(tapd_stat pass_ns)" 0 "pass_ns is 0 unless configured"
is "$(tapd_ctl pass $((10 * MS)))" ok "pass 10000000"
is "$(tapd_stat pass_ns)/$(tapd_stat links.0.ab.delay_ns)" $((10 * MS))/$((30 * MS)) \
	"  stats show the pass and still the configured delay"
min=$(ping_rtts "$NS_A" "$ADDR_B" 5 0.05 | nums_min)
num_ge "${min:-0}" 40
ok $? "30 ms each way less 10 ms per traversal: RTT >= 40 ms (min $min)"
num_ge "${min:-0}" 55
ok $((! $?)) "  and below 55 ms (min $min)"
is "$(tapd_ctl pass 0)" ok "pass 0"

# ---- bad requests -----------------------------------------------------------------
bad() { # bad REQUEST REGEX
	local out st
	out=$(tapd_ctl "$1"); st=$?
	like "$out" "$2" "'$1' -> $out"
	is "$st" 1 "  and the client exits 1"
}
bad "bogus" "^err unknown request 'bogus'"
bad "set 9 ab delay_ns=1" "^err set: unknown link '9'"
bad "set 0 xy delay_ns=1" "^err set: direction 'xy'"
bad "set 0 ab delay_ns=-5" "^err set: delay_ns '-5' is not an integer"
bad "set 0 ab loss=1.5" "^err set: loss '1.5' is not a probability"
bad "set 0 ab limit=0" "^err set: limit '0' is not an integer in \[1, "
bad "set 0 ab foo=1" "^err set: unknown key 'foo'"
bad "set 0 ab" "^err set: usage"
bad "ping now" "^err unknown request"
bad "pass" "^err usage: pass <ns>"
bad "pass -1" "^err usage: pass <ns>"
bad "pass 1 2" "^err usage: pass <ns>"
out=$(tapd_ctl "set 0 ab delay_ns=5 loss=7")
like "$out" "^err set: loss '7'" "a request with one bad key is refused"
is "$(tapd_stat links.0.ab.delay_ns)" $((30 * MS)) "  and changes nothing (all or nothing)"
is "$(tapd_ctl ping)" pong "the daemon still answers after bad requests"

# ---- a second daemon on the same control socket ---------------------------------------
cat >"$TAPD_TMP/other.json" <<EOF
{ "links": [ { "id": 0, "name": "other",
    "a": {"netns": "/run/netns/$NS_A", "ifname": "o0"},
    "b": {"netns": "/run/netns/$NS_B", "ifname": "o0"} } ] }
EOF
TAPD_CTL=$main_ctl
setsid "$TAPD" --config "$TAPD_TMP/other.json" --control "$main_ctl" \
	--pidfile "$TAPD_TMP/other.pid" --foreground 2>"$TAPD_TMP/other.err" </dev/null
is "$?" 1 "a second daemon on the same control socket is refused"
like "$(cat "$TAPD_TMP/other.err")" "control socket '.*': another daemon is listening there" \
	"  with a message saying why"
ip -n "$NS_A" link show o0 >/dev/null 2>&1
ok $(( ! $? )) "  and its devices are gone"
is "$(tapd_ctl ping)" pong "the first daemon still answers"

# ---- quit -----------------------------------------------------------------------------
is "$(tapd_ctl quit)" ok "quit -> ok"
tapd_wait_gone "$main_pid"
ok $? "the daemon exits after quit"
[ ! -e "$main_pidfile" ] && [ ! -e "$main_ctl" ] && ! ip -n "$NS_A" link show l0 >/dev/null 2>&1
ok $? "pidfile, control socket and devices are gone"

# ---- refused configurations leave nothing ------------------------------------------------
# refused NAME REGEX DESCRIPTION: the config $TAPD_TMP/NAME.json must be refused with
# one line matching REGEX, on stderr (the log) and on the ready fd.
refused() {
	local name=$1 re=$2 desc=$3 lines ns left=
	tapd_start "$name" "$TAPD_TMP/$name.json"
	like "$TAPD_READY" "^Egridemu-tapd: $re" "$desc: refused on the ready fd"
	tapd_wait_gone "$TAPD_PID"
	lines=$(grep -c . "$TAPD_LOG")
	is "$lines:$(head -n1 "$TAPD_LOG")" "1:${TAPD_READY#E}" "  one line on stderr, the same"
	for ns in "$NS_A" "$NS_B"; do
		left+=$(ip -n "$ns" -o link show | grep -v ' lo:')
	done
	[ -z "$left" ] && [ ! -e "$TAPD_PIDFILE" ] && [ ! -e "$TAPD_CTL" ]
	ok $? "  no device, pidfile or control socket left${left:+: $left}"
}

printf '{ "links": [ }\n' >"$TAPD_TMP/syntax.json"
refused syntax "$TAPD_TMP/syntax.json:1:1[0-9]: " "a JSON syntax error (file:line:col)"

tapd_config "$TAPD_TMP/loss.json" 1 "$(tapd_dir_json 0 0 1.5 1000)" "$(tapd_dir_json 0 0 0 1000)"
refused loss "$TAPD_TMP/loss.json: links\[0\]\.ab\.loss: 1\.5 is not a probability" \
	"loss 1.5"

tapd_config "$TAPD_TMP/typo.json" 1 '{"dealy_ns": 5}' "$(tapd_dir_json 0 0 0 1000)"
refused typo "$TAPD_TMP/typo.json: links\[0\]\.ab: unknown key 'dealy_ns'" "a misspelt key"

cat >"$TAPD_TMP/dup.json" <<EOF
{ "links": [
  { "id": 3, "name": "one", "a": {"netns": "/run/netns/$NS_A", "ifname": "l0"},
    "b": {"netns": "/run/netns/$NS_B", "ifname": "l0"} },
  { "id": 3, "name": "two", "a": {"netns": "/run/netns/$NS_A", "ifname": "l1"},
    "b": {"netns": "/run/netns/$NS_B", "ifname": "l1"} } ] }
EOF
refused dup "$TAPD_TMP/dup.json: links\[1\]\.id: 3 is also the id of links\[0\]" "a duplicate id"

cat >"$TAPD_TMP/noent.json" <<EOF
{ "links": [
  { "id": 0, "name": "one", "a": {"netns": "/run/netns/$NS_A", "ifname": "l0"},
    "b": {"netns": "/run/netns/$NS_B", "ifname": "l0"} },
  { "id": 1, "name": "two", "a": {"netns": "/run/netns/$NS_A", "ifname": "l1"},
    "b": {"netns": "/run/netns/${GB_PREFIX}-nowhere", "ifname": "l1"} } ] }
EOF
refused noent "link 'two': cannot create tun 'l1' in /run/netns/${GB_PREFIX}-nowhere: No such file or directory" \
	"a missing namespace, after other devices were made"

# A name that exists is never taken over (TUNSETIFF would attach to it).
ip -n "$NS_B" tuntap add dev l0 mode tun || bail "cannot create a persistent tun"
tapd_start exist "$TAPD_TMP/c.json"
like "$TAPD_READY" "^Egridemu-tapd: link 'a-b': cannot create tun 'l0' in /run/netns/$NS_B: File exists" \
	"an existing device name is refused"
tapd_wait_gone "$TAPD_PID"
ip -n "$NS_A" link show l0 >/dev/null 2>&1
ok $(( ! $? )) "  the device already made in $NS_A is gone"
like "$(ip -n "$NS_B" -d link show l0)" "tun type tun pi off vnet_hdr off persist on" \
	"  the existing device is left as it was"
ip -n "$NS_B" tuntap del dev l0 mode tun

done_testing
