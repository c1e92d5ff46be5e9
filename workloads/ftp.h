/* workloads/ftp: the FTP ingest workload (issue 5), after the 2002 seed post
 * that timed "an inbound FTP transfer of a 600 MB iso image". The guest runs
 * Debian's vsftpd with anonymous upload into the disk under test; the host
 * uploads SIZE bytes with libcurl from a seeded generator (no big file on the
 * host), records the transfer timeline, and tells the job when it is done;
 * the job checks the file, syncs, and reports. The pieces are exported so
 * the tests can run the real server and the real host side on 127.0.0.1. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "workloads/workload.h"

extern const struct workload_ops ftp_ops;

/* ---- data generator --------------------------------------------------- */

/* A position-addressable stream: byte k of the stream for a seed is byte
 * (k % 8) (little-endian) of splitmix64 output number k / 8 for that seed, so
 * it is the same however it is cut into reads, on any host. */
struct ftp_gen {
        uint64_t seed;
        uint64_t offset;           /* next byte of the stream, bytes */
};

void ftp_gen_init(struct ftp_gen *g, uint64_t seed);
/* Write the next len bytes of the stream into buf and advance. */
void ftp_gen_fill(struct ftp_gen *g, void *buf, size_t len);
/* splitmix64 output number i (0-based) for seed: the 64-bit words of the stream. */
uint64_t ftp_gen_word(uint64_t seed, uint64_t i);

/* ---- halt reduction --------------------------------------------------- */

struct ftp_halts {
        size_t count;              /* halts of at least min_s */
        double longest_s;          /* 0 when count == 0 */
        double total_s;            /* sum of the counted halts */
};

/* Reduce a transfer timeline (t[i] seconds, non-decreasing; bytes[i] bytes
 * accepted so far, non-decreasing) to halts: a halt is a run of samples with
 * the same byte count that starts with an increase and ends before one, and
 * lasts t[last of run] - t[first of run] (the time it was observed flat, a
 * lower bound by at most one sampling period). The run before the first byte
 * (login, PASV) and the run after the last byte (waiting for the 226 reply)
 * are not halts of the transfer. Runs shorter than min_s are ignored.
 * Returns 0, or -EINVAL for a NaN, a decreasing t or bytes (nothing written).
 * OUT: *ret. */
int ftp_halts(const double *t, const double *bytes, size_t n, double min_s,
              struct ftp_halts *ret);

/* ftp.setup_s of a timeline: the time from t_start (the start of the host
 * phase, on the clock of t) to the first sample whose byte count is above 0,
 * i.e. the banner wait, connect, login, EPSV and STOR before the first byte
 * leaves. Returns 0, -ENODATA when no sample has bytes, or -EINVAL for a NaN
 * or a first byte before t_start (nothing written). OUT: *ret_s, seconds. */
int ftp_setup_s(double t_start, const double *t, const double *bytes, size_t n,
                double *ret_s);

/* ---- guest side ------------------------------------------------------- */

/* Where the server runs; the guest values come from ftp_ops.script, the tests
 * use a temporary directory on 127.0.0.1. Paths are [A-Za-z0-9/._-]+. */
struct ftp_server_params {
        const char *dir;           /* served root; the job creates <dir>/in, owned by user */
        const char *run_dir;       /* vsftpd.conf and the empty secure_chroot_dir */
        const char *user;          /* ftp_username: the uid that writes uploads, "ftp" */
        const char *listen_address; /* NULL = all addresses (the guest) */
        uint16_t port;             /* control port, 21 in the guest */
        uint16_t pasv_min, pasv_max; /* passive data port range */
        const char *link_dev;      /* the guest's NIC: IPv6 off on it, and "host-start"
                                      waits for its carrier; NULL = neither (never set it
                                      where the script runs on the host) */
};

/* The vsftpd.conf text for p. OUT: *ret_text (caller frees). -EINVAL names
 * the bad field. */
int ftp_vsftpd_conf(const struct ftp_server_params *p, char **ret_text, struct kb_error *err);

/* The job script (busybox sh) for p: prepare <dir>/in, write the config,
 * start vsftpd, wait until p->port listens (if vsftpd exits first: print
 * "ftp-error: vsftpd exited: <its 500 OOPS text>" and exit 1 without
 * "host-start") and, with p->link_dev (IPv6 is turned off on it first),
 * until that interface has carrier (else "ftp-error: <dev> has no carrier
 * ..."), "host-start" on fd 3, wait for the host's line on host_fifo,
 * report. verify: also compare the sha256 the host sent. OUT: *ret_script
 * (caller frees). */
int ftp_script_build(const struct ftp_server_params *p, const char *host_fifo, int verify,
                     char **ret_script, struct kb_error *err);

/* ---- host side -------------------------------------------------------- */

struct ftp_params {
        uint64_t size;             /* bytes to upload */
        uint64_t seed;             /* generator seed */
        int verify;                /* compute and send the sha256 of the stream */
        uint64_t rate;             /* upload limit, bytes/s (libcurl's
                                      CURLOPT_MAX_SEND_SPEED_LARGE); 0: none */
        double banner_timeout_s;   /* how long to wait for the 220 banner, seconds */
};

/* The upload settings of a parsed ftp spec (size, verify, seed, rate; seed
 * "" = env->seed). Returns 0, or -EINVAL for a spec of another workload.
 * OUT: *ret. */
int ftp_params_from_spec(const struct workload_spec *spec, const struct workload_env *env,
                         struct ftp_params *ret, struct kb_error *err);

/* The host phase with explicit settings: wait for the banner on
 * 127.0.0.1:env->ports[0], upload p->size bytes to /in/data, record
 * "ftp.bytes" timeline points (the first one with bytes as soon as it is
 * seen, not on the 10 Hz schedule), add ftp.setup_s (ftp_setup_s from the
 * call of ftp_upload), ftp.upload_s (first command to 226), ftp.MBps (over
 * the data phase only, after login, PASV and STOR) and the halt metrics to
 * host->metrics, then say "uploaded <size> <sha256|->
 * <upload_s>" (or "failed" when the upload failed, so the job does not wait
 * forever). Returns 0, -ETIMEDOUT (no banner), -ECANCELED, -EIO (transfer
 * failed; curl's message and the server's last reply in err), -ENOMEM. */
int ftp_upload(struct workload_host *host, const struct ftp_params *p, struct kb_error *err);
