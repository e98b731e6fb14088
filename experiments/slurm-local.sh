#!/usr/bin/env bash
# slurm-local.sh - a real single-node Slurm cluster on this machine, all of
# it under one directory: its own munged (own key and socket), slurmctld and
# slurmd (Debian's packages: munge, slurmctld, slurmd, slurm-client), on two
# free ports, so that it touches neither the machine's own Slurm nor munge.
# For trying `gridexp slurm` on one box and for the suite (t/8015).
#
#   experiments/slurm-local.sh start DIR   start it (DIR is made); prints the
#                                          export line for SLURM_CONF
#   experiments/slurm-local.sh stop DIR    cancel its jobs, stop the daemons
#                                          (idempotent; DIR stays)
#
# Settings (docs/scale-out.md; docs/platform.md measured them): jobs run
# as root (SlurmUser=root), proctrack/linuxproc, task/none, select/cons_tres,
# no accounting; KillWait=30 gives a cancelled task's gridexp time to take its
# grid down before SIGKILL.  Exit: 0; 1 a daemon did not start (its log is
# shown); 2 bad usage or Slurm is not installed.
set -euo pipefail

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }

[ $# = 2 ] || { usage >&2; exit 2; }
cmd=$1
dir=$2
case "$cmd" in start|stop) ;; -h|--help) usage; exit 0 ;; *) usage >&2; exit 2 ;; esac

# a pid file's process, if it still runs
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_pid() {
	local f=$1 pid
	alive "$f" || { rm -f "$f"; return 0; }
	pid=$(cat "$f")
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$f"
}

if [ "$cmd" = stop ]; then
	[ -d "$dir" ] || exit 0
	dir=$(cd "$dir" && pwd)
	if [ -f "$dir/slurm.conf" ] && alive "$dir/slurmctld.pid"; then
		export SLURM_CONF=$dir/slurm.conf
		scancel --quiet --full --user=root 2>/dev/null || true
		# the cancelled tasks' gridexp take their grids down (KillWait)
		for _ in $(seq 400); do
			[ -z "$(squeue -h 2>/dev/null)" ] && break
			sleep 0.1
		done
	fi
	stop_pid "$dir/slurmd.pid"
	stop_pid "$dir/slurmctld.pid"
	stop_pid "$dir/munge/munged.pid"
	exit 0
fi

for p in munged slurmctld slurmd sbatch squeue sinfo; do
	command -v "$p" >/dev/null || {
		echo "slurm-local: '$p' is not installed (cmake/bootstrap deps installs munge," \
			"slurmctld, slurmd, slurm-client)" >&2
		exit 2
	}
done
[ "$(id -u)" = 0 ] || { echo "slurm-local: the cluster's jobs run as root: run it as root" >&2; exit 2; }

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if alive "$dir/slurmctld.pid"; then
	echo "slurm-local: a cluster runs in $dir already (stop it first)" >&2
	exit 2
fi
mkdir -p "$dir/munge" "$dir/state" "$dir/spool"
chmod 700 "$dir/munge"
host=$(hostname -s)

# two free TCP ports between 20000 and 29999
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 10000))
		ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { echo $p; return; }
	done
}
pc=$(free_port)
pd=$(free_port)
while [ "$pd" = "$pc" ]; do pd=$(free_port); done

if [ ! -s "$dir/munge/munge.key" ]; then
	if command -v mungekey >/dev/null; then
		mungekey --create --keyfile="$dir/munge/munge.key" --force
	else
		dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
	fi
	chmod 600 "$dir/munge/munge.key"
fi

cat > "$dir/slurm.conf" <<EOF
# written by experiments/slurm-local.sh: a single-node cluster for gridbed
ClusterName=gridbed
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$pc
SlurmdPort=$pd
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
KillWait=30
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=gridbed Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

fail() {
	echo "slurm-local: $1 did not start; the end of $2:" >&2
	tail -5 "$2" 2>/dev/null | sed 's/^/  /' >&2
	"$0" stop "$dir" || true
	exit 1
}

munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
	--pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
	--seed-file="$dir/munge/munged.seed" --force 2>>"$dir/munge/munged.log" ||
	fail munged "$dir/munge/munged.log"
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" -c 2>>"$dir/slurmctld.log" || fail slurmctld "$dir/slurmctld.log"
slurmd -f "$SLURM_CONF" -N "$host" 2>>"$dir/slurmd.log" || fail slurmd "$dir/slurmd.log"
# ready when the node is idle
for _ in $(seq 300); do
	case "$(sinfo -h -o %T 2>/dev/null)" in idle*) echo "export SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
	sleep 0.1
done
fail "the node (sinfo: $(sinfo -h -o %T 2>&1 | head -1))" "$dir/slurmd.log"
