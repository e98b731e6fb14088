#!/usr/bin/env bash
# 1014-uml-probe: the user-mode Linux tests (1010, 1104, 1202) first boot
# linux.uml once with an init that only echoes (uml_boot_probe in
# lib-netns.sh).  Both branches of that probe, with stand-ins for the binary
# (GRIDBED_UML):
# - a UML that panics as Debian's 6.1 linux.uml does on hosts whose FPU state
#   it cannot ptrace ("ptrace set fp regs failed, errno = 14", then "Attempted
#   to kill init!") makes every UML test skip, and the skip line carries the
#   kernel's words; so does one that hangs (timeout) or prints nothing;
# - a UML that boots the trivial init but never finishes a test's init still
#   fails that test: the probe does not hide a real failure;
# - the real linux.uml, where it is installed: the probe's verdict is printed,
#   and agrees with a boot done here by hand;
# - the suite's cache of the verdict (GRIDBED_PROBE_CACHE, set by
#   cmake/bootstrap per pass): the second test to probe the same binary
#   boots nothing and gets the same verdict, a skip still with the kernel's
#   words; a binary with another mtime is probed again.
source "$(dirname "$0")/lib-netns.sh"
mods=$(ls -d /usr/lib/uml/modules/*/ 2>/dev/null | head -1)
[ -f "$mods/kernel/net/sched/sch_netem.ko" ] ||
	skip_all "no linux.uml modules with sch_netem.ko: require_uml_netem skips before its probe"
command -v insmod >/dev/null || skip_all "insmod (kmod) is not installed"

plan 14

# the stand-ins' probes below each boot their binary: no suite cache here
# (the cache has its own checks at the end, in a directory of this test's)
unset GRIDBED_PROBE_CACHE

tmp=$(mktemp -d /tmp/gb-1014.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# A stand-in that fails like the real one: the kernel's lines, then exit.
cat > "$tmp/uml-panics" <<'EOF'
#!/bin/sh
echo "Linux version 6.1.176 (debian-kernel@lists.debian.org) #1 Mon Jan 1 00:00:00 UTC 2026"
echo "Run /tmp/init as init process"
echo "userspace - ptrace set fp regs failed, errno = 14"
echo "Kernel panic - not syncing: Attempted to kill init! exitcode=0x0000000b"
exit "${UML_EXIT:-0}"
EOF
# One that prints what the init echoes (a trivial init boots) and stops
# there: a test's own init never writes its "finished" file.
cat > "$tmp/uml-boots-trivial-only" <<'EOF'
#!/bin/sh
for a in "$@"; do case $a in init=*) init=${a#init=} ;; esac; done
sed -n 's/^echo "\(.*\)"$/\1/p' "$init"
exit 0
EOF
printf '#!/bin/sh\nsleep 600\n' > "$tmp/uml-hangs"
printf '#!/bin/sh\nexit 1\n' > "$tmp/uml-silent"
chmod +x "$tmp"/uml-*

# require_uml_netem in a subshell: its skip_all exits that shell only.  Its
# line goes to diag, not into a description, where "# SKIP" would be read
# by prove as a directive.
probe() { (UML=$1; require_uml_netem; echo "probe passed") | tee >(sed 's/^/# said: /' >&2); }

out=$(probe "$tmp/uml-panics")
like "$out" '^1\.\.0 # SKIP user-mode Linux cannot boot on this machine .*ptrace set fp regs failed, errno = 14; Kernel panic - not syncing: Attempted to kill init!' \
	"a UML that panics at init: the test skips with the kernel's message"
out=$(UML_EXIT=1 probe "$tmp/uml-panics")
like "$out" '^1\.\.0 # SKIP .*Attempted to kill init!.*exit 1\)$' "the same with a non-zero exit: skipped, exit status named"

out=$(GRIDBED_UML_PROBE_TIMEOUT=2 probe "$tmp/uml-hangs")
like "$out" '^1\.\.0 # SKIP .*no power-off within 2 s' "a UML that hangs: skipped when the probe's time is up"
out=$(probe "$tmp/uml-silent")
like "$out" '^1\.\.0 # SKIP .*no output, exit 1' "a UML that prints nothing: skipped, and says so"

out=$(probe "$tmp/uml-boots-trivial-only")
is "$out" "probe passed" "a UML that boots a trivial init passes the probe"
mkdir "$tmp/boot"
(UML=$tmp/uml-boots-trivial-only; uml_init "$tmp/boot" "X=1"
 echo 'echo "ok 1 - never reached"; echo 1..1' > "$tmp/boot/inner"
 uml_boot "$tmp/boot") > "$tmp/boot.out" 2>&1
st=$?
is "$st:$(sed -n 2p "$tmp/boot.out")" "1:not ok 1 - user-mode Linux did not finish" \
	"and a test whose init never finishes under it still fails, not skips"

if command -v linux.uml >/dev/null; then
	before=$(ls -d /tmp/gb-umlprobe.* 2>/dev/null | wc -l)
	why=$(UML=linux.uml uml_boot_probe); pst=$?
	printf '#!/bin/sh\necho "by-hand-%s"\npoweroff -f\n' $$ > "$tmp/init"; chmod +x "$tmp/init"
	timeout 60 linux.uml mem=128M root=/dev/root rootfstype=hostfs rootflags=/ rw \
		init="$tmp/init" con=null con0=fd:0,fd:1 </dev/null > "$tmp/console" 2>&1
	grep -q "^by-hand-$$" "$tmp/console"; hst=$?
	diag "this machine's linux.uml: $( [ $pst = 0 ] && echo boots || echo "cannot boot ($why)")"
	is "$pst" "$hst" "the probe's verdict on the real linux.uml matches a boot by hand"
	is "$(ls -d /tmp/gb-umlprobe.* 2>/dev/null | wc -l)" "$before" "the probe leaves no folder in /tmp"
else
	skip 2 "linux.uml is not installed"
fi

# The cache: stand-ins that count their boots in $tmp/boots.
mkdir "$tmp/cache"
for s in panics boots-trivial-only; do
	{ echo '#!/bin/sh'; echo "echo x >> $tmp/boots"; tail -n +2 "$tmp/uml-$s"; } > "$tmp/c-$s"
	chmod +x "$tmp/c-$s"
done
boots() { wc -l < "$tmp/boots" 2>/dev/null || echo 0; }
cprobe() { GRIDBED_PROBE_CACHE=$tmp/cache probe "$@"; }
out1=$(cprobe "$tmp/c-panics"); out2=$(cprobe "$tmp/c-panics")
is "$(boots)" 1 "with GRIDBED_PROBE_CACHE, two tests probing the same binary boot it once"
like "$out2" '^1\.\.0 # SKIP user-mode Linux cannot boot on this machine .*ptrace set fp regs failed, errno = 14; Kernel panic - not syncing: Attempted to kill init!.*exit 0 \(this suite run.s probe, cached in ' \
	"the second one skips with the first boot's words, and says they are cached"
like "$out1" '^1\.\.0 # SKIP .*Attempted to kill init!.*exit 0\)$' "the first one's skip is the probe's own"
touch -d '2001-01-01 00:00' "$tmp/c-panics"
cprobe "$tmp/c-panics" >/dev/null
is "$(boots)" 2 "a binary with another mtime is probed again"
: > "$tmp/boots"
out1=$(cprobe "$tmp/c-boots-trivial-only"); out2=$(cprobe "$tmp/c-boots-trivial-only")
is "$out1:$out2" "probe passed:probe passed" "a binary that boots passes from the cache too"
is "$(boots)" 1 "  after one boot"
done_testing
