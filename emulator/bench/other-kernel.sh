#!/usr/bin/env bash
# other-kernel.sh - benchmark, not a test: runs one of the suite's tests on
# another Linux kernel than this machine's, in a virtual machine.  Made for
# gbcubic (emulator/grid/gbcubic.h), which is compiled once against this
# machine's kernel and relocated (CO-RE) onto whatever kernel loads it, so
# the question "does it load, register and carry a connection on Debian
# 12's own 6.1?" needs that kernel running.
#
# It takes a kernel as Debian packages it (--kernel: a linux-image .deb, or
# the folder one was extracted into), extracts it once into --cache, and
# boots it under qemu (emulated, or --accel kvm) with:
# - this machine's / as its root, read-only over 9p, so that it runs this
#   build's gridemu, the host's ip, bpftool and bash; a tmpfs over /run,
#   /tmp and /var/tmp; the kernel's own modules bound into the share below
#   and named to modprobe (-d) through kernel.modprobe, since the host may
#   have no /lib/modules to mount on;
# - an initramfs of busybox (busybox-static) and the 9p modules, made each
#   run in a temporary folder;
# - one more 9p share, read-write: that folder, where the test's TAP lines,
#   the kernel's release and its log come back.
# It prints the guest kernel's release, the test's TAP lines and the kernel
# log's lines about BPF, and exits with the test's verdict (0: passed).
# Nothing of the host changes: the guest cannot write its root, and the
# temporary folder is removed.
#
# usage: other-kernel.sh --kernel DEB|DIR [--test FILE] [--mem MIB]
#                        [--cache DIR] [--timeout SECONDS] [--accel tcg|kvm]
# Defaults: --test t/1017-emu-gbcubic.t, --mem 2048, --cache
# /var/tmp/gridbed-kernels, --timeout 900, --accel tcg (qemu's emulator: on
# the 2-core box of session 52 a KVM guest hung right after the kernel's
# setup code; emulated, the test began about 15 s after boot).  Needs root,
# qemu-system-x86_64, busybox-static, cpio, depmod and dpkg-deb
# (`cmake/bootstrap bench-deps` installs them).  Example
# (docs/measurements.md, "Session 52: gbcubic on Debian 12's kernel"):
#   apt-get download linux-image-6.1.0-57-amd64
#   emulator/bench/other-kernel.sh --kernel linux-image-6.1.0-57-amd64_*.deb
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${GRIDBED_BUILD:-$src/build}
me=other-kernel.sh
. "$src/util/bench/lib-bench.sh"
kernel=; test=t/1017-emu-gbcubic.t; mem=2048; cache=/var/tmp/gridbed-kernels; limit=900
accel=tcg
bench_parse "36 strip" "kernel test mem cache timeout=limit accel" "$@"
[ -n "$kernel" ] || { echo "$me: --kernel DEB|DIR is required (see --help)" >&2; exit 2; }
[ -e "$kernel" ] || { echo "$me: --kernel '$kernel': no such file or folder" >&2; exit 2; }
case $test in /*) ;; *) test=$src/$test ;; esac
[ -f "$test" ] || { echo "$me: --test '$test': no such file" >&2; exit 2; }
case $mem in ''|*[!0-9]*) echo "$me: --mem '$mem': not a number of MiB" >&2; exit 2 ;; esac
case $limit in ''|*[!0-9]*) echo "$me: --timeout '$limit': not a number of seconds" >&2; exit 2 ;; esac
case $accel in tcg|kvm) ;; *) echo "$me: --accel '$accel': tcg or kvm" >&2; exit 2 ;; esac
bench_built "$build/emulator/gridemu"
bench_need 2 root qemu-system-x86_64 cpio dpkg-deb depmod
busybox=/bin/busybox
[ -x "$busybox" ] && ! ldd "$busybox" >/dev/null 2>&1 ||
	{ echo "$me: needs a static $busybox (apt-get install busybox-static)" >&2; exit 2; }

# the kernel, extracted once: DIR/boot/vmlinuz-REL and DIR/lib/modules/REL
if [ -f "$kernel" ]; then
	kdir=$cache/$(basename "$kernel" .deb)
	if [ ! -f "$kdir/.extracted" ]; then
		echo "$me: extracting $(basename "$kernel") into $kdir" >&2
		rm -rf "$kdir" && mkdir -p "$kdir" && dpkg-deb -x "$kernel" "$kdir" &&
			touch "$kdir/.extracted" ||
			{ echo "$me: cannot extract '$kernel' into '$kdir'" >&2; rm -rf "$kdir"; exit 1; }
	fi
else
	kdir=$(cd "$kernel" && pwd)
fi
vmlinuz=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -1)
[ -n "$vmlinuz" ] || { echo "$me: no boot/vmlinuz-* in '$kdir'" >&2; exit 2; }
rel=${vmlinuz##*/vmlinuz-}
mods=$kdir/lib/modules/$rel
[ -d "$mods" ] || { echo "$me: no lib/modules/$rel in '$kdir'" >&2; exit 2; }
# a package ships no modules.dep (its postinst makes it); make it in the copy
[ -f "$mods/modules.dep" ] || depmod -b "$kdir" "$rel" ||
	{ echo "$me: depmod of $rel in '$kdir' failed" >&2; exit 1; }

tmp=$(mktemp -d /tmp/gb-vm.XXXXXX)
qemu_pid=
# the virtual machine goes with the script, also when it is interrupted
trap '[ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null && wait "$qemu_pid"; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# MOD's path (relative to $mods) after those it needs, each once, for
# every MOD that is a module (a built-in one has no line in modules.dep)
declare -A seen
dep_order() {
	local m line d
	for m in "$@"; do
		line=$(grep -E "(^|/)${m//_/[_-]}\.ko(\.[a-z]+)?:" "$mods/modules.dep" | head -1)
		[ -n "$line" ] || continue
		for d in ${line#*:}; do
			[ -n "${seen[$d]:-}" ] || { seen[$d]=1; dep_order "$(basename "${d%%.ko*}")"; }
		done
		d=${line%%:*}
		[ "${seen[$d]:-}" = 2 ] && continue
		seen[$d]=2; echo "$d"
	done
}

# the initramfs: busybox, the modules 9p needs (uncompressed, busybox's
# insmod reads plain .ko), an init that mounts the host's / and hands over
ird=$tmp/initramfs
mkdir -p "$ird"/{bin,dev,proc,sys,newroot,mod}
cp "$busybox" "$ird/bin/busybox"
: > "$ird/mod/order"
for m in $(dep_order virtio_pci 9pnet_virtio 9p); do
	f=$ird/mod/$(basename "${m%%.ko*}").ko
	case $m in
	*.ko.xz) xz -dc "$mods/$m" > "$f" ;;
	*.ko.zst) zstd -qdc "$mods/$m" > "$f" ;;
	*.ko.gz) gzip -dc "$mods/$m" > "$f" ;;
	*) cp "$mods/$m" "$f" ;;
	esac || { echo "$me: cannot unpack module $m" >&2; exit 1; }
	basename "$f" >> "$ird/mod/order"
done
cat > "$ird/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /mod/order); do insmod /mod/$m || echo "initramfs: insmod $m failed"; done
if mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 hostroot /newroot; then
	umount /proc /sys /dev
	exec switch_root /newroot /bin/bash "$GB_STAGE2"
fi
echo "initramfs: cannot mount the host's root over 9p"
echo o > /proc/sysrq-trigger
INIT
chmod +x "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1) > "$tmp/initrd" ||
	{ echo "$me: cannot make the initramfs" >&2; exit 1; }

# stage 2, on the host's root: tmpfs where the test writes, the kernel's
# modules where modprobe looks, the read-write share, then the test
cat > "$tmp/stage2" <<STAGE2
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t tmpfs tmpfs /tmp; mkdir -p $tmp
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out $tmp
exec 2>> $tmp/stage2.err
mkdir -p /dev/pts /dev/shm; mount -t devpts devpts /dev/pts; mount -t tmpfs tmpfs /dev/shm
# what udev would link (bash's <(...) opens /dev/fd/N)
ln -s /proc/self/fd /dev/fd; ln -s fd/0 /dev/stdin; ln -s fd/1 /dev/stdout; ln -s fd/2 /dev/stderr
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tmpfs tmpfs /run; mkdir -p /run/lock /run/netns
# the kernel's modules where modprobe looks, also when the kernel asks
# for one (kernel.modprobe): the host may have no /lib/modules to mount on
mkdir -p $tmp/kernel; mount --bind $kdir $tmp/kernel
printf '#!/bin/sh\nexec /sbin/modprobe -d $tmp/kernel "\$@"\n' > $tmp/modprobe
chmod +x $tmp/modprobe; echo $tmp/modprobe > /proc/sys/kernel/modprobe
# /dev/net/tun appears with its module (no udev or systemd here to make
# the static nodes)
$tmp/modprobe tun
mount -t tmpfs tmpfs /var/tmp
ip link set lo up
uname -r > $tmp/release
cd $src && GRIDBED_SRC=$src GRIDBED_BUILD=$build bash $test > $tmp/out 2>&1
echo \$? > $tmp/status
dmesg > $tmp/dmesg
sync
echo o > /proc/sysrq-trigger
STAGE2

echo "$me: booting $rel ($accel, $mem MiB, 2 CPUs), running $(basename "$test")" >&2
timeout "$limit" qemu-system-x86_64 -accel "$accel" -cpu max -m "$mem" -smp 2 \
	-display none -monitor none -no-reboot -serial "file:$tmp/console" \
	-kernel "$vmlinuz" -initrd "$tmp/initrd" \
	-append "console=ttyS0 rdinit=/init panic=-1 GB_STAGE2=$tmp/stage2" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$tmp,mount_tag=out,security_model=none,multidevs=remap" \
	</dev/null >"$tmp/qemu.out" 2>&1 &
qemu_pid=$!
wait "$qemu_pid"; st=$?
qemu_pid=
if [ ! -f "$tmp/status" ]; then
	echo "$me: the test did not finish in the guest (qemu exit $st)" >&2
	tail -20 "$tmp/console" "$tmp/qemu.out" >&2
	exit 1
fi
echo "kernel: $(cat "$tmp/release") ($accel)"
[ -s "$tmp/stage2.err" ] && sed 's/^/# the guest before the test: /' "$tmp/stage2.err"
cat "$tmp/out"
echo "# the guest kernel's log about BPF:"
grep -iE 'bpf|struct_ops|gbcubic|verifier' "$tmp/dmesg" | sed 's/^/#   /' | tail -20
exit "$(cat "$tmp/status")"
