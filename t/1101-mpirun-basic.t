#!/usr/bin/env bash
# gridemu mpirun on two-clusters: rank i runs inside host i's namespace with
# its data address and the job's environment; the rank map says the same;
# MPI traffic crosses the shaped WAN link and not the management network
# (witness: the kernel's interface counters); --hosts and -n pick and order
# the hosts; bad input is refused with status 2; nothing is left behind.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd mpirun
MPITEST=$GRIDBED_BUILD/emulator/mpitest
[ -x "$MPITEST/mpi_hello" ] || skip_all "MPI test programs not built (no MPI found by cmake)"

# Rank maps stay in the run directory for the results; the test removes its own.
rm_maps() { rm -f "$GRIDBED_RUNDIR/$GB_PREFIX"/mpirun-*.json; }
trap 'rm_maps; gb_cleanup' EXIT

out=$("$GRIDEMU" up "$TOPOS/two-clusters.yaml" 2>&1) ||
	{ diag "$out"; bail "cannot bring up two-clusters"; }

# Topology order, from status (the witness for names and addresses).
mapfile -t hosts < <("$GRIDEMU" status | awk 'NR>2 && NF==6 {print $1}')
mapfile -t datas < <("$GRIDEMU" status | awk 'NR>2 && NF==6 {print $5}')
is "${#hosts[@]}" 8 "two-clusters has 8 hosts"

# field KEY FILE: the string values of KEY in the rank map, in rank order.
field() { grep -o "\"$1\": \"[^\"]*\"" "$2" | sed 's/.*: "\(.*\)"/\1/' | paste -sd' '; }

# expect_hello OUTPUT HOSTS...: rank i on host i with host i's data address.
expect_hello() {
	local out=$1; shift
	local n=$# i=0 bad=0 h
	for h in "$@"; do
		local k want
		for k in "${!hosts[@]}"; do [ "${hosts[$k]}" = "$h" ] && want=${datas[$k]}; done
		printf '%s\n' "$out" | grep -qx "rank $i of $n host $h data $want job .*" ||
			{ bad=1; diag "no line 'rank $i of $n host $h data $want'"; }
		i=$((i + 1))
	done
	[ "$(printf '%s\n' "$out" | grep -c '^rank ')" = "$n" ] || bad=1
	return $bad
}

# ---------------------------------------------------------------- 8 ranks
out=$("$GRIDEMU" mpirun --verbose -- "$MPITEST/mpi_hello" 2>"$GRIDBED_RUNDIR/err.$$"); st=$?
err=$(cat "$GRIDBED_RUNDIR/err.$$"); rm -f "$GRIDBED_RUNDIR/err.$$"
is "$st" 0 "an 8-rank hello succeeds" || diag "$err"
expect_hello "$out" "${hosts[@]}"
ok $? "rank i runs on host i (topology order) and sees host i's data address"

map=$(printf '%s\n' "$err" | sed -n 's/^gridemu mpirun: rank map //p')
job=$(printf '%s\n' "$err" | sed -n 's/^gridemu mpirun: job \([^:]*\): 8 ranks.*/\1/p')
like "$map" "^$GRIDBED_RUNDIR/$GB_PREFIX/mpirun-.*\.json$" "--verbose prints the rank map's path"
ok "$([ -s "$map" ]; echo $?)" "the rank map exists"
is "$(field host "$map")" "${hosts[*]}" "the rank map lists the hosts in rank order"
is "$(field data "$map")" "${datas[*]}" "and their data addresses"
is "$(field job "$map")" "$job" "and the job id"
like "$(cat "$map")" '"result": "ok"' "and records that the job succeeded"
envs=$(printf '%s\n' "$out" | grep '^rank ' |
	sed 's/.* job \(.*\) prefix \(.*\) map \(.*\)/\1 \2 \3/' | sort -u)
is "$envs" "$job $GB_PREFIX $map" "every rank sees GRIDBED_JOB, GRIDBED_PREFIX and GRIDBED_RANKMAP"
ok "$([ ! -e "${map%.json}" ]; echo $?)" "the job directory is removed after the job"

# ------------------------------------------- the data plane carries MPI data
wan_if=$("$GRIDEMU" link show | awk '$2 == "siteA>siteB" {print $3}')
like "$wan_if" '^d[0-9]+$' "the WAN link's interface is known ($wan_if)"
wan_tx() { ip netns exec "$GB_PREFIX-siteA" cat "/sys/class/net/$wan_if/statistics/tx_bytes"; }
mgmt_bytes() {
	ip netns exec "$GB_PREFIX-mgmt" sh -c 'cat /sys/class/net/h*/statistics/[rt]x_bytes' |
		awk '{s += $1} END {print s}'
}
w0=$(wan_tx); m0=$(mgmt_bytes)
out=$("$GRIDEMU" mpirun -- "$MPITEST/mpi_bcast" 1048576 0 2>&1); st=$?
w1=$(wan_tx); m1=$(mgmt_bytes)
is "$st" 0 "a 1 MiB MPI_Bcast from a-1 over 8 ranks succeeds" || diag "$out"
like "$out" "bcast 1048576 from 0: 8/8 ranks ok" "every rank received the right bytes"
ok "$([ $((w1 - w0)) -ge 1048576 ]; echo $?)" \
	"the WAN link siteA>siteB carried at least the payload ($((w1 - w0)) bytes)"
ok "$([ $((m1 - m0)) -lt 524288 ]; echo $?)" \
	"the management network carried less than half of it ($((m1 - m0)) bytes: launch only)"

# ------------------------------------------ the TCP transport's protocol
# No emulated put (mpirun_launch.c): its FIN can wait for the sender's next
# MPI call.  What Open MPI itself reads in a rank's environment:
flags() {
	"$GRIDEMU" mpirun -n 1 "$@" -- ompi_info --param btl tcp --level 9 --parsable 2>&1 |
		sed -n 's/^mca:btl:tcp:param:btl_tcp_flags:value://p'
}
is "$(flags)" "send,inplace,need-ack,need-csum" "ranks' TCP transport sends fragments only (no put)"
is "$(flags --mca btl_tcp_flags send,put,inplace)" "send,put,inplace" \
	"a user's --mca btl_tcp_flags replaces the default"

# --------------------------------------------------------- --hosts and -n
out=$("$GRIDEMU" mpirun --hosts b-3,a-2,b-1,a-4 -- "$MPITEST/mpi_hello" 2>&1); st=$?
is "$st" 0 "--hosts b-3,a-2,b-1,a-4 succeeds" || diag "$out"
expect_hello "$out" b-3 a-2 b-1 a-4
ok $? "ranks follow the order of --hosts"
map=$(ls -t "$GRIDBED_RUNDIR/$GB_PREFIX"/mpirun-*.json | head -1)
is "$(field host "$map")" "b-3 a-2 b-1 a-4" "the rank map follows it too"

out=$("$GRIDEMU" mpirun -n 3 -- "$MPITEST/mpi_hello" 2>&1); st=$?
is "$st" 0 "-n 3 succeeds" || diag "$out"
expect_hello "$out" "${hosts[@]:0:3}"
ok $? "-n 3 runs on the first three hosts"

# ------------------------------------------------------------- bad input
out=$("$GRIDEMU" mpirun -n 9 -- "$MPITEST/mpi_hello" 2>&1); st=$?
is "$st" 2 "-n 9 on 8 hosts is a usage error"
like "$out" "-n 9 is more than the 8 hosts" "and says why"
out=$("$GRIDEMU" mpirun --hosts a-1,nosuch -- "$MPITEST/mpi_hello" 2>&1); st=$?
is "$st" 2 "an unknown host in --hosts is a usage error"
like "$out" "unknown host 'nosuch'" "and names it"
out=$("$GRIDEMU" mpirun --hosts a-1,a-1 -- "$MPITEST/mpi_hello" 2>&1); st=$?
is "$st" 2 "a host given twice is a usage error"
out=$(GRIDBED_PREFIX=${GB_PREFIX}x "$GRIDEMU" mpirun -- "$MPITEST/mpi_hello" 2>&1); st=$?
is "$st" 2 "no grid up is a usage error"
like "$out" "no grid with prefix '${GB_PREFIX}x' is up" "and says so"
out=$("$GRIDEMU" mpirun 2>&1); st=$?
is "$st" 2 "no program is a usage error"
out=$("$GRIDEMU" mpirun --help); st=$?
is "$st" 0 "--help succeeds"
like "$out" "usage: gridemu mpirun" "and prints the usage"

# ---------------------------------------------------------- nothing left
left=0
for ns in $(prefix_netns); do
	left=$((left + $(ip netns pids "$ns" | wc -l)))
done
is "$left" 0 "no process is left in the grid's namespaces"
is "$(find "$GRIDBED_RUNDIR/$GB_PREFIX" -maxdepth 1 -type d -name 'mpirun-*' | wc -l)" 0 \
	"no job directory is left"
done_testing
