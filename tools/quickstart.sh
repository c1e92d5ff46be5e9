#!/usr/bin/env bash
# The main job on a fresh machine: import two Debian kernels into the store,
# run dd on both (4 repeats, 256 MiB guests, restored from a snapshot of each
# booted kernel) under QEMU through libvirt's embedded driver (no daemon),
# compare them, and publish the results as a static site. Results land in
# $KBENCH_HOME (default /var/lib/kbench as root, else
# ~/.local/share/kbench), the site in its site/ folder.
set -euo pipefail
cd "$(dirname "$0")/.."
debs=${KBENCH_DEBS:-/var/cache/kbench-debs}
kbench=./build/cli/kbench
for d in "$debs"/linux-image-6.1.0-47-amd64-unsigned_*.deb "$debs"/linux-image-6.1.0-57-amd64-unsigned_*.deb; do
  $kbench kernel add -q "$d"
done
# --warm: each kernel boots once, is saved at its agent's ready, and every
# cell restores that snapshot (kept in the store: a second quickstart
# boots nothing). Both kernels run the same way, so the comparison below
# compares like with like; docs/design.md, "Warm start", has what is known
# of warm against cold cells. Pass --cold to boot every cell.
# 4 repeats: the fewest at which the comparison's rank test can reach 0.05
# (3 + 3 cannot: "n too small"); the judged instruction counts scatter by
# well under 1 %, so 4 + 4 can see a change of about 1 %.
# Its progress shows on stderr; its summary (each kernel's judged means) is
# left out, since the comparison below shows them with the answer first.
# Exit status 3, some cells failed, is shown by the comparison too.
rc=0
$kbench run -k 6.1.0-47-amd64 -k 6.1.0-57-amd64 -w dd -n 4 --mem 256 --warm "$@" >/dev/null || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || exit "$rc"
# Is 6.1.0-57 better or worse than 6.1.0-47? Exit status 4 means "worse":
# that is an answer, not a failure of the job.
rc=0
$kbench compare 6.1.0-47-amd64 6.1.0-57-amd64 || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 4 ] || exit "$rc"
$kbench publish
