"""What the integration tests share: how to call kbench (its path is the
test's first argument) on a temporary store, the checks' output (a line per
check; the first failing one ends the test), and where the Debian kernels are."""
import contextlib
import glob
import os
import shutil
import subprocess
import sys
import tempfile

KBENCH = sys.argv[1]
DEBS = os.environ.get("KBENCH_DEBS", "/var/cache/kbench-debs")


def kb(home, *args, check=True, timeout=1800):
    """Run kbench on the store home; with check, a non-zero exit fails the test."""
    p = subprocess.run([KBENCH, "--store", home, *args], capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        sys.exit(f"FAIL: kbench {' '.join(args)} exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def expect(cond, msg):
    if not cond:
        sys.exit("FAIL: " + msg)
    print("ok:", msg)


def expect_vmstat_per_second(cell):
    """The sampler sends one vmstat row a second while the job runs: the
    number of rows follows the job's duration at any host speed (a check of
    "at least N rows" would only hold on a slow enough host)."""
    n, w = cell["vmstat_samples"], cell["workload_s"]
    expect(n >= 1 and abs(n - w) <= 0.25 * w + 2,
           f"cell {cell['key']}: {n} vmstat rows over a {w:.1f} s job (one a second)")


def debs(pattern, count=1):
    """The first count .debs in $KBENCH_DEBS matching pattern, or fail."""
    found = sorted(glob.glob(os.path.join(DEBS, pattern)))
    if len(found) < count:
        sys.exit(f"FAIL: need {count} {pattern} in {DEBS} (run tools/setup.sh)")
    return found[:count]


@contextlib.contextmanager
def temp_store(prefix):
    """A fresh kbench store under $KBENCH_TEST_TMP (default /var/tmp), removed afterwards."""
    home = tempfile.mkdtemp(prefix=prefix, dir=os.environ.get("KBENCH_TEST_TMP", "/var/tmp"))
    # mkdtemp makes it 0700; as root kbench runs QEMU as libvirt-qemu, which
    # must be able to enter the store (searchable, not listable).
    os.chmod(home, 0o711)
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)
