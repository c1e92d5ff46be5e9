#!/bin/sh
# tools/build-tiny-kernel.sh: build a small kernel from Debian's
# linux-source-6.1 (`make tinyconfig` plus what a kbench cell needs), the
# kind of kernel a developer bisecting their own config boots. It has no
# CONFIG_VM_EVENT_COUNTERS, so its /proc/vmstat lacks pgpgin/pgpgout/
# pswpin/pswpout: kbench's vmstat shows bi/bo/si/so as n/a (docs/vmstat.md).
#
# Usage: tools/build-tiny-kernel.sh [OUTDIR]     (default: ./tiny-kernel)
# KBENCH_TINY_WITHOUT="TIMERFD SIGNALFD" leaves those agent facilities out,
# to check that the agent falls back (docs/tiny-kernel.md); EPOLL, EVENTFD,
# FUTEX and POSIX_TIMERS may be named too (the agent does not use them).
# Needs: linux-source-6.1 flex bison bc libelf-dev gcc make xz-utils.
# Writes OUTDIR/bzImage and OUTDIR/config (with KBENCH_TINY_WITHOUT:
# OUTDIR/bzImage-without-timerfd-signalfd and its config); the tree stays in
# OUTDIR/src, so a variant after the default, or back, rebuilds what changed.
# Takes about 4 minutes on 2 cores; run it under `nice -n 19` on a shared host.
# Then: kbench kernel add OUTDIR/bzImage --name 6.1-tiny
set -eu

out=${1:-./tiny-kernel}
fragment=$(cd "$(dirname "$0")" && pwd)/tiny-kernel.config
tarball=${KBENCH_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
jobs=${JOBS:-$(nproc)}

[ -r "$tarball" ] || { echo "build-tiny-kernel: $tarball not found (apt-get install linux-source-6.1)" >&2; exit 1; }
for t in flex bison bc gcc make; do
        command -v "$t" >/dev/null || { echo "build-tiny-kernel: $t is missing" >&2; exit 1; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ ! -d "$out/src" ]; then
        mkdir "$out/src.tmp"
        tar -xJf "$tarball" -C "$out/src.tmp" --strip-components=1
        mv "$out/src.tmp" "$out/src"
fi
cd "$out/src"

# ARCH=x86_64: under ARCH=x86 tinyconfig answers no to the 64BIT prompt, and
# the agent is a static x86_64 binary.
make ARCH=x86_64 tinyconfig >/dev/null

# What a kbench cell needs, all built in: tools/tiny-kernel.config, the
# fragment `kbench kernel build --fragment` merges the same way.
scripts/kconfig/merge_config.sh -m .config "$fragment" >/dev/null
without=${KBENCH_TINY_WITHOUT:-}
for o in $without; do
        case $o in
        TIMERFD|SIGNALFD|EPOLL|EVENTFD|FUTEX|POSIX_TIMERS) scripts/config -d "$o" ;;
        *) echo "build-tiny-kernel: KBENCH_TINY_WITHOUT: $o is not an agent facility" >&2; exit 2 ;;
        esac
done
make ARCH=x86_64 olddefconfig >/dev/null

# olddefconfig drops what a dependency forbids: say so instead of building
# a kernel that cannot boot a cell.
for o in 64BIT ACPI SERIAL_8250_CONSOLE BLK_DEV_INITRD RD_GZIP BINFMT_ELF PROC_FS SYSFS DEVTMPFS \
         TMPFS SIGNALFD TIMERFD BLK_DEV_SD ATA_PIIX EXT4_FS; do
        case " $without " in *" $o "*) continue ;; esac
        grep -q "^CONFIG_$o=y" .config || { echo "build-tiny-kernel: CONFIG_$o did not stick" >&2; exit 1; }
done
for o in $without; do
        if grep -q "^CONFIG_$o=y" .config; then
                echo "build-tiny-kernel: CONFIG_$o stayed on although KBENCH_TINY_WITHOUT names it" >&2
                exit 1
        fi
done
if grep -q '^CONFIG_VM_EVENT_COUNTERS=y' .config; then
        echo "build-tiny-kernel: CONFIG_VM_EVENT_COUNTERS is on; this kernel would not test the n/a path" >&2
        exit 1
fi

suffix=
for o in $without; do
        suffix="$suffix-$(echo "$o" | tr 'A-Z' 'a-z')"
done
[ -z "$suffix" ] || suffix="-without$suffix"
make ARCH=x86_64 -j"$jobs" bzImage >"$out/build.log" 2>&1 || { tail -20 "$out/build.log" >&2; exit 1; }
cp arch/x86/boot/bzImage "$out/bzImage$suffix.tmp"
cp .config "$out/config$suffix"
mv "$out/bzImage$suffix.tmp" "$out/bzImage$suffix"
echo "$out/bzImage$suffix ($(make -s ARCH=x86_64 kernelrelease))"
