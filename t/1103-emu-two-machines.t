#!/usr/bin/env bash
# One grid across two machines at full size (issue 17, docs/scale-out.md,
# partition.h): teragrid over two namespaced "machines" (lib-machines.sh)
# under the tap backend, SDSC, NCSA and the hubs LA and CHI on the first,
# ANL and PSC on the second, so CHI-ANL and CHI-PSC are VXLANs over the
# underlay.  Checked, with ping, iperf3 and the kernel's interface counters
# as witnesses:
#   - every host pair pings, across the machines too;
#   - the fastest RTT of c2-1 -> c8-1 is within 2 % of the configured 67.2 ms
#     (the median within 10 %); UDP offered at 30 Mbit/s arrives at 95-101 %
#     of the 20 Mbit/s bottleneck (the path is shaped), and one TCP flow
#     carries 50-101 % of it in steady state (emulator/bench/fidelity.sh
#     measures the 93 % target on a quiet box);
#   - a 64-rank MPI broadcast launched on the first machine runs ranks on
#     both, every rank gets the right bytes, and the VXLANs carry them;
#   - the machines' own networks gain no device, the host's none either, and
#     `down` on both sides leaves no namespace or run directory behind.
# t/1011 checks bad input and the commands on a small grid.
source "$(dirname "$0")/lib-netns.sh"
source "$(dirname "$0")/lib-machines.sh"
machines_require iperf3 ping jq

T=$TOPOS/teragrid.yaml
before=$(root_snapshot)
machines_up || bail "cannot build the underlay"
m1_before=$(m1_links)

# ------------------------------------------------------------ up on both
out=$(ga up "$T" --part SDSC,NCSA,LA,CHI --peer "$PEER2" --peer-prefix "$B" 2>&1)
is $? 0 "machine 1 builds SDSC, NCSA, LA and CHI" || diag "$out"
out=$(gb up "$T" --part ANL,PSC --peer "$PEER1" --peer-prefix "$A" 2>&1)
is $? 0 "machine 2 builds ANL and PSC" || diag "$out"
is "$(ip netns list | grep -cE "^$A-")" $((40 + 5 + 2 + 2 + 2)) \
	"machine 1 has its 40 hosts, 5 switches, 2 routers, 2 hubs, mgmt and edge"
is "$(m1_links)" "$m1_before" "the machine's own network gained no device (VXLANs live in the grid's)"
is "$(ga link show | awk '$1 == "CHI-PSC" {print $2, $3}' | paste -sd,)" "CHI>PSC d76,PSC>CHI peer" \
	"link show: CHI>PSC is shaped here, PSC>CHI on the peer"

# host NAME -> "netns data-address", from machine 1's status (which knows both)
mapfile -t rows < <(ga status | awk 'NR>2 && NF==6 {print $1, $4, $5}')
is "${#rows[@]}" 64 "status lists all 64 hosts, the peer's with the peer's namespaces"
addr_of() { printf '%s\n' "${rows[@]}" | awk -v h="$1" '$1 == h {print $3}'; }

# ------------------------------------------------------------ every pair pings
addrs=$(printf '%s\n' "${rows[@]}" | awk '{print $3}' | paste -sd' ')
tmp=$(mktemp -d /tmp/gridbed-2m.XXXXXX)
for r in "${rows[@]}"; do
	set -- $r
	ip netns exec "$2" sh -c "for a in $addrs; do [ \$a = $3 ] || ping -c1 -W5 -q \$a >/dev/null 2>&1 || echo $1 \$a; done" >"$tmp/$1" &
done
wait
fails=$(cat "$tmp"/* | wc -l)
is "$fails" 0 "all 4032 ordered host pairs ping" || diag "$(cat "$tmp"/* | head -5)"

# ------------------------------------------------------------ c2-1 -> c8-1
c81=$(addr_of c8-1)
rtts=$(ip netns exec "$A-c2-1" ping -n -c 20 -i 0.2 "$c81" | sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p')
rtt=$(printf '%s\n' "$rtts" | sort -g | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : ""}')
rmin=$(printf '%s\n' "$rtts" | sort -g | head -1)
# configured: 2 x (0.05 + 0.25 + 2 + 25 + 6 + 0.25 + 0.05) ms (teragrid.yaml).
# The fastest echo met no scheduling delay on the 2-core box: it shows the
# delay line's precision (2 %, issue 16).  The median moves with the box's
# load (a CI run read 68.6 ms, +2.1 %): it must only not be far off; the
# 2 % figure for it is emulator/bench/fidelity.sh's to print, on a quiet box.
ok "$(awk -v r="$rmin" -v m="$rtt" 'BEGIN {d = r - 67.2; exit !(d <= 1.344 && d >= -1.344 && m <= 67.2 * 1.1)}'; echo $?)" \
	"c2-1 -> c8-1 fastest RTT $rmin ms is within 2 % of 67.2 ms, the median $rtt ms within 10 %" ||
	diag "RTTs: $(printf '%s ' $rtts)"
ip netns exec "$B-c8-1" iperf3 -s -1 -D -p 5399 -B "$c81" || diag "iperf3 server did not start"
wait_until 5 tcp_listening "$B-c8-1" 5399
ip netns exec "$A-c2-1" iperf3 -c "$c81" -p 5399 -t 12 -O 2 --json >"$tmp/iperf.json" 2>&1
steady=$(jq '[.intervals[].sum.bits_per_second] | .[length/2|floor:] | add/length/1e6' "$tmp/iperf.json")
# One TCP flow crosses the VXLAN and fills most of the 20 Mbit/s
# bottleneck, never more.  How much of it depends on cubic's sawtooth and on
# the box: 93-101 % on a quiet box (emulator/bench/fidelity.sh prints that
# figure), 92 % once in a fresh-clone CI run (session 21) and 81 % in
# another (session 34) as the 67 ms path met the VM's scheduling gaps.  So
# TCP must only carry at least half the rate here, and the shaper's own
# precision is witnessed without TCP: UDP offered at 30 Mbit/s arrives at
# 95-101 % of the 20, counted in frames.
ok "$(awk -v s="$steady" 'BEGIN {exit !(s >= 0.5 * 20 && s <= 1.01 * 20)}'; echo $?)" \
	"c2-1 -> c8-1 TCP steady state $steady Mbit/s is 50-101 % of 20 Mbit/s"
ip netns exec "$B-c8-1" iperf3 -s -1 -D -p 5398 -B "$c81" || diag "iperf3 server did not start"
wait_until 5 tcp_listening "$B-c8-1" 5398
ip netns exec "$A-c2-1" iperf3 -c "$c81" -p 5398 -u -b 30M -l 1200 -t 6 --json \
	>"$tmp/udp.json" 2>&1
# the shaper counts whole frames: 1200 bytes of payload travel in 1242
# (UDP 8, IPv4 20, Ethernet 14), so 96.6 % of the rate is the most iperf3 sees
udp=$(jq '.end.sum_received.bits_per_second / 1e6 * 1242 / 1200' "$tmp/udp.json" 2>/dev/null)
ok "$(awk -v s="$udp" 'BEGIN {exit !(s >= 0.95 * 20 && s <= 1.01 * 20)}'; echo $?)" \
	"c2-1 -> c8-1 UDP at 30 Mbit/s arrives at ${udp:-?} Mbit/s in frames, 95-101 % of 20 Mbit/s" ||
	diag "$(head -c 600 "$tmp/udp.json")"

# ------------------------------------------------------------ MPI across
if command -v mpirun >/dev/null && [ -x "$GRIDBED_BUILD/emulator/mpitest/mpi_bcast" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash
	vx_tx() { ip netns exec "$1-edge" cat /sys/class/net/"$2"/statistics/tx_bytes; }
	a0=$(vx_tx "$A" v75); b0=$(vx_tx "$B" v76)
	out=$(ga mpirun --timeout 300 -- "$GRIDBED_BUILD/emulator/mpitest/mpi_bcast" 1048576 0 2>&1)
	is $? 0 "a 64-rank 1 MiB MPI_Bcast from c1-1 across the two machines succeeds" || diag "$out"
	like "$out" "bcast 1048576 from 0: 64/64 ranks ok" "every rank got the right bytes"
	a1=$(vx_tx "$A" v75); b1=$(vx_tx "$B" v76)
	ok "$([ $((a1 - a0)) -ge 1048576 ]; echo $?)" \
		"machine 1's VXLAN to ANL carried the message ($((a1 - a0)) bytes)"
	ok "$([ $((b1 - b0)) -gt 0 ]; echo $?)" \
		"machine 2's VXLAN from PSC carried the acknowledgements ($((b1 - b0)) bytes)"
else
	skip 4 "OpenMPI or the MPI test programs are missing"
fi
rm -rf "$tmp"

# ------------------------------------------------------------ down
is "$(m1_links)" "$m1_before" "the machine's own network is as before"
machines_down
is "$(root_snapshot)" "$before" "the host's root namespace is untouched"
done_testing
