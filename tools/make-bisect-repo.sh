#!/bin/sh
# tools/make-bisect-repo.sh: a git history over Debian's linux-source-6.1
# with a planted write-path regression, for `kbench bisect --git`
# (tests/integration/bisect.py). Tags good and bad mark the ends; between
# them, oldest first:
#   1 docs      a change outside the build: the same image as good
#   2 noboot    init/main.c panics before init runs: it builds, and no
#               cell of it boots, so the bisection skips it after its probe
#   3 broken    block/blk-core.c does not compile either: the bisection
#               skips it without a cell
#   4 fix       reverts 2 and 3: the same image as good again
#   5 culprit   submit_bio spins on every write bio: more kernel
#               instructions per write (guest.write.kernel_Minsn)
#   6 comment   a comment at the end of a compiled file: the same image as 5
# The commit ids of the culprit, the one that does not build and the one
# that does not boot are in DIR/.git/kbench-culprit, kbench-broken and
# kbench-noboot. Idempotent: an existing DIR of this FIXTURE version is
# kept, an older one made again. Takes about two minutes (git add of the
# whole tree). Usage: tools/make-bisect-repo.sh DIR
set -eu

dir=$1
tarball=${KBENCH_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
# Raised whenever the history below changes.
FIXTURE=2
[ "$(cat "$dir/.git/kbench-fixture" 2>/dev/null)" = "$FIXTURE" ] && exit 0
[ -r "$tarball" ] || { echo "make-bisect-repo: $tarball not found (apt-get install linux-source-6.1)" >&2; exit 1; }
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
tar -xf "$tarball" -C "$dir.tmp" --strip-components=1
cd "$dir.tmp"
git init -q
git config user.name kbench
git config user.email kbench@localhost
git config gc.auto 0
# -f: Debian's .gitignore ignores everything at the top level.
commit() { git add -A -f && git commit -q -m "$1"; }
commit "linux-source-6.1 as Debian ships it"
git tag good

echo "kbench bisect fixture." >> Documentation/admin-guide/README.rst
commit "docs: a line outside the build"

# Before init runs, so no cell of it gets as far as the agent.
sed -i 's|^\tkernel_init_freeable();$|&\n\tpanic("kbench fixture: this commit does not boot");|' init/main.c
grep -q 'kbench fixture: this commit does not boot' init/main.c
commit "init: a commit that does not boot"
noboot=$(git rev-parse HEAD)

sed -i 's|^void submit_bio(struct bio \*bio)$|#error kbench fixture: this commit does not build\n&|' block/blk-core.c
grep -q '^#error kbench fixture' block/blk-core.c
commit "block: a commit that does not build"
broken=$(git rev-parse HEAD)

sed -i '/^#error kbench fixture/d' block/blk-core.c
sed -i '/kbench fixture: this commit does not boot/d' init/main.c
commit "block, init: build and boot again"

# The write branch of submit_bio (bio_op(bio) == REQ_OP_WRITE) spins.
sed -i 's|^\t\tcount_vm_events(PGPGOUT, bio_sectors(bio));$|&\n\t\t{ volatile unsigned int kb_spin; for (kb_spin = 0; kb_spin < 50000; kb_spin++) cpu_relax(); }|' \
        block/blk-core.c
grep -q 'kb_spin < 50000' block/blk-core.c
commit "block: spin on every write bio"
culprit=$(git rev-parse HEAD)

# At the end of the file, so no line number in the image moves.
echo "/* kbench fixture: a comment only */" >> block/blk-core.c
commit "block: a comment"
git tag bad
echo "$culprit" > .git/kbench-culprit
echo "$broken" > .git/kbench-broken
echo "$noboot" > .git/kbench-noboot
echo "$FIXTURE" > .git/kbench-fixture
cd - >/dev/null
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "$dir: good $(git -C "$dir" rev-parse good), culprit $culprit, bad $(git -C "$dir" rev-parse bad)"
