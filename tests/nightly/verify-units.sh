#!/bin/sh
# The systemd units shown in docs/nightly.md must be accepted by
# `systemd-analyze verify` without a single complaint (it only warns about an
# unknown key, so any output fails). The units are taken from the page, with
# the installed kbench path replaced by the built one, because verify checks
# that ExecStart= names an executable. Exit 77 (skip) without systemd-analyze.
# Usage: verify-units.sh DOCS.md KBENCH
set -eu
docs=$1 kbench=$2
command -v systemd-analyze >/dev/null 2>&1 || { echo "skip: systemd-analyze not installed"; exit 77; }
dir=$(mktemp -d /tmp/kbench-units.XXXXXX)
trap 'rm -rf "$dir"' EXIT
# Each unit is the ```ini block after a "<!-- unit: NAME -->" line.
awk -v dir="$dir" '
        /^<!-- unit: .* -->$/ { name = $3; next }
        name != "" && /^```ini$/ { out = dir "/" name; printf "" > out; next }
        out != "" && /^```$/ { close(out); out = ""; name = ""; next }
        out != "" { gsub("/usr/local/bin/kbench", KB); print >> out }
' KB="$kbench" "$docs"
n=$(ls "$dir" | wc -l)
[ "$n" -eq 2 ] || { echo "expected 2 units in $docs, found $n"; exit 1; }
cd "$dir"
if ! out=$(SYSTEMD_LOG_COLOR=0 systemd-analyze verify ./kbench-nightly.service ./kbench-nightly.timer 2>&1) || [ -n "$out" ]; then
        echo "systemd-analyze verify rejected the units of $docs:"
        echo "$out"
        exit 1
fi
echo "ok: $(ls | tr '\n' ' ')"
