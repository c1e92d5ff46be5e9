#!/usr/bin/env bash
# The main job on a fresh machine: import two Debian kernels into the store
# and compare them with dd (3 repeats, 256 MiB guests) under QEMU through
# libvirt's embedded driver (no daemon). Results land in $KBENCH_HOME
# (default ~/.local/share/kbench).
set -euo pipefail
cd "$(dirname "$0")/.."
debs=${KBENCH_DEBS:-/var/cache/kbench-debs}
kbench=./build/harness/kbench
for d in "$debs"/linux-image-6.1.0-47-amd64-unsigned_*.deb "$debs"/linux-image-6.1.0-57-amd64-unsigned_*.deb; do
  $kbench kernel add "$d"
done
$kbench run -k 6.1.0-47-amd64 -k 6.1.0-57-amd64 -w dd -n 3 --mem 256 "$@"
