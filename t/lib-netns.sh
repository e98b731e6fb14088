# shellcheck shell=bash
# lib-netns.sh - sourced by gridbed's shell tests.
#
# Gives a TAP vocabulary (plan, ok, is, skip_all, diag, done_testing), the
# paths of the built tools, a unique prefix for everything the test creates,
# and a cleanup trap that tears down whatever grid used that prefix, so that a
# failing test still leaves nothing behind (docs/architecture.md, practice 3).

GRIDBED_SRC=${GRIDBED_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
GRIDBED_BUILD=${GRIDBED_BUILD:-$GRIDBED_SRC/build}
# Absolute, because some tests run the binaries from elsewhere (UML's init).
[ -d "$GRIDBED_BUILD" ] && GRIDBED_BUILD=$(cd "$GRIDBED_BUILD" && pwd)
GRIDEMU=${GRIDEMU:-$GRIDBED_BUILD/emulator/gridemu}
TOPOS=$GRIDBED_SRC/topologies
export GRIDBED_SRC GRIDBED_BUILD GRIDEMU TOPOS

# A unique prefix: short, because interface and netns names derive from it.
GB_PREFIX=${GB_PREFIX:-t$(printf '%04x' $(( ($$ ^ RANDOM) & 0xffff )))}
export GRIDBED_PREFIX=$GB_PREFIX
# Keep the tests' state away from a user's grids.
export GRIDBED_RUNDIR=${GRIDBED_RUNDIR:-/run/gridbed-test}

_tap_n=0
_tap_failed=0
_tap_planned=

plan() { _tap_planned=$1; echo "1..$1"; }
diag() { printf '# %s\n' "$*"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
bail() { echo "Bail out! $*"; exit 255; }

ok() { # ok CONDITION-EXIT-STATUS DESCRIPTION
	local st=$1; shift
	_tap_n=$((_tap_n + 1))
	if [ "$st" = 0 ]; then echo "ok $_tap_n - $*"
	else echo "not ok $_tap_n - $*"; _tap_failed=$((_tap_failed + 1)); fi
	return "$st"
}
# t COMMAND... : run it, ok if it exits 0; its output goes to diag on failure.
t() {
	local desc=$1; shift
	local out st
	out=$("$@" 2>&1); st=$?
	ok $st "$desc" || printf '%s\n' "$out" | sed 's/^/#   /'
	return $st
}
is() { # is GOT WANT DESCRIPTION
	local got=$1 want=$2; shift 2
	if [ "$got" = "$want" ]; then ok 0 "$*"
	else ok 1 "$*"; diag "  got: '$got'"; diag "  expected: '$want'"; return 1; fi
}
like() { # like GOT REGEX DESCRIPTION
	local got=$1 re=$2; shift 2
	if printf '%s' "$got" | grep -qE -- "$re"; then ok 0 "$*"
	else ok 1 "$*"; diag "  got: '$got'"; diag "  expected to match: '$re'"; return 1; fi
}
skip() { local n=$1; shift; for _ in $(seq "$n"); do _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # skip $*"; done; }
done_testing() {
	[ -z "$_tap_planned" ] && echo "1..$_tap_n"
	if [ -n "$_tap_planned" ] && [ "$_tap_planned" != "$_tap_n" ]; then
		diag "planned $_tap_planned tests but ran $_tap_n"; exit 1
	fi
	[ "$_tap_failed" = 0 ]
}

# wait_until SECONDS CMD...: poll CMD every 50 ms until it succeeds (readiness,
# not timing: docs/architecture.md, practice 4).
wait_until() {
	local n=$(( $1 * 20 )); shift
	while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.05; n=$((n - 1)); done
	return 1
}

# tcp_listening NETNS PORT: a TCP socket listens on PORT in NETNS (for
# wait_until before a client starts: iperf3 3.12 -J exits 0 on a refused
# connection, esnet/iperf#1405).
tcp_listening() { ip netns exec "$1" ss -ltn "sport = :$2" | grep -q LISTEN; }

# iperf_mbps FROM-HOST TO-ADDR TO-HOST PORT SECS: iperf3's TCP goodput from
# host FROM to TO's address, in Mbit/s (the receiver's figure), from a
# one-shot server on TO; 0 when the server never listened.  The server is
# gone when it returns.
iperf_mbps() {
	local from=$GB_PREFIX-$1 addr=$2 to=$GB_PREFIX-$3 port=$4 secs=$5 srv
	ip netns exec "$to" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	srv=$!
	if ! wait_until 5 tcp_listening "$to" "$port"; then
		kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; echo 0; return
	fi
	ip netns exec "$from" iperf3 -c "$addr" -p "$port" -t "$secs" -f k 2>/dev/null |
		awk '/receiver/ {for (i = 1; i < NF; i++) if ($(i + 1) == "Kbits/sec") v = $i}
		     END {printf "%.2f\n", (v ? v : 0) / 1000}'
	kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
}

# steal_ticks: the CPU time the hypervisor has taken from this machine's
# vCPUs so far (/proc/stat's steal, clock ticks); 0 where there is none.
# A test whose figure a stolen vCPU would spoil compares it before and after.
steal_ticks() { awk '/^cpu / {print $9 + 0; exit}' /proc/stat; }

# stolen_share T0 SECS: the share of the CPUs' time the hypervisor took
# since steal_ticks gave T0, over SECS seconds.
stolen_share() {
	awk -v a="$1" -v b="$(steal_ticks)" -v s="$2" -v hz="$(getconf CLK_TCK)" \
		-v n="$(nproc)" 'BEGIN {printf "%.4f\n", (b - a) / hz / s / n}'
}

# iperf_unloaded FROM TO-ADDR TO PORT SECS FLOOR: an unloaded path's iperf3
# rate, the figure a test's loaded rates are judged against, printed as
# "MBPS STOLEN". A rate below FLOOR Mbit/s is measured again, three tries in
# all, while the hypervisor took 1 % or more of the CPUs' time (a vCPU not
# run forwards nothing: the suite on 2026-12-06 saw 51-71 of 100 Mbit/s with
# 30-49 % stolen, 95-96 alone). The best try counts; STOLEN is the share
# taken during the last one.
iperf_unloaded() {
	local best=0 got st=0 s0 try
	for try in 1 2 3; do
		s0=$(steal_ticks)
		got=$(iperf_mbps "$1" "$2" "$3" "$4" "$5")
		st=$(stolen_share "$s0" "$5")
		best=$(awk -v a="$best" -v b="$got" 'BEGIN {print (b > a) ? b : a}')
		awk -v b="$best" -v f="$6" -v s="$st" 'BEGIN {exit !(b < f && s >= 0.01)}' || break
		diag "unloaded $1>$3: $got Mbit/s (try $try) while the hypervisor took $st of the CPUs' time" >&2
	done
	echo "$best $st"
}

# ok_unloaded MBPS STOLEN FLOOR DESCRIPTION: ok when the unloaded MBPS is above
# FLOOR; a skip with the reason when it is not while the hypervisor took 5 %
# or more of the CPUs' time (the machine, not the emulator, held the rate
# down); not ok otherwise.
ok_unloaded() {
	if awk -v a="$1" -v f="$3" 'BEGIN {exit !(a > f)}'; then
		ok 0 "$4"
	elif awk -v s="$2" 'BEGIN {exit !(s >= 0.05)}'; then
		skip 1 "$4: the hypervisor took $2 of the CPUs' time during the measurement"
	else
		ok 1 "$4"
	fi
}

# wait_for SECONDS PID: wait for a background job, at most SECONDS; a job still
# running then is killed (SIGKILL) and the status is 124, as timeout(1) gives.
# A hung helper becomes a failed check instead of a suite that never ends.
wait_for() {
	local n=$(( $1 * 20 )) pid=$2
	while [ "$n" -gt 0 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.05; n=$((n - 1)); done
	if kill -0 "$pid" 2>/dev/null; then
		diag "process $pid still ran after $1 s; killed"
		kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; return 124
	fi
	wait "$pid"
}

# Prerequisites: each skips the whole test with a reason.
require_root() { [ "$(id -u)" = 0 ] || skip_all "needs root (network namespaces)"; }
require_netns() {
	require_root
	command -v ip >/dev/null || skip_all "iproute2 (ip) is not installed; it is the tests' witness"
	unshare --net true 2>/dev/null || skip_all "cannot create network namespaces here"
}
require_gridemu() { [ -x "$GRIDEMU" ] || bail "gridemu not built at $GRIDEMU"; }
require_cmd() { command -v "$1" >/dev/null || skip_all "$1 is not installed"; }
# gb_tmpdir NAME: $tmp, a new folder /tmp/gbNAME.XXXXXX, removed on exit
# (this trap replaces gb_cleanup's: for the tests that build no grid).
gb_tmpdir() {
	tmp=$(mktemp -d "/tmp/gb$1.XXXXXX") || bail "mktemp"
	trap 'rm -rf "$tmp"' EXIT
}
# require_built VAR PATH: $VAR (if set) or $GRIDBED_BUILD/PATH must be an
# executable; VAR is set to it (e.g. require_built GRIDLOAD loadgen/gridload).
require_built() {
	local v=${!1:-$GRIDBED_BUILD/$2}
	[ -x "$v" ] || bail "${2##*/} not built at $v"
	printf -v "$1" '%s' "$v"
}
# What every campaign test needs: a grid, gridexp (in $GX), synthapp, mpirun
# and jq, and OpenMPI told that root and many orteds on one box are fine.
require_gridexp() {
	require_netns
	require_gridemu
	GX=$GRIDBED_BUILD/experiments/gridexp
	[ -x "$GX" ] || bail "gridexp not built at $GX"
	[ -x "$GRIDBED_BUILD/experiments/synthapp" ] ||
		skip_all "synthapp not built (no MPI found at build time)"
	require_cmd mpirun
	require_cmd jq
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PMIX_MCA_gds=hash
}

# gridexp_tmp NAME: $tmp, a new /tmp/gridbed-NAME.XXXXXX, and $lock,
# gridexp's lock for this prefix; both are removed on exit, then
# gb_cleanup runs (with the test's exit status).
gridexp_tmp() {
	tmp=$(mktemp -d "/tmp/gridbed-$1.XXXXXX")
	lock=$GRIDBED_RUNDIR/gridexp-$GB_PREFIX.lock
	trap gridexp_cleanup EXIT
}
gridexp_cleanup() {
	local st=$?
	rm -rf "$tmp" "$lock"
	(exit $st)
	gb_cleanup
}
# oracle_campaign FILE NAME ALGORITHMS ORACLE: the campaign of t/8018 and
# t/8019: on two-clusters, 6 broadcasts at scale 0.02, a shape-mode 80 % cut
# of the WAN link (both directions) from 60 s to 150 s of paper time, and
# `monitor: {oracle: ORACLE}` on line 15.
oracle_campaign() {
	cat > "$1" <<EOF
name: $2
topology: $TOPOS/two-clusters.yaml
scale: 0.02
algorithms: [$3]
app:
  root: a-1
  broadcasts: 6
  size: {first: 128K, last: 32K}
  gap: {first: 50s, factor: 0.9}
load:
  name: cut
  mode: shape
  loads:
    - {start: 60s, duration: 90s, fraction: 80%, link: siteA-siteB}
monitor: {oracle: $4}
EOF
}

# The tests run inside user-mode Linux (1010, 1104, 1202): linux.uml with its
# own sch_netem module, and insmod to load it.  GRIDBED_UML names another
# binary to boot instead (t/1014 points it at stand-ins that fail).
UML=${GRIDBED_UML:-linux.uml}
require_uml_netem() {
	command -v "$UML" >/dev/null || skip_all "user-mode-linux ($UML) is not installed"
	local mods; mods=$(ls -d /usr/lib/uml/modules/*/ 2>/dev/null | head -1)
	[ -f "$mods/kernel/net/sched/sch_netem.ko" ] || skip_all "linux.uml ships no sch_netem.ko"
	command -v insmod >/dev/null || skip_all "insmod (kmod) is not installed"
	local why; why=$(uml_boot_probe_cached) || skip_all "user-mode Linux cannot boot on this machine ($UML with an init that only echoes: $why)"
}

# uml_boot_probe_cached: uml_boot_probe, its verdict reused within one suite
# run.  cmake/bootstrap points GRIDBED_PROBE_CACHE at an empty directory per
# pass; the first UML test that probes writes its verdict (0 or 1, and the
# kernel's words) there under a key made of the binary's resolved path, size
# and mtime, and the next ones read it instead of booting again (each probe
# is a UML boot: 4-8 s on the 2-core box, 19 s under load).  A verdict is
# the same either way: a skip still says why, with the words of the boot
# that failed, and a machine that boots runs every UML test in full.
# Without GRIDBED_PROBE_CACHE (a test run by hand) every test probes.
uml_boot_probe_cached() {
	local dir=${GRIDBED_PROBE_CACHE:-} bin key f st why
	[ -n "$dir" ] && [ -d "$dir" ] || { uml_boot_probe; return; }
	bin=$(command -v "$UML") && bin=$(readlink -f "$bin") || { uml_boot_probe; return; }
	key=$(stat -c '%n %s %Y' "$bin") || { uml_boot_probe; return; }
	f=$dir/uml-probe-$(printf '%s' "$key" | md5sum | cut -c1-16)
	if [ -f "$f" ] && [ "$(sed -n 1p "$f")" = "$key" ]; then
		st=$(sed -n 2p "$f"); why=$(sed -n 3p "$f")
		case $st in
		0) return 0 ;;
		1) echo "$why (this suite run's probe, cached in $f)"; return 1 ;;
		esac
	fi
	why=$(uml_boot_probe); st=$?
	# a temporary file, then rename: a test run beside this one reads a
	# whole verdict or none
	printf '%s\n%s\n%s\n' "$key" "$st" "$why" > "$f.$$" && mv -f "$f.$$" "$f"
	[ "$st" = 0 ] || echo "$why"
	return "$st"
}

# uml_boot_probe: boot $UML once with an init that only echoes a line and
# powers off; succeed if that line came out on the console.  On failure print
# what the kernel said, in one line: its error and panic lines (on a host whose
# FPU state the UML build cannot ptrace, such as some AVX-512 CPUs, Debian's
# 6.1 linux.uml says "ptrace set fp regs failed" and panics), or the console's
# last line.  A machine that boots this init runs the tests as usual, so a
# failure of the netem backend itself still fails them.
uml_boot_probe() {
	local d; d=$(mktemp -d /tmp/gb-umlprobe.XXXXXX)
	local mark="gridbed-uml-probe-$$-$RANDOM"
	printf '#!/bin/sh\necho "%s"\npoweroff -f\n' "$mark" > "$d/init"
	chmod +x "$d/init"
	local limit=${GRIDBED_UML_PROBE_TIMEOUT:-60}
	timeout "$limit" "$UML" mem=128M root=/dev/root rootfstype=hostfs rootflags=/ rw \
		init="$d/init" con=null con0=fd:0,fd:1 </dev/null >"$d/console" 2>&1
	local st=$?
	if grep -q "^$mark" "$d/console"; then rm -rf "$d"; return 0; fi
	local said
	said=$(grep -iE 'panic|fail|error|errno|segfault|killed' "$d/console" | tr -d '\r' |
		head -4 | paste -sd ';' | sed 's/;/; /g')
	[ -n "$said" ] || said=$(grep -v '^[[:space:]]*$' "$d/console" | tail -1)
	[ -n "$said" ] || said="no output"
	[ "$st" = 124 ] && said="$said; no power-off within $limit s"
	echo "${said:0:300}, exit $st"
	rm -rf "$d"
	return 1
}

# uml_prepare VARS: what every user-mode Linux test does first: skip under
# ASan (its address space has no room for the shadow memory) or without
# linux.uml's netem, then $tmp (removed on exit) with its init (uml_init).
uml_prepare() {
	ldd "$GRIDEMU" 2>/dev/null | grep -q libasan &&
		skip_all "ASan binaries cannot run under user-mode Linux (its address space has no room for the shadow memory); the plain pass runs this test"
	require_uml_netem
	tmp=$(mktemp -d /tmp/gb-uml.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	uml_init "$tmp" "$1"
}

# uml_init DIR VARS: DIR/init for uml_boot: it mounts /proc, /sys and a
# tmpfs /run, loads veth, sch_netem and sch_tbf, and runs DIR/inner with
# the assignments VARS in its environment, and TAPLIB: DIR/tap.sh, the TAP
# vocabulary of the inner script (ok, is, ge, lt; tap_done prints the plan
# and exits with the verdict; tap_down_done first checks that gridemu down
# succeeds and leaves no namespace inside UML).
uml_init() {
	local tmp=$1 vars=$2
	cat > "$tmp/tap.sh" <<'TAP'
n=0; failed=0
ok() { n=$((n+1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }
is() { [ "$1" = "$2" ]; ok $? "$3 (got '$1', expected '$2')"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a >= b)}'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a < b)}'; }
tap_done() { echo "1..$n"; exit $failed; }
tap_down_done() {
	$GRIDEMU down >/dev/null; ok $? "down"
	[ -z "$(ip netns list)" ]; ok $? "no namespace left inside UML"
	tap_done
}
TAP
	cat > "$tmp/init" <<INIT
#!/bin/bash
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t tmpfs tmpfs /run
M=/usr/lib/uml/modules/\$(uname -r)/kernel
for m in drivers/net/veth.ko net/sched/sch_netem.ko net/sched/sch_tbf.ko; do insmod \$M/\$m; done
$vars TAPLIB=$tmp/tap.sh bash $tmp/inner > $tmp/out 2>&1
echo done > $tmp/finished
poweroff -f
INIT
}

# uml_boot DIR: boot user-mode Linux with DIR/init as its init (which runs
# DIR/inner, its TAP lines into DIR/out, then writes DIR/finished), print
# those TAP lines and exit with their verdict.
uml_boot() {
	local tmp=$1
	chmod +x "$tmp/init" "$tmp/inner"
	timeout 300 "$UML" mem=768M root=/dev/root rootfstype=hostfs rootflags=/ rw \
		init="$tmp/init" con=null con0=fd:0,fd:1 </dev/null >"$tmp/console" 2>&1
	if [ ! -f "$tmp/finished" ]; then
		echo "1..1"; echo "not ok 1 - user-mode Linux did not finish"; sed 's/^/# /' "$tmp/console" | tail -20
		exit 1
	fi
	cat "$tmp/out"
	grep -q '^not ok' "$tmp/out" && exit 1
	grep -q '^1\.\.[1-9]' "$tmp/out" || exit 1
	exit 0
}

# The namespaces and root-namespace objects a prefix owns right now.
prefix_netns() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${GB_PREFIX}-" || true; }

# A snapshot of everything in the root network namespace that gridbed must
# never touch: links, addresses, routes (v4/v6), rules, neighbours excluded
# (they age on their own), forwarding sysctls, nft ruleset.
root_snapshot() {
	{
		ip -o link show | sed -E 's/ state [A-Z]+//; s/ qlen [0-9]+//' | awk '{$1=""; print}' | sed 's/link\/ether.*//' 
		ip -o addr show
		ip route show table all
		ip -6 route show table all 2>/dev/null | grep -v -E '^(local|multicast|anycast)? ?fe80' 
		ip rule show
		ip -6 rule show 2>/dev/null
		sysctl -n net.ipv4.ip_forward net.ipv6.conf.all.forwarding 2>/dev/null
		nft list ruleset 2>/dev/null
		tc qdisc show 2>/dev/null
	} | sort
}

gb_cleanup() {
	local st=$?
	"$GRIDEMU" down >/dev/null 2>&1 || true
	for ns in $(prefix_netns); do ip netns del "$ns" 2>/dev/null; done
	# down keeps mpirun rank maps (they are a job's record); a test's are
	# its own, so the whole run directory of its unique prefix goes.
	case $GB_PREFIX in ?*) rm -rf "${GRIDBED_RUNDIR:?}/$GB_PREFIX" "${GRIDBED_RUNDIR:?}/${GB_PREFIX}x";; esac
	exit $st
}
trap gb_cleanup EXIT
trap 'exit 130' INT TERM
