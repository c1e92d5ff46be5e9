#!/usr/bin/env bash
# Set up a fresh Debian 12 machine for kbench: packages, the user libvirt's
# QEMU driver insists on, a build in ./build, and two Debian kernel packages
# in $KBENCH_DEBS (default /var/cache/kbench-debs). Safe to run again.
# The packages whose programs run inside the guests are not listed here:
# each workload names its own (workloads/<name>.c), and once kbench is built
# `kbench workloads --packages` prints them.
set -euo pipefail
cd "$(dirname "$0")/.."

# Install whichever of the packages given are missing.
install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
}

packages=(
  build-essential meson ninja-build pkg-config python3
  libvirt-dev libvirt-daemon libvirt-daemon-driver-qemu qemu-system-x86
  libcurl4-openssl-dev libsqlite3-dev libjansson-dev libglib2.0-dev libarchive-dev libkmod-dev
  kmod e2fsprogs busybox-static coreutils xz-utils zstd procps
  gcovr chromium fonts-dejavu-core bash-completion
  linux-source-6.1 flex bison bc libelf-dev ccache git
  dpkg-dev libaio-dev zlib1g-dev
  # report/stats-oracle.py, which computes the statistics' reference values
  python3-scipy r-base-core
)
if [ "$(id -u)" -ne 0 ]; then
  echo "setup.sh: run as root (it installs packages)" >&2
  exit 1
fi
install_missing "${packages[@]}"
# kbench run as root has its embedded libvirt driver run QEMU as this user,
# never as root: the kernels it boots are fetched from the network.
# (libvirt-daemon-system creates it too; kbench does not need the daemon.)
# Its access to /dev/kvm comes from kbench's qemu.conf, which takes
# /dev/kvm's group (host/vm_qemu.c), so no group membership is set up here.
getent passwd libvirt-qemu >/dev/null || useradd --system --no-create-home --shell /usr/sbin/nologin libvirt-qemu
if [ "$(id -u libvirt-qemu)" -eq 0 ]; then
  echo "setup.sh: the user libvirt-qemu has uid 0; give it a uid of its own" >&2
  exit 1
fi
# /dev/kvm as Debian's udev rule leaves it (KERNEL=="kvm", GROUP="kvm",
# MODE="0660"). A machine without a running udev keeps the kernel's
# root:root 0600, and devtmpfs brings that back at every boot, so this runs
# each time rather than once. A device whose group the host chose (not
# root) is left as it is. docs/design.md, "Who QEMU runs as", says why kbench
# does not run QEMU in a group of its own instead.
getent group kvm >/dev/null || groupadd --system kvm
if [ -c /dev/kvm ]; then
  case "$(stat -c %G /dev/kvm)" in
    root|kvm) chgrp kvm /dev/kvm && chmod 0660 /dev/kvm ;;
  esac
fi

# QEMU's TCG plugin API header (plugin/kbinsn.c counts guest instructions
# with it) ships in no Debian binary package, only in QEMU's source package,
# and it must be the installed QEMU's own. So: a deb-src entry beside the
# machine's own Debian sources, the source of exactly the installed version,
# and from its tarball the one header. Kept by version, so this runs once.
plugin_api=/var/cache/kbench/qemu-plugin-api
qemu_version=$(dpkg-query -W -f='${source:Version}' qemu-system-x86)
if [ "$(cat "$plugin_api/VERSION" 2>/dev/null)" != "$qemu_version" ]; then
  src_list=/etc/apt/sources.list.d/kbench-deb-src.sources
  if [ ! -f "$src_list" ]; then
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$src_list"
    else
      grep -h '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > "${src_list%.sources}.list"
    fi
    apt-get update -q
  fi
  work=$(mktemp -d)
  (cd "$work" && apt-get source --download-only -q "qemu=$qemu_version" 2>&1 |
     grep -v '^W: Download is performed unsandboxed' || true)
  header=$(tar -tJf "$work"/qemu_*.orig.tar.xz | grep '/include/qemu/qemu-plugin.h$')
  tar -xJf "$work"/qemu_*.orig.tar.xz -C "$work" "$header"
  mkdir -p "$plugin_api"
  cp "$work/$header" "$plugin_api/qemu-plugin.h"
  echo "$qemu_version" > "$plugin_api/VERSION"
  rm -rf "$work"
fi

if [ ! -f build/build.ninja ]; then
  meson setup build --werror
fi
ninja -C build
# kbench on the PATH (/usr/local), with its helpers, the man page and the
# shell completion, so that the documents' "kbench ..." lines work as typed
# and <TAB> completes verbs, options, kernels, runs and tags in a new shell.
meson install -C build --no-rebuild --quiet
guest_packages=$(build/cli/kbench workloads --packages)
# shellcheck disable=SC2086 # one package name per line
install_missing $guest_packages

# The guests' fio (workloads/fio.c): Debian's source package of APT's
# candidate version, Debian's patches applied, configured as Debian does but
# without the engines that link Ceph, Gluster, RDMA, PMDK and NBD. Debian's
# binary links all of those (62 libraries, 80 MiB), which every guest image
# of a run with fio would carry into RAM (its image does not unpack in a
# 256 MiB guest: docs/workloads.md); this one links libaio and zlib.
# Kept by version, so this runs once.
fio_dir=/var/cache/kbench/fio
fio_version=$(apt-cache policy fio | awk '/Candidate:/ { print $2 }')
if [ "$(cat "$fio_dir/VERSION" 2>/dev/null)" != "$fio_version" ]; then
  work=$(mktemp -d)
  (cd "$work" && apt-get source -q "fio=$fio_version" 2>&1 |
     grep -v '^W: Download is performed unsandboxed' || true)
  src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'fio-*')
  (cd "$src" &&
     ./configure --disable-native --prefix=/usr --disable-numa --disable-rdma --disable-rados --disable-rbd \
       --disable-http --disable-gfapi --disable-pmem --disable-libzbc --disable-xnvme --disable-tcmalloc \
       --disable-libnfs --disable-dfs >/dev/null &&
     make -j"$(nproc)" fio >/dev/null)
  mkdir -p "$fio_dir"
  install -s -m 0755 "$src/fio" "$fio_dir/fio.new"
  mv "$fio_dir/fio.new" "$fio_dir/fio"
  echo "$fio_version" > "$fio_dir/VERSION"
  rm -rf "$work"
fi

debs=${KBENCH_DEBS:-/var/cache/kbench-debs}
mkdir -p "$debs"
cd "$debs"
for k in linux-image-6.1.0-47-amd64-unsigned linux-image-6.1.0-57-amd64-unsigned; do
  ls "$k"_*.deb >/dev/null 2>&1 || apt-get download -q "$k" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
  ls "$k"_*.deb >/dev/null
done
