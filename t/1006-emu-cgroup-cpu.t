#!/usr/bin/env bash
# 1006-emu-cgroup-cpu - heterogeneous processors: a cluster's `cpu` share
# becomes a CPU quota on each of its hosts (emulator/grid/cgroup.h).
#   - up creates MOUNT/gridbed-P/HOST for the hosts of the cluster with a
#     share, with quota = share x period, and records the interface in
#     state.json; hosts of a cluster without a share get none;
#   - a process run with `gridemu exec` and every rank of `gridemu mpirun`
#     sit in their host's cgroup (read back from /proc/PID/cgroup and the
#     cgroup's own quota files: the kernel's view, not ours);
#   - the quota is enforced: a busy loop on a quota'd host is throttled
#     (the kernel's nr_throttled counter, not a timing);
#   - down removes the cgroups, also after a crash (no state file), and a
#     crashed campaign's experiment groups (gridbed-P-exp/{work,planner} on
#     the cgroup2 mount, cgroup.h's gb_cgroup_exp_enter());
#   - with no controller (GRIDBED_CPUCTL=none) up warns on one line and
#     state.json says "none: ...", and nothing is created.
# Skips when the kernel offers neither cgroup v2 cpu.max nor v1
# cpu.cfs_quota_us.
source "$(dirname "$0")/lib-netns.sh"
require_netns
require_gridemu
require_cmd jq
T=$(mktemp -d /tmp/gb9012.XXXXXX)
trap 'rm -rf "$T"; gb_cleanup' EXIT

# The witness: find the controller from the mount table ourselves.
# mounts FSTYPE: "MOUNTPOINT SUPEROPTIONS" of each mount of that type
mounts() {
	awk -v t="$1" '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == t)
		print $5, $(i + 3); break } }' /proc/self/mountinfo
}
kind= mnt=
while read -r m _; do
	if grep -qw cpu "$m/cgroup.controllers" 2>/dev/null; then kind=v2 mnt=$m; break; fi
done < <(mounts cgroup2)
if [ -z "$kind" ]; then
	while read -r m o; do
		case ",$o," in *,cpu,*) [ -w "$m/cpu.cfs_quota_us" ] && { kind=v1 mnt=$m; break; } ;; esac
	done < <(mounts cgroup)
fi
[ -n "$kind" ] || skip_all "no cgroup cpu controller (neither v2 cpu.max nor v1 cpu.cfs_quota_us)"
diag "cpu controller: $kind at $mnt"
dir=$mnt/gridbed-$GB_PREFIX

cat > "$T/cpu.yaml" <<'EOF'
name: cpu
sites:
  - name: sA
    clusters:
      - {name: a, hosts: 2, cpu: 0.5}
  - name: sB
    clusters:
      - {name: b, hosts: 2}
links:
  - {a: sA, b: sB, delay: 1ms}
EOF

quota_of() { # quota_of CGROUP-DIR: "QUOTA PERIOD" as the kernel has it
	if [ $kind = v2 ]; then cat "$1/cpu.max"
	else echo "$(cat "$1/cpu.cfs_quota_us") $(cat "$1/cpu.cfs_period_us")"; fi
}
cg_of() { # cg_of PID: the process's cgroup in the cpu hierarchy
	if [ $kind = v2 ]; then sed -n 's/^0:://p' "/proc/$1/cgroup"
	else awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3}' "/proc/$1/cgroup"; fi
}

out=$("$GRIDEMU" up "$T/cpu.yaml" 2>&1); st=$?
is "$st" 0 "up with a cpu share" || diag "$out"
unlike() { ! printf '%s' "$1" | grep -q "$2"; }
unlike "$out" "warning: the topology gives clusters a cpu share"
ok $? "no warning when the controller exists"
is "$(jq -r .cpu_control "$GRIDBED_RUNDIR/$GB_PREFIX/state.json")" \
	"$([ $kind = v2 ] && echo 'v2 cpu.max' || echo 'v1 cpu.cfs_quota_us')" \
	"state.json records the interface"
ok "$([ -d "$dir/a-1" ] && [ -d "$dir/a-2" ] && echo 0 || echo 1)" "cgroups for a-1 and a-2"
ok "$([ ! -e "$dir/b-1" ] && echo 0 || echo 1)" "none for b-1 (its cluster has no share)"
# 0.5 core: 10 ms every 20 ms
is "$(quota_of "$dir/a-1")" "10000 20000" "a-1's quota: 10000 us per 20000 us"

# processes of the hosts, read back from the kernel
sleeper() { # sleeper HOST: start a sleeping process in HOST, print its pid
	"$GRIDEMU" exec "$1" -- sleep 30 >/dev/null 2>&1 &
	local pid=$! i
	for i in $(seq 50); do # wait for the exec to have joined and exec'd
		[ "$(cat /proc/$pid/comm 2>/dev/null)" = sleep ] && break
		sleep 0.1
	done
	echo $pid
}
pa=$(sleeper a-2); pb=$(sleeper b-1)
is "$(cg_of "$pa")" "/gridbed-$GB_PREFIX/a-2" "gridemu exec on a-2 runs in a-2's cgroup"
is "$(quota_of "$mnt$(cg_of "$pa")")" "10000 20000" "and that cgroup has the quota"
is "$(cg_of "$pb")" "$(cg_of $$)" "gridemu exec on b-1 stays where it was started"
kill "$pa" "$pb" 2>/dev/null; wait "$pa" "$pb" 2>/dev/null

if [ -n "${GRIDBED_SANITIZED:-}" ]; then
	skip 4 "OpenMPI part: plain pass only (cmake/bootstrap)"
elif [ -x "$GRIDBED_BUILD/emulator/mpitest/mpi_hello" ] && command -v mpirun >/dev/null; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash
	out=$("$GRIDEMU" mpirun -- sh -c 'echo "$GRIDBED_NODE $(cat /proc/self/cgroup | tr "\n" " ")"' 2>&1)
	st=$?
	is "$st" 0 "gridemu mpirun of 4 ranks" || diag "$out"
	like "$(printf '%s\n' "$out" | grep '^a-1 ')" "gridbed-$GB_PREFIX/a-1( |$)" \
		"the rank on a-1 runs in a-1's cgroup"
	like "$(printf '%s\n' "$out" | grep '^b-2 ')" "^b-2 " "the rank on b-2 ran"
	unlike "$(printf '%s\n' "$out" | grep '^b-2 ')" "gridbed-"
	ok $? "and is in no grid cgroup"
	rm -f "$GRIDBED_RUNDIR/$GB_PREFIX"/mpirun-*.json
else
	skip 4 "no MPI"
fi

# enforced: the kernel throttles a busy loop on a-1 (it needs > 10 ms of CPU)
before=$(awk '$1 == "nr_throttled" {print $2}' "$dir/a-1/cpu.stat")
"$GRIDEMU" exec a-1 -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'
after=$(awk '$1 == "nr_throttled" {print $2}' "$dir/a-1/cpu.stat")
ok $(( after > before ? 0 : 1 )) "a busy loop on a-1 is throttled (nr_throttled $before -> $after)"

out=$("$GRIDEMU" down 2>&1); st=$?
is "$st" 0 "down" || diag "$out"
ok "$([ ! -e "$dir" ] && echo 0 || echo 1)" "down removed $dir"

# a crash: no state file left, down still finds the cgroups by name
"$GRIDEMU" up "$T/cpu.yaml" >/dev/null 2>&1 || bail "second up failed"
rm -f "$GRIDBED_RUNDIR/$GB_PREFIX/state.json"
"$GRIDEMU" down >/dev/null 2>&1
ok "$([ ! -e "$dir" ] && echo 0 || echo 1)" "down without a state file removes the cgroups too"

# no controller: a warning, the record, nothing created
out=$(GRIDBED_CPUCTL=none "$GRIDEMU" up "$T/cpu.yaml" 2>&1); st=$?
is "$st" 0 "up without a controller still brings the grid up"
like "$out" "^gridemu: warning: .*cpu share.*no CPU controller enforces it \(GRIDBED_CPUCTL=none\)" \
	"and says on one line that the shares are not enforced"
like "$(jq -r .cpu_control "$GRIDBED_RUNDIR/$GB_PREFIX/state.json")" "^none: " \
	"state.json: cpu_control none"
ok "$([ ! -e "$dir" ] && echo 0 || echo 1)" "no cgroup was made"
"$GRIDEMU" down >/dev/null 2>&1

# a topology without shares: nothing to say
sed '/cpu: 0.5/s/, cpu: 0.5//' "$T/cpu.yaml" > "$T/nocpu.yaml"
out=$("$GRIDEMU" up "$T/nocpu.yaml" 2>&1)
is "$(jq -r .cpu_control "$GRIDBED_RUNDIR/$GB_PREFIX/state.json")" unused "no shares: 'unused'"
"$GRIDEMU" down >/dev/null 2>&1

# a campaign killed while it ran leaves its experiment groups, with a
# process in one: down moves it out and removes them
m2=$(awk '$0 ~ / - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
if [ -z "$m2" ]; then
	skip 2 "no cgroup2 mount: no experiment groups to leave behind"
else
	x=$m2/gridbed-$GB_PREFIX-exp
	mkdir -p "$x/work" "$x/planner"
	sleep 60 & sl=$!
	echo "$sl" > "$x/planner/cgroup.procs"
	"$GRIDEMU" up "$T/nocpu.yaml" >/dev/null 2>&1
	"$GRIDEMU" down >/dev/null 2>&1
	ok "$([ ! -e "$x" ]; echo $?)" "down removes a crashed campaign's $x"
	ok "$(kill -0 "$sl" 2>/dev/null; echo $?)" "  and leaves the process that was in it running"
	kill "$sl" 2>/dev/null; wait "$sl" 2>/dev/null
	rmdir "$x/work" "$x/planner" "$x" 2>/dev/null
fi
done_testing
