/* host/hostload: how busy the host was beside a cell. A measurement on a
 * 2-core host is only as good as the host was quiet (a dd A/A comparison gave
 * a CoV of 2.2 % idle and 15 % beside two compilations), so each cell records
 * the CPU time that processes other than its own QEMU (and kbench itself)
 * used during the workload window, as a share of the host's capacity, and
 * the load average at the start. Two snapshots of the host's /proc (the
 * aggregate cpu line of /proc/stat, /proc/<pid>/stat of the excluded
 * processes, /proc/loadavg) are taken around the window; the arithmetic on
 * them is pure. Files are read under a root directory so tests use fixture
 * trees. Only meaningful where kbench and QEMU share a host: over a remote
 * libvirt URI the caller records the figures as unknown. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Bounds on what is read: a parsed line (the cpu lines of /proc/stat, the
 * single line of /proc/<pid>/stat or /proc/loadavg) longer than
 * HOSTLOAD_LINE_MAX is malformed; a file longer than HOSTLOAD_FILE_MAX (a
 * /proc/stat with many interrupt counters stays far below it) is refused. */
#define HOSTLOAD_LINE_MAX 1024
#define HOSTLOAD_FILE_MAX (1024 * 1024)
#define HOSTLOAD_PIDS_MAX 4

/* The fields of the aggregate cpu line used here, in the kernel's order.
 * guest and guest_nice are left out: the kernel already counts them in
 * user and nice. */
enum {
        HOSTLOAD_USER, HOSTLOAD_NICE, HOSTLOAD_SYSTEM, HOSTLOAD_IDLE,
        HOSTLOAD_IOWAIT, HOSTLOAD_IRQ, HOSTLOAD_SOFTIRQ, HOSTLOAD_STEAL,
        HOSTLOAD_CPU_FIELDS
};

struct hostload_proc {
        int pid;
        uint64_t starttime;                /* clock ticks after boot; tells a reused pid apart */
        uint64_t ticks;                    /* utime + stime, clock ticks: not its children's
                                              (cutime, cstime), reaped whenever, by kbench the QEMUs
                                              of earlier cells (vm.c), whose whole lives would land
                                              in one window */
};

/* One reading of the host. Counters are cumulative since boot. */
struct hostload_snap {
        double t;                          /* the caller's monotonic clock, seconds */
        uint64_t cpu[HOSTLOAD_CPU_FIELDS]; /* aggregate cpu line, clock ticks */
        unsigned ncpus;                    /* "cpuN" lines: CPUs online */
        double loadavg1;                   /* 1-minute load average */
        size_t n_procs;
        struct hostload_proc procs[HOSTLOAD_PIDS_MAX];
};

struct hostload_figures {
        double foreign_pct;                /* CPU of everything not excluded, % of ncpus x wall */
        double excluded_pct;               /* CPU of the excluded processes, same scale */
        double loadavg1;                   /* at the start of the window */
        double wall_s;                     /* length of the window */
};

/* Parse the text of /proc/stat (len bytes, need not be NUL-terminated): the
 * aggregate "cpu" line (at least the 8 fields up to steal; kernels older than
 * 2.6.11 lack steal and are refused) and the count of "cpuN" lines. Other
 * lines are skipped whatever their length. name is the file for messages.
 * Returns 0, or -EBADMSG with err naming the file and the field. OUT: the
 * cpu and ncpus fields of *snap, written only on success. */
int hostload_parse_stat(const char *buf, size_t len, const char *name, struct hostload_snap *snap,
                        struct kb_error *err);

/* Parse /proc/<pid>/stat: "pid (comm) state ..." where comm may hold blanks
 * and parentheses (the last ')' ends it). Returns 0, or -EBADMSG with err.
 * OUT: *ret_proc (pid, starttime, ticks) written only on success. */
int hostload_parse_pid_stat(const char *buf, size_t len, const char *name, struct hostload_proc *ret_proc,
                            struct kb_error *err);

/* Parse /proc/loadavg ("0.52 0.40 0.30 1/150 4242"): the first figure.
 * Returns 0, or -EBADMSG with err. OUT: *ret_load1. */
int hostload_parse_loadavg(const char *buf, size_t len, const char *name, double *ret_load1,
                           struct kb_error *err);

/* Read <root>/proc/stat, <root>/proc/loadavg and <root>/proc/<pid>/stat for
 * each of the n_pids (<= HOSTLOAD_PIDS_MAX) pids ("/" on the host, a fixture
 * tree in tests); t is the caller's monotonic time of the reading. Returns 0;
 * -ESRCH when a process is gone (no such /proc entry, or it exited while
 * being read); -EFBIG, -EBADMSG, -EINVAL (too many pids) or another -errno,
 * each with err naming the file. OUT: *ret_snap written only on success. */
int hostload_read(const char *root, const int *pids, size_t n_pids, double t, struct hostload_snap *ret_snap,
                  struct kb_error *err);

/* Whether QEMU runs on this host for the libvirt URI: the qemu driver
 * without a host part ("qemu:///embed?root=...", "qemu:///system",
 * "qemu+unix:///session"). Anything with a host, even localhost over TCP or
 * SSH, counts as remote: its /proc is not known to be this one. */
int hostload_uri_local(const char *uri);

/* Find the QEMU of the libvirt domain called name under <root>/proc: the
 * process whose command line holds "guest=<name>" or "guest=<name>,..." (how
 * libvirt passes -name). Should two match (a domain of the same name still
 * being torn down), the younger one (larger starttime) is taken. Processes
 * that exit during the scan are skipped. Returns 0, -ENOENT (none, with
 * err), or -errno with err naming the directory. OUT: *ret_pid. */
int hostload_find_qemu(const char *root, const char *name, int *ret_pid, struct kb_error *err);

/* Parse /proc/<pid>/status for its "Uid:" line: real, effective, saved and
 * filesystem uid. Returns 0, or -EBADMSG with err naming the file (no such
 * line, or not four numbers). OUT: ret_uids[4] written only on success. */
int hostload_parse_status_uids(const char *buf, size_t len, const char *name, uint64_t ret_uids[4],
                               struct kb_error *err);

/* Read <root>/proc/<pid>/status and parse it as above: who a process runs
 * as, taken from the process itself. Returns 0, -ESRCH (gone), or another
 * -errno with err. OUT: ret_uids[4]. */
int hostload_read_uids(const char *root, int pid, uint64_t ret_uids[4], struct kb_error *err);

/* The figures for the window start -> end, clk_tck ticks per second
 * (sysconf(_SC_CLK_TCK)). Busy time is everything but idle and iowait;
 * steal counts as foreign (a hypervisor giving the CPU to someone else is
 * contention too). The foreign share is clamped to [0, 100]: the per-process
 * times are exact while /proc/stat is sampled per tick, so a quiet host can
 * come out a tick below zero. Returns 0, or with err: -EINVAL (no time
 * passed, clk_tck 0, the snapshots name different processes), -ERANGE (a
 * counter went backwards or the number of CPUs changed), -ESRCH (a pid was
 * reused by another process: its starttime changed). OUT: *ret. */
int hostload_compute(const struct hostload_snap *start, const struct hostload_snap *end, unsigned clk_tck,
                     struct hostload_figures *ret, struct kb_error *err);
