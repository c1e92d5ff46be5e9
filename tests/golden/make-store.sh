#!/usr/bin/env bash
# How tests/golden/store.sql was made: real runs on this project's kind of
# host, dumped as SQL. Run 1 interleaves 6.1.0-47 and 6.1.0-57 on dd and
# ftp with vmstat every 0.5 s; run 2 measures 6.1.0-57 again (a comparison
# across runs); run 3 throttles its disk (a comparison paired across
# disk_mbps). The dump is the fixture; this script is its record, and
# rerunning it makes a different store (the host's numbers change), so the
# expected outputs must then be remade (KBENCH_GOLDEN_UPDATE=1, see
# tests/cli/golden.py), and so must the documents' examples, which are
# printed from this store (KBENCH_DOCS_UPDATE=1, tests/docs/examples.py).
# Boots guests: hold /tmp/kbench-guest.lock.
# Usage: tests/golden/make-store.sh [KBENCH]
set -euo pipefail
cd "$(dirname "$0")/../.."
kbench=${1:-./build/cli/kbench}
debs=${KBENCH_DEBS:-/var/cache/kbench-debs}
home=$(mktemp -d /var/tmp/kbench-golden-XXXXXX)
chmod 0711 "$home"
trap 'rm -rf "$home"' EXIT
kb() { "$kbench" --store "$home" "$@"; }
for v in 47 57; do
  kb kernel add -q "$debs"/linux-image-6.1.0-$v-amd64-unsigned_*.deb
done
kb run -k 6.1.0-47-amd64 -k 6.1.0-57-amd64 -w dd:size=32M -w ftp:size=16M -n 3 --mem 256 --warm \
  --vmstat-interval 0.5 --tag golden
kb run -k 6.1.0-57-amd64 -w dd:size=32M -n 3 --mem 256 --warm --vmstat-interval 0.5
kb run -k 6.1.0-57-amd64 -w dd:size=32M -n 3 --mem 256 --warm --vmstat-interval 0.5 --disk-mbps 20
# The store's own paths and the kernels' files are not part of what is
# shown: only the database goes into the fixture.
{ sqlite3 "$home/results.db" .dump
  echo "PRAGMA user_version = $(sqlite3 "$home/results.db" 'PRAGMA user_version');"
} > tests/golden/store.sql
echo "tests/golden/store.sql: $(wc -c < tests/golden/store.sql) bytes"
