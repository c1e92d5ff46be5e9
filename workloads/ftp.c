/* ftp.c: the FTP ingest workload (issue 5). The guest job starts vsftpd with
 * anonymous upload into the disk under test and waits; the host side (a
 * libcurl upload fed by a seeded generator) runs on the harness's thread,
 * records the bytes-accepted timeline, and tells the job the size, checksum
 * and upload time; the job checks the file, syncs and prints the results.
 * The parser stays pure: everything it needs, the host's upload time
 * included, comes back in the job's output. */
#include <arpa/inet.h>
#include <ctype.h>
#include <curl/curl.h>
#include <endian.h>
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/parse.h"
#include "common/util.h"
#include "workloads/ftp.h"

#define FTP_POINT_PERIOD_S 0.1         /* timeline resolution the issue asks for */
#define FTP_HALT_MIN_S 1.0             /* "intervals >= 1 s with no bytes accepted" */
#define FTP_BANNER_TIMEOUT_S 60.0      /* vsftpd is started just before host-start */
#define FTP_REMOTE_PATH "/in/data"
#define FTP_LINE_MAX 512               /* longest job output line we look at */
#define FTP_LISTEN_WAIT_S 30           /* the job's wait for vsftpd to listen (0.1 s polls) */

/* ---- data generator --------------------------------------------------- */

uint64_t ftp_gen_word(uint64_t seed, uint64_t i) {
        /* splitmix64 (Steele, Lea, Flood; Vigna's reference): the state after
         * i + 1 steps is seed + (i + 1) * golden, so any word is one mix away. */
        uint64_t z = seed + (i + 1) * UINT64_C(0x9e3779b97f4a7c15);

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

void ftp_gen_init(struct ftp_gen *g, uint64_t seed) {
        *g = (struct ftp_gen){ .seed = seed };
}

void ftp_gen_fill(struct ftp_gen *g, void *buf, size_t len) {
        uint8_t *p = buf;
        uint64_t w = g->offset / 8;
        size_t skip = g->offset % 8;

        g->offset += len;
        if (skip && len) {
                uint64_t v = htole64(ftp_gen_word(g->seed, w++));
                size_t n = 8 - skip < len ? 8 - skip : len;
                memcpy(p, (uint8_t *)&v + skip, n);
                p += n;
                len -= n;
        }
        for (; len >= 8; len -= 8, p += 8) {
                uint64_t v = htole64(ftp_gen_word(g->seed, w++));
                memcpy(p, &v, 8);
        }
        if (len) {
                uint64_t v = htole64(ftp_gen_word(g->seed, w));
                memcpy(p, &v, len);
        }
}

/* ---- halt reduction --------------------------------------------------- */

int ftp_halts(const double *t, const double *bytes, size_t n, double min_s,
              struct ftp_halts *ret) {
        struct ftp_halts h = { 0 };
        size_t start = 0;          /* first sample of the current flat run */

        for (size_t i = 0; i < n; i++) {
                if (isnan(t[i]) || isnan(bytes[i]))
                        return -EINVAL;
                if (i > 0 && (t[i] < t[i - 1] || bytes[i] < bytes[i - 1]))
                        return -EINVAL;
        }
        for (size_t i = 1; i < n; i++) {
                if (bytes[i] == bytes[start])
                        continue;
                /* Run [start, i-1] ended with an increase; it counts only if it
                 * also began with one (start > 0). */
                if (start > 0) {
                        double d = t[i - 1] - t[start];
                        if (d >= min_s) {
                                h.count++;
                                h.total_s += d;
                                if (d > h.longest_s)
                                        h.longest_s = d;
                        }
                }
                start = i;
        }
        *ret = h;
        return 0;
}

/* ---- keys ------------------------------------------------------------- */

static const struct workload_key ftp_keys[] = {
        { "size", WKEY_SIZE, "600M", "bytes uploaded (the seed post's 600 MB iso)" },
        { "verify", WKEY_BOOL, "0", "the job also compares the file's sha256 with the host's" },
        { "seed", WKEY_UINT, "", "generator seed (default: the cell's seed)" },
        { NULL }
};

/* The value of key in spec, or NULL when spec does not carry it. */
static const char *ftp_spec_value(const struct workload_spec *spec, const char *key) {
        for (size_t i = 0; ftp_keys[i].name; i++)
                if (strcmp(ftp_keys[i].name, key) == 0)
                        return spec && i < spec->n && spec->values ? spec->values[i] : NULL;
        return NULL;
}

int ftp_params_from_spec(const struct workload_spec *spec, const struct workload_env *env,
                         struct ftp_params *ret, struct kb_error *err) {
        struct ftp_params p = { .banner_timeout_s = FTP_BANNER_TIMEOUT_S };
        const char *size = ftp_spec_value(spec, "size");
        const char *verify = ftp_spec_value(spec, "verify");
        const char *seed = ftp_spec_value(spec, "seed");

        if (!size || !*size)
                size = "600M";
        if (parse_size(size, &p.size) < 0 || p.size == 0)
                return error_setf(err, -EINVAL, "workload ftp: bad size '%s'", size);
        if (verify && *verify && parse_bool(verify, &p.verify) < 0)
                return error_setf(err, -EINVAL, "workload ftp: bad verify '%s'", verify);
        p.seed = env ? env->seed : 0;
        if (seed && *seed && parse_u64(seed, &p.seed) < 0)
                return error_setf(err, -EINVAL, "workload ftp: bad seed '%s'", seed);
        *ret = p;
        return 0;
}

/* ---- guest side ------------------------------------------------------- */

/* Paths and names end up in a shell script and a config file unquoted. */
static int ftp_safe_word(const char *s) {
        if (!s || !*s || strlen(s) > 200)
                return 0;
        for (; *s; s++)
                if (!isalnum((unsigned char)*s) && !strchr("/._-", *s))
                        return 0;
        return 1;
}

int ftp_vsftpd_conf(const struct ftp_server_params *p, char **ret_text, struct kb_error *err) {
        g_autofree char *listen = NULL;
        char *text;

        if (!ftp_safe_word(p->dir) || !ftp_safe_word(p->run_dir) || !ftp_safe_word(p->user))
                return error_setf(err, -EINVAL, "workload ftp: unsafe path or user name");
        if (p->listen_address && !ftp_safe_word(p->listen_address))
                return error_setf(err, -EINVAL, "workload ftp: bad listen address");
        if (p->port == 0 || p->pasv_min == 0 || p->pasv_max < p->pasv_min)
                return error_setf(err, -EINVAL, "workload ftp: bad ports %u, %u-%u",
                                  p->port, p->pasv_min, p->pasv_max);
        listen = p->listen_address ? g_strdup_printf("listen_address=%s\n", p->listen_address)
                                   : g_strdup("");
        /* Standalone, foreground, anonymous upload only. No PAM (anonymous
         * logins do not use it), no seccomp sandbox and no namespaces: the
         * guest kernels range over decades and these are not what we measure.
         * Timeouts are long because a writeout stall can hold a transfer for
         * minutes, and that is the thing we want to see, not a disconnect. */
        text = g_strdup_printf(
                "listen=YES\n"
                "listen_ipv6=NO\n"
                "%s"
                "listen_port=%u\n"
                "background=NO\n"
                "anonymous_enable=YES\n"
                "local_enable=NO\n"
                "no_anon_password=YES\n"
                "ftp_username=%s\n"
                "anon_root=%s\n"
                "write_enable=YES\n"
                "anon_upload_enable=YES\n"
                "anon_mkdir_write_enable=NO\n"
                "anon_other_write_enable=NO\n"
                "anon_umask=022\n"
                "secure_chroot_dir=%s/empty\n"
                "seccomp_sandbox=NO\n"
                "isolate=NO\n"
                "isolate_network=NO\n"
                "connect_from_port_20=NO\n"
                "pasv_enable=YES\n"
                "pasv_min_port=%u\n"
                "pasv_max_port=%u\n"
                "xferlog_enable=NO\n"
                "dirmessage_enable=NO\n"
                "idle_session_timeout=3600\n"
                "data_connection_timeout=3600\n",
                listen, p->port, p->user, p->dir, p->run_dir, p->pasv_min, p->pasv_max);
        *ret_text = text;
        return 0;
}

int ftp_script_build(const struct ftp_server_params *p, const char *host_fifo, int verify,
                     char **ret_script, struct kb_error *err) {
        g_autofree char *conf = NULL;
        GString *s;
        int r;

        if (!ftp_safe_word(host_fifo))
                return error_setf(err, -EINVAL, "workload ftp: unsafe host fifo path");
        r = ftp_vsftpd_conf(p, &conf, err);
        if (r < 0)
                return r;
        s = g_string_new(NULL);
        /* Lines the parser reads start with "ftp-"; "ftp-error:" lines make
         * the cell fail with that text. verify runs after sync-end so that
         * reading the file back does not count towards ingest time. */
        g_string_append_printf(s,
                "# kbench ftp job: vsftpd receives the host's upload on the disk under test\n"
                "set -f\n"
                "d=%s\n"
                "r=%s\n"
                "rm -f \"$d/in/data\"\n"
                "mkdir -p \"$d/in\" \"$r/empty\" || exit 1\n"
                "chmod 755 \"$d\" \"$r/empty\" || exit 1\n"
                "chown %s \"$d/in\" || exit 1\n"
                "cat > \"$r/vsftpd.conf\" <<'KBENCH_FTP_EOF'\n"
                "%s"
                "KBENCH_FTP_EOF\n"
                "/usr/sbin/vsftpd \"$r/vsftpd.conf\" 0<>\"$r/vsftpd.log\" 1>&0 2>&0 &\n"
                "pid=$!\n"
                "n=0\n"
                "while ! grep -q ':%04X 00000000:0000 0A' /proc/net/tcp; do\n"
                "        if ! kill -0 $pid 2>/dev/null; then\n"
                "                echo \"ftp-error: vsftpd exited:\" $(tr -d '\\r' < \"$r/vsftpd.log\" | head -c 300)\n"
                "                exit 1\n"
                "        fi\n"
                "        n=$((n + 1))\n"
                "        if [ $n -gt %d ]; then\n"
                "                echo \"ftp-error: vsftpd is not listening on port %u after %d s\"\n"
                "                kill $pid 2>/dev/null\n"
                "                exit 1\n"
                "        fi\n"
                "        sleep 0.1\n"
                "done\n"
                "echo host-start >&3\n"
                "read line < %s\n"
                "echo upload-seen >&3\n"
                "kill $pid 2>/dev/null\n"
                "set -- $line\n"
                "if [ \"$1\" != uploaded ] || [ $# -ne 4 ]; then\n"
                "        echo \"ftp-error: the host upload failed ($line)\"\n"
                "        exit 1\n"
                "fi\n"
                "size=$(stat -c %%s \"$d/in/data\") || size=0\n"
                "echo \"ftp-expected $2\"\n"
                "echo \"ftp-size $size\"\n"
                "echo \"ftp-upload-s $4\"\n"
                "echo sync-start >&3\n"
                "sync\n"
                "echo sync-end >&3\n"
                "rc=0\n"
                "if [ \"$size\" != \"$2\" ]; then\n"
                "        echo \"ftp-error: short file: $size of $2 bytes\"\n"
                "        rc=1\n"
                "fi\n",
                p->dir, p->run_dir, p->user, conf, p->port, FTP_LISTEN_WAIT_S * 10, p->port,
                FTP_LISTEN_WAIT_S, host_fifo);
        if (verify)
                g_string_append(s,
                        "echo verify-start >&3\n"
                        "sum=$(sha256sum \"$d/in/data\")\n"
                        "sum=${sum%% *}\n"
                        "echo verify-end >&3\n"
                        "echo \"ftp-sha256 $sum\"\n"
                        "if [ \"$sum\" != \"$3\" ]; then\n"
                        "        echo \"ftp-error: checksum mismatch: file $sum, sent $3\"\n"
                        "        rc=1\n"
                        "fi\n");
        g_string_append(s, "exit $rc\n");
        *ret_script = g_string_free(s, FALSE);
        return 0;
}

static int ftp_script(const struct workload_spec *spec, const struct workload_env *env,
                      char **ret_script, struct kb_error *err) {
        g_autofree char *dir = NULL;
        struct ftp_server_params sp;
        struct ftp_params p;
        int r;

        r = ftp_params_from_spec(spec, env, &p, err);
        if (r < 0)
                return r;
        if (env->nports < 5)
                return error_setf(err, -EINVAL, "workload ftp: needs 5 forwarded ports, got %d",
                                  env->nports);
        /* vsftpd takes a range, so the passive forwards must be consecutive. */
        for (int i = 2; i < 5; i++)
                if (env->ports[i] != env->ports[1] + i - 1)
                        return error_setf(err, -EINVAL,
                                          "workload ftp: passive ports %u %u %u %u are not consecutive",
                                          env->ports[1], env->ports[2], env->ports[3], env->ports[4]);
        if (env->disk_bytes && p.size > env->disk_bytes)
                return error_setf(err, -EINVAL,
                                  "workload ftp: size %" PRIu64 " bytes does not fit the %" PRIu64
                                  "-byte disk", p.size, env->disk_bytes);
        dir = g_strdup_printf("%s/ftp", env->mnt);
        sp = (struct ftp_server_params){
                .dir = dir,
                .run_dir = "/run/kbench-ftp",
                .user = "ftp",
                .listen_address = NULL,
                .port = 21,
                .pasv_min = env->ports[1],
                .pasv_max = env->ports[4],
        };
        return ftp_script_build(&sp, "/run/kbench/host", p.verify, ret_script, err);
}

/* ---- parser ----------------------------------------------------------- */

/* A printable, bounded copy of untrusted text for an error message. */
static void ftp_quote(char *dst, size_t size, const char *src) {
        size_t i = 0;

        for (; src && src[i] && i + 1 < size && i < 160; i++)
                dst[i] = isprint((unsigned char)src[i]) ? src[i] : '?';
        dst[i] = '\0';
}

static int ftp_event_time(const struct workload_output *out, const char *name, double *ret,
                          struct kb_error *err) {
        int found = 0;
        double t = 0;

        for (size_t i = 0; i < out->n_events; i++) {
                if (!out->events[i] || strcmp(out->events[i], name) != 0)
                        continue;
                if (found++)
                        return error_setf(err, -EINVAL, "ftp: event '%s' twice", name);
                t = out->event_t[i];
        }
        if (!found)
                return error_setf(err, -EINVAL, "ftp: the job never reported '%s'", name);
        if (!isfinite(t))
                return error_setf(err, -EINVAL, "ftp: bad time of event '%s'", name);
        *ret = t;
        return 0;
}

static int ftp_parse(const struct workload_spec *spec, const struct workload_output *out,
                     struct metric_list *metrics, struct kb_error *err) {
        uint64_t expected = 0, size = 0;
        double upload_s = 0, seen, sync0, sync1;
        int have_expected = 0, have_size = 0, have_upload = 0, have_sum = 0;
        const char *verify = ftp_spec_value(spec, "verify");
        int want_sum = 0, r;
        char q[200];

        if (verify && *verify && parse_bool(verify, &want_sum) < 0)
                want_sum = 0;
        for (size_t i = 0; i < out->n_lines; i++) {
                const char *line = out->lines[i] ? out->lines[i] : "";
                size_t len = strnlen(line, FTP_LINE_MAX + 1);
                char buf[FTP_LINE_MAX + 1], *val;
                int *have = NULL;

                ftp_quote(q, sizeof(q), line);
                if (len > FTP_LINE_MAX)
                        return error_setf(err, -EINVAL, "ftp: output line too long: '%s...'", q);
                if (strncmp(line, "ftp-error:", 10) == 0)
                        return error_setf(err, -EIO, "ftp: %s", q + 4);
                memcpy(buf, line, len + 1);
                val = strchr(buf, ' ');
                if (!val)
                        return error_setf(err, -EINVAL, "ftp: unexpected output line '%s'", q);
                *val++ = '\0';
                if (strcmp(buf, "ftp-expected") == 0) {
                        have = &have_expected;
                        r = parse_u64(val, &expected);
                } else if (strcmp(buf, "ftp-size") == 0) {
                        have = &have_size;
                        r = parse_u64(val, &size);
                } else if (strcmp(buf, "ftp-upload-s") == 0) {
                        have = &have_upload;
                        r = parse_double(val, &upload_s);
                        if (r == 0 && upload_s < 0)
                                r = -ERANGE;
                } else if (strcmp(buf, "ftp-sha256") == 0) {
                        have = &have_sum;
                        r = strlen(val) == 64 && strspn(val, "0123456789abcdef") == 64 ? 0 : -EINVAL;
                } else
                        return error_setf(err, -EINVAL, "ftp: unexpected output line '%s'", q);
                if (r < 0)
                        return error_setf(err, -EINVAL, "ftp: bad value in '%s'", q);
                if ((*have)++)
                        return error_setf(err, -EINVAL, "ftp: line '%s' repeated", q);
        }
        if (!have_expected || !have_size || !have_upload)
                return error_setf(err, -EINVAL, "ftp: the job did not report %s",
                                  !have_expected ? "ftp-expected" :
                                  !have_size ? "ftp-size" : "ftp-upload-s");
        if (size != expected)
                return error_setf(err, -EIO, "ftp: short file: %" PRIu64 " of %" PRIu64 " bytes",
                                  size, expected);
        if (want_sum && !have_sum)
                return error_setf(err, -EINVAL, "ftp: verify=1 but the job printed no ftp-sha256");
        if ((r = ftp_event_time(out, "upload-seen", &seen, err)) < 0 ||
            (r = ftp_event_time(out, "sync-start", &sync0, err)) < 0 ||
            (r = ftp_event_time(out, "sync-end", &sync1, err)) < 0)
                return r;
        if (!(seen <= sync0 && sync0 <= sync1))
                return error_setf(err, -EINVAL, "ftp: events out of order (%.3f %.3f %.3f)",
                                  seen, sync0, sync1);
        /* Two clocks: upload_s is host time (first FTP command to the 226
         * reply), the rest is guest monotonic time from the job learning the
         * upload is over to the end of sync. The say round trip between them
         * (milliseconds) is the only part not counted. */
        if ((r = metric_add(metrics, "ftp.sync_s", sync1 - sync0, "s")) < 0 ||
            (r = metric_add(metrics, "ftp.ingest_s", upload_s + (sync1 - seen), "s")) < 0)
                return error_setf(err, r, "ftp: out of memory");
        return 0;
}

/* ---- host side -------------------------------------------------------- */

static double ftp_mono(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void ftp_sleep(double s) {
        struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };

        if (s > 0)
                nanosleep(&ts, NULL);
}

/* Connect and read the first reply line. Returns 1 on a 220 banner, 0 on
 * "try again" (refused, closed, timed out; *why says which), or -EIO when
 * the server answered something else (vsftpd sends "500 OOPS: ..." for a
 * config error: that is the message the user needs). */
static int ftp_probe_banner(uint16_t port, double deadline, volatile int *cancel, char *why,
                            size_t why_size, struct kb_error *err) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        _cleanup_close_ int fd = -1;
        char buf[256], q[200];
        size_t n = 0;
        int soerr = 0;
        socklen_t sl = sizeof(soerr);
        struct pollfd pfd;

        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return error_setf(err, -errno, "ftp: socket: %s", strerror(errno));
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
                snprintf(why, why_size, "connect: %s", strerror(errno));
                return 0;
        }
        pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
        for (;;) {
                double left = deadline - ftp_mono();
                int pr;

                if (*cancel)
                        return error_setf(err, -ECANCELED, "ftp: cancelled while waiting for the server");
                if (left <= 0) {
                        snprintf(why, why_size, "%s", n || pfd.events == POLLIN ?
                                 "connected, but no banner" : "connect timed out");
                        return 0;
                }
                pr = poll(&pfd, 1, left > 0.1 ? 100 : (int)(left * 1000) + 1);
                if (pr < 0 && errno != EINTR)
                        return error_setf(err, -errno, "ftp: poll: %s", strerror(errno));
                if (pr <= 0)
                        continue;
                if (pfd.events == POLLOUT) {
                        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
                                snprintf(why, why_size, "connect: %s", strerror(soerr ? soerr : errno));
                                return 0;
                        }
                        pfd.events = POLLIN;
                        continue;
                }
                ssize_t k = read(fd, buf + n, sizeof(buf) - 1 - n);
                if (k < 0 && (errno == EAGAIN || errno == EINTR))
                        continue;
                if (k <= 0) {
                        snprintf(why, why_size, "connection closed before the banner");
                        return 0;
                }
                n += (size_t)k;
                buf[n] = '\0';
                if (!memchr(buf, '\n', n) && n < sizeof(buf) - 1)
                        continue;
                buf[strcspn(buf, "\r\n")] = '\0';
                if (strncmp(buf, "220", 3) == 0)
                        return 1;
                ftp_quote(q, sizeof(q), buf);
                return error_setf(err, -EIO, "ftp: server on 127.0.0.1:%u answered '%s' "
                                  "instead of a 220 banner", port, q);
        }
}

/* Wait until something on 127.0.0.1:port sends a 220 line: QEMU's forward
 * accepts (and then drops) connections before vsftpd listens in the guest. */
static int ftp_wait_banner(uint16_t port, double timeout_s, volatile int *cancel,
                           struct kb_error *err) {
        double deadline = ftp_mono() + timeout_s;
        char why[128] = "no attempt";

        for (;;) {
                int r = ftp_probe_banner(port, deadline, cancel, why, sizeof(why), err);
                if (r != 0)
                        return r < 0 ? r : 0;
                if (*cancel)
                        return error_setf(err, -ECANCELED, "ftp: cancelled while waiting for the server");
                if (ftp_mono() + 0.1 >= deadline)
                        return error_setf(err, -ETIMEDOUT,
                                          "ftp: no 220 banner from 127.0.0.1:%u within %.1f s (%s)",
                                          port, timeout_s, why);
                ftp_sleep(0.1);
        }
}

struct ftp_xfer {
        struct workload_host *host;
        struct ftp_gen gen;
        uint64_t size;             /* bytes to generate */
        GChecksum *sum;            /* sha256 of what was generated, or NULL */
        double next_due;           /* host->now() time of the next timeline point */
        double *pt_t, *pt_b;       /* our copy of the timeline, for the halts */
        size_t n_pt, cap_pt;
        int fail;                  /* -errno: a point could not be stored */
        char reply[160];           /* the server's last reply line, printable, for errors */
};

static double ftp_now(struct workload_host *host) {
        return host->now ? host->now(host->userdata) : ftp_mono();
}

static void ftp_xfer_point(struct ftp_xfer *x, double t, double bytes, int force) {
        if (x->fail || (!force && t < x->next_due))
                return;
        if (x->n_pt == x->cap_pt) {
                size_t cap = x->cap_pt ? 2 * x->cap_pt : 1024;
                double *a = realloc(x->pt_t, cap * sizeof(double));
                if (a)
                        x->pt_t = a;
                double *b = a ? realloc(x->pt_b, cap * sizeof(double)) : NULL;
                if (!a || !b) {
                        x->fail = -ENOMEM;
                        return;
                }
                x->pt_b = b;
                x->cap_pt = cap;
        }
        x->pt_t[x->n_pt] = t;
        x->pt_b[x->n_pt++] = bytes;
        if (x->host->point) {
                int r = x->host->point(x->host->userdata, "ftp.bytes", t, bytes);
                if (r < 0)
                        x->fail = r;
        }
        /* Keep a steady 10 Hz on average; after a gap, restart from now. */
        x->next_due += FTP_POINT_PERIOD_S;
        if (x->next_due <= t)
                x->next_due = t + FTP_POINT_PERIOD_S;
}

static size_t ftp_read_cb(char *buf, size_t size, size_t nitems, void *userdata) {
        struct ftp_xfer *x = userdata;
        uint64_t left = x->size - x->gen.offset;
        size_t n = size * nitems;

        if (n > left)
                n = (size_t)left;
        ftp_gen_fill(&x->gen, buf, n);
        if (x->sum)
                g_checksum_update(x->sum, (const guchar *)buf, (gssize)n);
        return n;
}

/* libcurl hands FTP server replies to the header callback: keep the last
 * one, so a refused STOR reports vsftpd's own words ("553 Could not create
 * file.") and not only curl's "Failed FTP upload: 553". */
static size_t ftp_header_cb(char *buf, size_t size, size_t nitems, void *userdata) {
        struct ftp_xfer *x = userdata;
        size_t n = size * nitems;

        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
                n--;
        if (n > 0) {
                g_autofree char *line = g_strndup(buf, MIN(n, sizeof(x->reply) - 1));
                ftp_quote(x->reply, sizeof(x->reply), line);
        }
        return size * nitems;
}

static int ftp_xferinfo_cb(void *clientp, curl_off_t dltotal, curl_off_t dlnow,
                           curl_off_t ultotal, curl_off_t ulnow) {
        struct ftp_xfer *x = clientp;

        if (*x->host->cancel || x->fail)
                return 1;          /* CURLE_ABORTED_BY_CALLBACK */
        ftp_xfer_point(x, ftp_now(x->host), (double)ulnow, 0);
        return 0;
}

static pthread_once_t ftp_curl_once = PTHREAD_ONCE_INIT;

static void ftp_curl_init(void) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* Run the transfer. Returns 0 or -errno with err; OUT: *ret_t0 (before the
 * first command), *ret_t1 (the 226 reply), *ret_data_s (seconds of the data
 * phase: from the end of login, PASV and STOR, which curl calls pretransfer,
 * to the 226 reply). */
static int ftp_transfer(struct ftp_xfer *x, uint16_t port, double *ret_t0, double *ret_t1,
                        double *ret_data_s, struct kb_error *err) {
        char errbuf[CURL_ERROR_SIZE] = "", url[64];
        CURL *e = NULL;
        CURLM *m = NULL;
        CURLcode res = CURLE_OK;
        curl_off_t sent = 0, pre_us = 0;
        int running = 1, r = 0;
        double t0, t1;

        snprintf(url, sizeof(url), "ftp://127.0.0.1:%u" FTP_REMOTE_PATH, port);
        e = curl_easy_init();
        m = curl_multi_init();
        if (!e || !m) {
                r = error_setf(err, -ENOMEM, "ftp: curl init failed");
                goto out;
        }
        curl_easy_setopt(e, CURLOPT_URL, url);
        curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)x->size);
        curl_easy_setopt(e, CURLOPT_READFUNCTION, ftp_read_cb);
        curl_easy_setopt(e, CURLOPT_READDATA, x);
        curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, ftp_xferinfo_cb);
        curl_easy_setopt(e, CURLOPT_XFERINFODATA, x);
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, ftp_header_cb);
        curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
        curl_easy_setopt(e, CURLOPT_FTP_SKIP_PASV_IP, 1L);   /* PASV names 10.0.2.15 */
        curl_easy_setopt(e, CURLOPT_FTPPORT, NULL);           /* passive */
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, 30L);
        curl_easy_setopt(e, CURLOPT_UPLOAD_BUFFERSIZE, 256L * 1024);
        curl_multi_add_handle(m, e);

        t0 = ftp_now(x->host);
        x->next_due = t0;
        ftp_xfer_point(x, t0, 0, 1);
        while (running) {
                CURLMcode mc = curl_multi_perform(m, &running);
                double t = ftp_now(x->host);

                if (mc != CURLM_OK) {
                        r = error_setf(err, -EIO, "ftp: %s", curl_multi_strerror(mc));
                        goto out;
                }
                /* The progress callback slows to ~1/s when nothing moves; a
                 * halt is exactly when we need the points, so sample here too. */
                if (t >= x->next_due && curl_easy_getinfo(e, CURLINFO_SIZE_UPLOAD_T, &sent) == CURLE_OK)
                        ftp_xfer_point(x, t, (double)sent, 0);
                if (*x->host->cancel) {
                        r = error_setf(err, -ECANCELED, "ftp: upload cancelled");
                        goto out;
                }
                if (x->fail) {
                        r = error_setf(err, x->fail, "ftp: could not record the timeline: %s",
                                       strerror(-x->fail));
                        goto out;
                }
                if (!running)
                        break;
                double wait = (x->next_due - t) * 1000;
                curl_multi_poll(m, NULL, 0, wait < 1 ? 1 : wait > 100 ? 100 : (int)wait, NULL);
        }
        t1 = ftp_now(x->host);
        for (CURLMsg *msg; (msg = curl_multi_info_read(m, &running));)
                if (msg->msg == CURLMSG_DONE)
                        res = msg->data.result;
        if (res != CURLE_OK) {
                r = error_setf(err, res == CURLE_ABORTED_BY_CALLBACK && *x->host->cancel ? -ECANCELED : -EIO,
                               "ftp: upload to %s failed: %s%s%s%s", url,
                               errbuf[0] ? errbuf : curl_easy_strerror(res),
                               x->reply[0] ? " (server: '" : "", x->reply, x->reply[0] ? "')" : "");
                goto out;
        }
        curl_easy_getinfo(e, CURLINFO_SIZE_UPLOAD_T, &sent);
        if ((uint64_t)sent != x->size || x->gen.offset != x->size) {
                r = error_setf(err, -EIO, "ftp: upload to %s ended after %" PRId64 " of %" PRIu64
                               " bytes", url, (int64_t)sent, x->size);
                goto out;
        }
        ftp_xfer_point(x, t1, (double)sent, 1);
        if (x->fail) {
                r = error_setf(err, x->fail, "ftp: could not record the timeline");
                goto out;
        }
        if (curl_easy_getinfo(e, CURLINFO_PRETRANSFER_TIME_T, &pre_us) != CURLE_OK || pre_us < 0 ||
            (double)pre_us / 1e6 > t1 - t0) {
                r = error_setf(err, -EIO, "ftp: curl reported no valid pretransfer time (%" PRId64 " us)",
                               (int64_t)pre_us);
                goto out;
        }
        *ret_t0 = t0;
        *ret_t1 = t1;
        *ret_data_s = t1 - t0 - (double)pre_us / 1e6;
out:
        if (m && e)
                curl_multi_remove_handle(m, e);
        if (e)
                curl_easy_cleanup(e);
        if (m)
                curl_multi_cleanup(m);
        return r;
}

int ftp_upload(struct workload_host *host, const struct ftp_params *p, struct kb_error *err) {
        static volatile int never;
        struct workload_host h = *host;
        struct ftp_xfer x = { .host = &h, .size = p->size };
        struct ftp_halts halts;
        g_autofree char *line = NULL;
        double t0 = 0, t1 = 0, up_s, data_s = 0;
        uint16_t port;
        int r;

        if (!h.cancel)
                h.cancel = &never;
        if (!h.env || h.env->nports < 1 || h.env->ports[0] == 0)
                return error_setf(err, -EINVAL, "ftp: no forwarded control port");
        port = h.env->ports[0];
        pthread_once(&ftp_curl_once, ftp_curl_init);
        ftp_gen_init(&x.gen, p->seed);
        if (p->verify)
                x.sum = g_checksum_new(G_CHECKSUM_SHA256);

        r = ftp_wait_banner(port, p->banner_timeout_s, h.cancel, err);
        if (r >= 0)
                r = ftp_transfer(&x, port, &t0, &t1, &data_s, err);
        if (r >= 0) {
                up_s = t1 - t0;
                r = ftp_halts(x.pt_t, x.pt_b, x.n_pt, FTP_HALT_MIN_S, &halts);
                if (r < 0)
                        error_setf(err, r, "ftp: timeline is not monotonic");
        }
        if (r < 0) {
                /* Unblock the job's `read`; its failure line is then expected. */
                if (h.say)
                        h.say(h.userdata, "failed");
                goto out;
        }
        if (h.metrics &&
            ((r = metric_add(h.metrics, "ftp.upload_s", up_s, "s")) < 0 ||
             (r = metric_add(h.metrics, "ftp.MBps", data_s > 0 ? (double)p->size / 1e6 / data_s : 0, "MB/s")) < 0 ||
             (r = metric_add(h.metrics, "ftp.halt_count", (double)halts.count, "")) < 0 ||
             (r = metric_add(h.metrics, "ftp.halt_longest_s", halts.longest_s, "s")) < 0 ||
             (r = metric_add(h.metrics, "ftp.halt_total_s", halts.total_s, "s")) < 0)) {
                error_setf(err, r, "ftp: out of memory");
                goto out;
        }
        line = g_strdup_printf("uploaded %" PRIu64 " %s %.6f", p->size,
                               x.sum ? g_checksum_get_string(x.sum) : "-", up_s);
        r = h.say ? h.say(h.userdata, line) : -ENOTCONN;
        if (r < 0)
                error_setf(err, r, "ftp: could not tell the job the upload is done");
        else
                r = 0;
out:
        if (x.sum)
                g_checksum_free(x.sum);
        free(x.pt_t);
        free(x.pt_b);
        return r;
}

static int ftp_host(struct workload_host *host, struct kb_error *err) {
        struct ftp_params p;
        int r = ftp_params_from_spec(host->spec, host->env, &p, err);

        return r < 0 ? r : ftp_upload(host, &p, err);
}

/* ---- registration ----------------------------------------------------- */

static const char *const ftp_binaries[] = { "/usr/sbin/vsftpd", NULL };
static const char *const ftp_files[] = { NULL };
static const char *const ftp_modules[] = { "e1000", NULL };

static const struct metric_def ftp_metrics[] = {
        { "ftp.ingest_s", "s", 0 },
        { "ftp.upload_s", "s", 0 },
        { "ftp.sync_s", "s", 0 },
        { "ftp.MBps", "MB/s", 1 },
        { "ftp.halt_count", "", 0 },
        { "ftp.halt_longest_s", "s", 0 },
        { "ftp.halt_total_s", "s", 0 },
        { NULL }
};

const struct workload_ops ftp_ops = {
        .name = "ftp",
        .summary = "inbound FTP upload of SIZE bytes into vsftpd on the disk under test, then sync",
        .keys = ftp_keys,
        .guest_binaries = ftp_binaries,
        .guest_files = ftp_files,
        .guest_modules = ftp_modules,
        .n_ports = 5,
        .guest_ports = { 21 },                   /* control; the passive ports map 1:1 */
        .script = ftp_script,
        .parse = ftp_parse,
        .host = ftp_host,
        .metrics = ftp_metrics,
        .vmstat_window = "ftp.bytes",
};
