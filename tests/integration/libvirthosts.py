"""Libvirt hosts for the tests that spread cells over several hosts: each is
a libvirtd of its own on this machine, with its own configuration, state,
cache, log and socket directories, so to kbench it is as separate as a
daemon on another machine (it reaches it only through its socket, with the
remote driver). A daemon runs as root in a private mount namespace whose
/etc/libvirt, /run/libvirt, /var/lib/libvirt, /var/cache/libvirt and
/var/log/libvirt are directories of its own under the test's directory;
its socket is in that directory, outside the namespace's mounts, so kbench
connects with qemu+unix:///system?socket=DIR/libvirt-sock. Needs root and
libvirtd (tools/setup.sh installs libvirt-daemon)."""
import grp
import os
import shutil
import signal
import subprocess
import time

# What a daemon's private directories hide: libvirtd keeps its state in
# these whatever its configuration says.
MOUNTS = ["/etc/libvirt", "/run/libvirt", "/var/lib/libvirt", "/var/cache/libvirt", "/var/log/libvirt"]


def kvm_group():
    """The group QEMU runs in: /dev/kvm's, as kbench's own embedded driver
    takes it (a cache check of libvirt's depends on it, docs/design.md)."""
    try:
        return grp.getgrgid(os.stat("/dev/kvm").st_gid).gr_name
    except (OSError, KeyError):
        return "libvirt-qemu"


class Host:
    """One libvirtd. name: the directory's name; uri: how kbench reaches it."""

    def __init__(self, top, name):
        self.name = name
        self.dir = os.path.join(top, name)
        self.sock = os.path.join(self.dir, "libvirt-sock")
        self.uri = f"qemu+unix:///system?socket={self.sock}"
        self.proc = None

    def _write_config(self):
        os.makedirs(self.dir, exist_ok=True)
        os.chmod(self.dir, 0o711)
        for m in MOUNTS:
            os.makedirs(self.dir + m, exist_ok=True)
        with open(self.dir + "/etc/libvirt/libvirtd.conf", "w") as f:
            f.write(f'unix_sock_dir = "{self.dir}"\n'
                    'unix_sock_rw_perms = "0700"\nunix_sock_ro_perms = "0700"\n'
                    'auth_unix_rw = "none"\nauth_unix_ro = "none"\n'
                    f'log_outputs = "3:file:{self.dir}/libvirtd.log"\n')
        # QEMU as an unprivileged user, its output in files (no virtlogd in
        # the namespace), no private /dev per guest.
        with open(self.dir + "/etc/libvirt/qemu.conf", "w") as f:
            f.write(f'user = "libvirt-qemu"\ngroup = "{kvm_group()}"\n'
                    'stdio_handler = "file"\nnamespaces = []\nremember_owner = 0\n')

    def start(self, timeout=60):
        self._write_config()
        for m in MOUNTS:
            os.makedirs(m, exist_ok=True)
        binds = "; ".join(f"mount --bind {self.dir}{m} {m}" for m in MOUNTS)
        script = f"set -e; mount --make-rprivate /; {binds}; exec libvirtd --pid-file {self.dir}/libvirtd.pid"
        log = open(os.path.join(self.dir, "stderr.log"), "w")
        self.proc = subprocess.Popen(["unshare", "--mount", "--", "sh", "-c", script], stdout=log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        end = time.time() + timeout
        while not os.path.exists(self.sock):
            if self.proc.poll() is not None or time.time() > end:
                raise RuntimeError(f"libvirtd {self.name} did not start: see {self.dir}/stderr.log")
            time.sleep(0.1)

    def stop(self, sig=signal.SIGTERM):
        """Stop the daemon; its guests, as a real host's, stay until killed."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def kill_guests(self):
        """End every QEMU this daemon started (its pid files are in its run directory)."""
        piddir = self.dir + "/run/libvirt/qemu"
        for f in os.listdir(piddir) if os.path.isdir(piddir) else []:
            if not f.endswith(".pid"):
                continue
            try:
                with open(os.path.join(piddir, f)) as p:
                    os.kill(int(p.read().strip()), signal.SIGKILL)
            except (OSError, ValueError):
                pass


def start_hosts(top, names):
    hosts = [Host(top, n) for n in names]
    try:
        for h in hosts:
            h.start()
    except Exception:
        stop_hosts(hosts)
        raise
    return hosts


def stop_hosts(hosts):
    for h in hosts:
        h.stop()
        h.kill_guests()


def remove(top):
    shutil.rmtree(top, ignore_errors=True)
