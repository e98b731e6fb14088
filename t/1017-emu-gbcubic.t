#!/usr/bin/env bash
# 1017-emu-gbcubic: on a dilated grid the hosts' cubic runs as gbcubic,
# CUBIC on the topology's clock (emulator/grid/gbcubic.h).  `gridemu up
# --dilate K` registers it with the kernel and gives each host namespace
# its K in gbcubic's map; the data routes name it; a real connection runs
# it; `--kernel-cubic` keeps the kernel's; a topology may name gbcubic
# itself, undilated too; `down` removes the grid's
# namespaces from the map, also those a crash left, and gbcubic leaves the
# kernel with the last grid that used it.  Whether its windows follow the
# topology's clock is a benchmark's question, not a test's
# (emulator/bench/rto-dilation.sh).  Other tests may hold dilated grids at
# the same time, so "the last grid" is checked as a consistency: gbcubic is
# registered exactly while its map has entries.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd jq
require_cmd bpftool
require_cmd python3

P2=${GB_PREFIX}g
tmp=$(mktemp -d /tmp/gb-1017.XXXXXX)
trap 'st=$?; GRIDBED_PREFIX=$P2 "$GRIDEMU" down >/dev/null 2>&1; rm -rf "$tmp" "${GRIDBED_RUNDIR:?}/$P2"; (exit $st); gb_cleanup' EXIT
avail() { cat /proc/sys/net/ipv4/tcp_available_congestion_control; }
# the newest map named gb_cubic_dilate (an unregistered one lingers a moment)
map_id() { bpftool -j map list | jq '[.[] | select(.name == "gb_cubic_dilate")] | max_by(.id) | .id // empty'; }
# the map's key for namespace inode INO: its 4 bytes, little-endian, into array KEY
ino_key() { read -ra KEY <<<"$(printf '%08x' "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)/0x\4 0x\3 0x\2 0x\1/')"; }
# K x 1000 that gbcubic's map holds for namespace NS, or "none"
map_k() {
	local id
	id=$(map_id); ino_key "$(stat -L -c %i "/run/netns/$1")"
	[ -n "$id" ] && bpftool -j map lookup id "$id" key "${KEY[@]}" 2>/dev/null |
		jq -r '.formatted.value // (.value | map(ltrimstr("0x")) | reverse | join("") | "0x" + . )' |
		{ read -r v; [ -n "$v" ] && echo $((v)) || echo none; } || echo none
}
entries() { local id; id=$(map_id); [ -n "$id" ] && bpftool -j map dump id "$id" | jq length || echo 0; }

plan 17

out=$("$GRIDEMU" up --kernel-cubic "$TOPOS/two-clusters.yaml" 2>&1); st=$?
is "$st $(wc -l <<<"$out")" "2 1" "--kernel-cubic without --dilate: exit 2, one line"
is "$(prefix_netns | wc -l)" 0 "  and nothing was created"

"$GRIDEMU" up --dilate 4 "$TOPOS/two-clusters.yaml" >"$tmp/up.out" 2>&1 ||
	skip_all "the grid cannot come up here: $(head -c 200 "$tmp/up.out")"
if grep -q 'not gbcubic: ' "$tmp/up.out"; then
	skip_all "no gbcubic here: $(sed -n 's/.*not gbcubic: //p' "$tmp/up.out" | head -c 200)"
fi
like "$(cat "$tmp/up.out")" "hosts' cubic runs as gbcubic, on the topology's clock" \
	"up --dilate 4 says the hosts' cubic runs as gbcubic"
like " $(avail) " " gbcubic " "the kernel lists gbcubic among its congestion controls"
like "$(ip -n "$GB_PREFIX-a-1" route show 10.250.0.0/16)" 'congctl gbcubic' \
	"a host's data route names gbcubic (ip, the witness)"
like "$("$GRIDEMU" status | grep '^tcp: ')" '^tcp: gbcubic, ' "status says the hosts run gbcubic"
is "$(map_k "$GB_PREFIX-a-1") $(map_k "$GB_PREFIX-b-4")" "4000 4000" \
	"gbcubic's map gives hosts a-1 and b-4 the clock factor 4 (x 1000)"

# a real connection across the wide area runs it
dst=$("$GRIDEMU" status --json | jq -r '.hosts[] | select(.name == "b-1") | .data')
ip netns exec "$GB_PREFIX-b-1" timeout 20 python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 5303)); s.listen(1); c, _ = s.accept()
while c.recv(1 << 16): pass' &
srv=$!
wait_until 10 tcp_listening "$GB_PREFIX-b-1" 5303
ss_out=$(ip netns exec "$GB_PREFIX-a-1" timeout 20 python3 -c '
import socket, subprocess, sys
c = socket.create_connection((sys.argv[1], 5303)); c.sendall(b"x" * (1 << 20))
print(subprocess.run(["ss", "-tin", "dst", sys.argv[1]], capture_output=True, text=True).stdout)
c.close()' "$dst")
wait "$srv"
like "$ss_out" 'gbcubic' "a connection a-1 -> b-1 carries 1 MiB with gbcubic (ss -ti)"

# a second dilated grid shares it, with its own factor
GRIDBED_PREFIX=$P2 "$GRIDEMU" up --dilate 2 "$TOPOS/two-clusters.yaml" >/dev/null 2>&1 ||
	bail "the second grid cannot come up"
is "$(map_k "$P2-a-1")" 2000 "a second grid at x2: its hosts get factor 2 (x 1000)"
"$GRIDEMU" down >/dev/null
is "$(map_k "$GB_PREFIX-a-1" 2>/dev/null; map_k "$P2-a-1")" "none
2000" "down of the first: its namespaces leave the map, the second's stay"
like " $(avail) " " gbcubic " "  and gbcubic stays registered for the second"

# a crash: the namespaces vanish without down; the next down prunes them
for ns in $(ip netns list | awk '{print $1}' | grep "^$P2-"); do
	echo "$ns" "$(stat -L -c %i "/run/netns/$ns")"
done >"$tmp/inos"
while read -r ns _; do ip netns del "$ns"; done <"$tmp/inos"
GRIDBED_PREFIX=$P2 "$GRIDEMU" down >/dev/null 2>&1
left=0
id=$(map_id)
while read -r _ ino; do
	ino_key "$ino"
	[ -n "$id" ] && bpftool map lookup id "$id" key "${KEY[@]}" >/dev/null 2>&1 && left=$((left + 1))
done <"$tmp/inos"
is "$left" 0 "after a crash (namespaces deleted by hand), down drops their entries"
n=$(entries); reg=0; grep -qw gbcubic <<<"$(avail)" && reg=1
is "$reg" "$([ "$n" -gt 0 ] && echo 1 || echo 0)" \
	"gbcubic is registered exactly while its map has entries ($n, other tests' grids)"

"$GRIDEMU" up --dilate 2 --kernel-cubic "$TOPOS/two-clusters.yaml" >"$tmp/up2.out" 2>&1 ||
	bail "cannot bring the grid up with --kernel-cubic"
like "$(ip -n "$GB_PREFIX-a-1" route show 10.250.0.0/16)" 'congctl cubic' \
	"--kernel-cubic: the routes name the kernel's cubic"
like "$(cat "$tmp/up2.out")" "note: hosts run cubic, .*; not gbcubic: --kernel-cubic" \
	"  and up notes that its clock is the machine's"
"$GRIDEMU" down >/dev/null

# a topology that names gbcubic gets it undilated too, with factor 1
sed 's/^sites:/tcp: {congestion: gbcubic}\nsites:/' "$TOPOS/two-clusters.yaml" >"$tmp/gbc.yaml"
"$GRIDEMU" up "$tmp/gbc.yaml" >/dev/null 2>&1 || bail "cannot bring up a topology that names gbcubic"
like "$(ip -n "$GB_PREFIX-a-1" route show 10.250.0.0/16)" 'congctl gbcubic' \
	"congestion: gbcubic, undilated: the routes name gbcubic"
is "$(map_k "$GB_PREFIX-a-1")" 1000 "  with clock factor 1 (x 1000)"
