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
#include "common/splitmix64.h"
#include "common/util.h"
#include "common/guest-paths.h"
#include "workloads/ftp.h"

#define FTP_POINT_PERIOD_S 0.1         /* timeline resolution the issue asks for */
#define FTP_UPLOAD_BUFFER_MAX (256 * 1024)  /* curl's upload buffer, bytes */
#define FTP_UPLOAD_BUFFER_MIN (16 * 1024)   /* CURLOPT_UPLOAD_BUFFERSIZE's minimum */
#define FTP_RATE_MIN (FTP_UPLOAD_BUFFER_MIN * 20)  /* below: bursts >= 50 ms apart */
#define FTP_BANNER_TIMEOUT_S 60.0      /* vsftpd is started just before host-start */
#define FTP_REMOTE_PATH "/in/data"
#define FTP_LINE_MAX 512               /* longest job output line we look at */
#define FTP_LISTEN_WAIT_S 30           /* the job's wait for vsftpd to listen (0.1 s polls) */
#define FTP_PROBE_FIRST_S 0.5          /* a silent banner probe is retried on a new connection */
#define FTP_PROBE_MAX_S 8.0            /* ... each attempt twice as long, up to this */

/* ---- data generator --------------------------------------------------- */

uint64_t ftp_gen_word(uint64_t seed, uint64_t i) {
        /* Position-addressable, so a read at any offset needs no walk. */
        return splitmix64_at(seed, i);
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

        for (size_t i = 0; i < n; i++) {
                if (isnan(t[i]) || isnan(bytes[i]))
                        return -EINVAL;
                if (i > 0 && (t[i] < t[i - 1] || bytes[i] < bytes[i - 1]))
                        return -EINVAL;
        }
        for (size_t pos = 0, first, last; ftp_halt_next(t, bytes, n, min_s, &pos, &first, &last);) {
                double d = t[last] - t[first];

                h.count++;
                h.total_s += d;
                if (d > h.longest_s)
                        h.longest_s = d;
        }
        *ret = h;
        return 0;
}

int ftp_halt_next(const double *t, const double *bytes, size_t n, double min_s, size_t *pos,
                  size_t *ret_first, size_t *ret_last) {
        size_t start = *pos;       /* first sample of the current flat run */

        for (size_t i = start + 1; i < n; i++) {
                if (bytes[i] == bytes[start])
                        continue;
                /* Run [start, i-1] ended with an increase; it counts only if it
                 * also began with one (start > 0). */
                if (start > 0 && t[i - 1] - t[start] >= min_s) {
                        *ret_first = start;
                        *ret_last = i - 1;
                        *pos = i;
                        return 1;
                }
                start = i;
        }
        *pos = n;
        return 0;
}

int ftp_setup_s(double t_start, const double *t, const double *bytes, size_t n,
                double *ret_s) {
        if (isnan(t_start))
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                if (isnan(t[i]) || isnan(bytes[i]))
                        return -EINVAL;
                if (bytes[i] <= 0)
                        continue;
                if (t[i] < t_start)
                        return -EINVAL;
                *ret_s = t[i] - t_start;
                return 0;
        }
        return -ENODATA;
}

/* ---- keys ------------------------------------------------------------- */

/* The keys fill struct ftp_params itself; the rest is set from the
 * environment by ftp_params_from_spec(). */
#define K(f) offsetof(struct ftp_params, f)
static const struct workload_key ftp_keys[] = {
        { "size", WKEY_SIZE, K(size), "600M", .unit = 1 << 20, .min = 1,
          .help = "bytes uploaded (the seed post's 600 MB iso); a bare number is MiB" },
        { "verify", WKEY_BOOL, K(verify), "0", .help = "the job also compares the file's sha256 with the host's" },
        { "seed", WKEY_COUNT, K(seed), "", .min = 1, .help = "generator seed, >= 1; computed: the cell's seed" },
        /* Below FTP_RATE_MIN libcurl's bursts would be far enough apart to read as halts. */
        { "rate", WKEY_SIZE, K(rate), "", .unit = 1, .min = FTP_RATE_MIN,
          .help = "upload limit per second, at least 320k (11M: about the seed post's 100 Mbit/s "
                  "link); a bare number is bytes; computed: no limit" },
        { NULL }
};
#undef K

int ftp_params_from_spec(const struct workload_spec *spec, const struct workload_env *env,
                         struct ftp_params *ret, struct kb_error *err) {
        struct ftp_params p;

        if (!spec || spec->ops != &ftp_ops || !spec->params)
                return error_setf(err, -EINVAL, "workload ftp: not an ftp specification");
        p = *(const struct ftp_params *)spec->params;
        p.banner_timeout_s = FTP_BANNER_TIMEOUT_S;

        if (p.seed == 0)
                p.seed = env ? env->seed : 0;
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

/* Start vsftpd with its configuration and wait until it listens: each
 * line of the job's shell script is a line here. */
static void script_server(GString *s, const struct ftp_server_params *p, const char *conf) {
        /* Nothing here uses IPv6, and its multicast joins when the link comes
         * up make the e1000 driver rewrite RCTL, after which QEMU's e1000
         * receives nothing for 1 s; so it goes before the link is up. A
         * kernel without IPv6 has no such file. */
        if (p->link_dev)
                g_string_append_printf(s,
                        "{ echo 1 > /proc/sys/net/ipv6/conf/%s/disable_ipv6; } 2>/dev/null\n",
                        p->link_dev);
        g_string_append_printf(s,
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
                "done\n",
                p->dir, p->run_dir, p->user, conf, p->port, FTP_LISTEN_WAIT_S * 10, p->port,
                FTP_LISTEN_WAIT_S);
}

static void script_carrier(GString *s, const struct ftp_server_params *p) {
        /* QEMU's user-mode network reaches the guest only once its NIC has
         * link: e1000 comes up about 2 s after the agent configures it, well
         * after vsftpd listens. Before that, the forward's SYN to the guest
         * waits for an ARP answer that never comes, is dropped after 1 s, and
         * slirp sends it again only after its 6 s initial retransmission
         * timeout; that was the idle wait of every cell (docs/ftp.md). */
        if (p->link_dev)
                g_string_append_printf(s,
                        "n=0\n"
                        "while [ \"$(cat /sys/class/net/%s/carrier 2>/dev/null)\" != 1 ]; do\n"
                        "        n=$((n + 1))\n"
                        "        if [ $n -gt %d ]; then\n"
                        "                echo \"ftp-error: %s has no carrier after %d s\"\n"
                        "                kill $pid 2>/dev/null\n"
                        "                exit 1\n"
                        "        fi\n"
                        "        sleep 0.1\n"
                        "done\n",
                        p->link_dev, FTP_LISTEN_WAIT_S * 10, p->link_dev, FTP_LISTEN_WAIT_S);
}

/* After the host's upload: report what arrived, sync, check its size. */
static void script_after_upload(GString *s, const char *host_fifo) {
        g_string_append_printf(s,
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
                host_fifo);
}

/* Read the file back for its checksum, after sync-end, so that reading it
 * does not count towards ingest time. */
static void script_verify(GString *s) {
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
}

int ftp_script_build(const struct ftp_server_params *p, const char *host_fifo, int verify,
                     char **ret_script, struct kb_error *err) {
        g_autofree char *conf = NULL;
        GString *s;
        int r;

        if (!ftp_safe_word(host_fifo))
                return error_setf(err, -EINVAL, "workload ftp: unsafe host fifo path");
        if (p->link_dev && (!ftp_safe_word(p->link_dev) || strchr(p->link_dev, '/')))
                return error_setf(err, -EINVAL, "workload ftp: bad link device name");
        r = ftp_vsftpd_conf(p, &conf, err);
        if (r < 0)
                return r;
        s = g_string_new(NULL);
        /* Lines the parser reads start with "ftp-"; "ftp-error:" lines make
         * the cell fail with that text. */
        g_string_append(s,
                "# kbench ftp job: vsftpd receives the host's upload on the disk under test\n"
                "set -f\n");
        script_server(s, p, conf);
        script_carrier(s, p);
        script_after_upload(s, host_fifo);
        if (verify)
                script_verify(s);
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
                .link_dev = "eth0",
        };
        return ftp_script_build(&sp, KB_GUEST_HOST_FIFO, p.verify, ret_script, err);
}

/* ---- parser ----------------------------------------------------------- */

/* A printable, bounded copy of untrusted text for an error message. */
static void ftp_quote(char *dst, size_t size, const char *src) {
        size_t i = 0;

        for (; src && src[i] && i + 1 < size && i < 160; i++)
                dst[i] = isprint((unsigned char)src[i]) ? src[i] : '?';
        dst[i] = '\0';
}

static int ftp_parse(const struct workload_spec *spec, const struct workload_output *out,
                     struct metric_list *metrics, struct kb_error *err) {
        uint64_t expected = 0, size = 0;
        double upload_s = 0, seen, sync0, sync1;
        int have_expected = 0, have_size = 0, have_upload = 0, have_sum = 0;
        int want_sum = spec && spec->ops == &ftp_ops && spec->params ?
                       ((const struct ftp_params *)spec->params)->verify : 0;
        int r;
        char q[200];

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
        if ((r = workload_event_time(out, "upload-seen", "ftp", &seen, err)) < 0 ||
            (r = workload_event_time(out, "sync-start", "ftp", &sync0, err)) < 0 ||
            (r = workload_event_time(out, "sync-end", "ftp", &sync1, err)) < 0)
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
 * accepts (and then drops) connections before vsftpd listens in the guest.
 * A connection that stays silent is given up after FTP_PROBE_FIRST_S and a
 * new one opened (each attempt twice as long as the last, so a slow server
 * still gets its time): the forward accepts at once and then sends its own
 * SYN to the guest, and if that SYN is lost slirp retries it only after its
 * 6 s initial retransmission timeout, while a new connection means a new SYN
 * now. */
static int ftp_wait_banner(uint16_t port, double timeout_s, volatile int *cancel,
                           struct kb_error *err) {
        double deadline = ftp_mono() + timeout_s, attempt_s = FTP_PROBE_FIRST_S;
        char why[128] = "no attempt";

        for (;;) {
                double until = MIN(deadline, ftp_mono() + attempt_s);
                int r = ftp_probe_banner(port, until, cancel, why, sizeof(why), err);
                if (r != 0)
                        return r < 0 ? r : 0;
                if (*cancel)
                        return error_setf(err, -ECANCELED, "ftp: cancelled while waiting for the server");
                if (ftp_mono() + 0.1 >= deadline)
                        return error_setf(err, -ETIMEDOUT,
                                          "ftp: no 220 banner from 127.0.0.1:%u within %.1f s (%s)",
                                          port, timeout_s, why);
                if (ftp_mono() < until)
                        ftp_sleep(0.1);            /* refused or closed: nothing listens yet */
                else if (attempt_s < FTP_PROBE_MAX_S)
                        attempt_s *= 2;            /* silent: reconnect at once */
        }
}

struct ftp_xfer {
        struct workload_host *host;
        struct ftp_gen gen;
        uint64_t size;             /* bytes to generate */
        uint64_t rate;             /* upload limit, bytes/s; 0: none */
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

/* True while no byte of the upload has been recorded. */
static int ftp_xfer_no_bytes_yet(const struct ftp_xfer *x) {
        return x->n_pt > 0 && x->pt_b[x->n_pt - 1] == 0;
}

static void ftp_xfer_point(struct ftp_xfer *x, double t, double bytes, int force) {
        /* The first point with bytes ends ftp.setup_s: record it when seen,
         * not up to a period later. */
        if (bytes > 0 && ftp_xfer_no_bytes_yet(x))
                force = 1;
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

/* libcurl's limiter holds the average, but sends a whole buffer at a time:
 * at a low rate a 256 KiB buffer would go out in bursts a second or more
 * apart, which the halt analysis would call halts. A twentieth of the rate
 * keeps bursts about 50 ms apart (down to curl's 16 KiB minimum). */
static uint64_t ftp_upload_buffer(uint64_t rate) {
        uint64_t b = rate ? rate / 20 : FTP_UPLOAD_BUFFER_MAX;

        return b < FTP_UPLOAD_BUFFER_MIN ? FTP_UPLOAD_BUFFER_MIN : b > FTP_UPLOAD_BUFFER_MAX ? FTP_UPLOAD_BUFFER_MAX : b;
}

static pthread_once_t ftp_curl_once = PTHREAD_ONCE_INIT;

static void ftp_curl_init(void) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* The upload's options: passive, the size known, fed by the generator, its
 * progress and the server's replies seen by the callbacks above. */
static void ftp_easy_setup(CURL *e, struct ftp_xfer *x, const char *url, char *errbuf) {
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
        curl_easy_setopt(e, CURLOPT_UPLOAD_BUFFERSIZE, (long)ftp_upload_buffer(x->rate));
        if (x->rate)
                curl_easy_setopt(e, CURLOPT_MAX_SEND_SPEED_LARGE, (curl_off_t)x->rate);
}

/* Drive the transfer to its end, sampling the bytes sent at the timeline's
 * period. Errors: -EIO (curl), -ECANCELED, the timeline's own error. */
static int ftp_pump(struct ftp_xfer *x, CURLM *m, CURL *e, struct kb_error *err) {
        curl_off_t sent = 0;
        int running = 1;

        while (running) {
                CURLMcode mc = curl_multi_perform(m, &running);
                double t = ftp_now(x->host);

                if (mc != CURLM_OK)
                        return error_setf(err, -EIO, "ftp: %s", curl_multi_strerror(mc));
                /* The progress callback slows to ~1/s when nothing moves; a
                 * halt is exactly when we need the points, so sample here too. */
                if ((t >= x->next_due || ftp_xfer_no_bytes_yet(x)) &&
                    curl_easy_getinfo(e, CURLINFO_SIZE_UPLOAD_T, &sent) == CURLE_OK)
                        ftp_xfer_point(x, t, (double)sent, 0);
                if (*x->host->cancel)
                        return error_setf(err, -ECANCELED, "ftp: upload cancelled");
                if (x->fail)
                        return error_setf(err, x->fail, "ftp: could not record the timeline: %s",
                                          strerror(-x->fail));
                if (!running)
                        break;
                double wait = (x->next_due - t) * 1000;
                curl_multi_poll(m, NULL, 0, wait < 1 ? 1 : wait > 100 ? 100 : (int)wait, NULL);
        }
        return 0;
}

/* Check how the finished transfer ended: curl's result, every byte sent,
 * a pretransfer time inside it; record its last point.
 * OUT: *ret_pre_s, seconds of login, PASV and STOR. */
static int ftp_finish(struct ftp_xfer *x, CURLM *m, CURL *e, const char *url, const char *errbuf,
                      double t0, double t1, double *ret_pre_s, struct kb_error *err) {
        CURLcode res = CURLE_OK;
        curl_off_t sent = 0, pre_us = 0;
        int left;

        for (CURLMsg *msg; (msg = curl_multi_info_read(m, &left));)
                if (msg->msg == CURLMSG_DONE)
                        res = msg->data.result;
        if (res != CURLE_OK)
                return error_setf(err, res == CURLE_ABORTED_BY_CALLBACK && *x->host->cancel ? -ECANCELED : -EIO,
                                  "ftp: upload to %s failed: %s%s%s%s", url,
                                  errbuf[0] ? errbuf : curl_easy_strerror(res),
                                  x->reply[0] ? " (server: '" : "", x->reply, x->reply[0] ? "')" : "");
        curl_easy_getinfo(e, CURLINFO_SIZE_UPLOAD_T, &sent);
        if ((uint64_t)sent != x->size || x->gen.offset != x->size)
                return error_setf(err, -EIO, "ftp: upload to %s ended after %" PRId64 " of %" PRIu64
                                  " bytes", url, (int64_t)sent, x->size);
        ftp_xfer_point(x, t1, (double)sent, 1);
        if (x->fail)
                return error_setf(err, x->fail, "ftp: could not record the timeline");
        if (curl_easy_getinfo(e, CURLINFO_PRETRANSFER_TIME_T, &pre_us) != CURLE_OK || pre_us < 0 ||
            (double)pre_us / 1e6 > t1 - t0)
                return error_setf(err, -EIO, "ftp: curl reported no valid pretransfer time (%" PRId64 " us)",
                                  (int64_t)pre_us);
        *ret_pre_s = (double)pre_us / 1e6;
        return 0;
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
        int r = 0;
        double t0, t1, pre_s = 0;

        snprintf(url, sizeof(url), "ftp://127.0.0.1:%u" FTP_REMOTE_PATH, port);
        e = curl_easy_init();
        m = curl_multi_init();
        if (!e || !m) {
                r = error_setf(err, -ENOMEM, "ftp: curl init failed");
                goto out;
        }
        ftp_easy_setup(e, x, url, errbuf);
        curl_multi_add_handle(m, e);

        t0 = ftp_now(x->host);
        x->next_due = t0;
        /* The limit goes on the timeline beside the bytes, so a reader sees
         * the slope the upload was held to. */
        if (x->rate && x->host->point && (r = x->host->point(x->host->userdata, "ftp.rate_limit", t0,
                                                               (double)x->rate)) < 0) {
                r = error_setf(err, r, "ftp: could not record the timeline: %s", strerror(-r));
                goto out;
        }
        ftp_xfer_point(x, t0, 0, 1);
        r = ftp_pump(x, m, e, err);
        if (r < 0)
                goto out;
        t1 = ftp_now(x->host);
        r = ftp_finish(x, m, e, url, errbuf, t0, t1, &pre_s, err);
        if (r < 0)
                goto out;
        *ret_t0 = t0;
        *ret_t1 = t1;
        *ret_data_s = t1 - t0 - pre_s;
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
        struct ftp_xfer x = { .host = &h, .size = p->size, .rate = p->rate };
        struct ftp_halts halts;
        g_autofree char *line = NULL;
        double t_start = ftp_now(&h), t0 = 0, t1 = 0, up_s, data_s = 0, setup_s = 0;
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
        if (r >= 0 && (r = ftp_setup_s(t_start, x.pt_t, x.pt_b, x.n_pt, &setup_s)) < 0)
                error_setf(err, r, "ftp: no first byte on the timeline after the host phase began");
        if (r < 0) {
                /* Unblock the job's `read`; its failure line is then expected. */
                if (h.say)
                        h.say(h.userdata, "failed");
                goto out;
        }
        if (h.metrics &&
            ((r = metric_add(h.metrics, "ftp.setup_s", setup_s, "s")) < 0 ||
             (r = metric_add(h.metrics, "ftp.upload_s", up_s, "s")) < 0 ||
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
static const char *const ftp_packages[] = { "vsftpd", NULL };
static const char *const ftp_modules[] = { "e1000", NULL };

static const struct metric_def ftp_metrics[] = {
        { "ftp.ingest_s", "s", 0, NULL },
        { "ftp.setup_s", "s", -1, NULL },        /* harness plumbing, not the kernel's ingest */
        { "ftp.upload_s", "s", 0, .restates = "the same measurement as ftp.MBps" },
        { "ftp.sync_s", "s", 0, NULL },
        { "ftp.MBps", "MB/s", 1, NULL },
        { "ftp.halt_count", "", 0, NULL },
        { "ftp.halt_longest_s", "s", 0, NULL },
        { "ftp.halt_total_s", "s", 0, NULL },
        { NULL }
};

static const struct workload_phase ftp_vmstat_phases[] = { { "upload", 1 }, { "sync", 1 }, { NULL } };

const struct workload_ops ftp_ops = {
        .name = "ftp",
        .summary = "inbound FTP upload of SIZE bytes into vsftpd on the disk under test, then sync",
        .keys = ftp_keys,
        .params_size = sizeof(struct ftp_params),
        .guest_binaries = ftp_binaries,
        .packages = ftp_packages,
        .guest_files = ftp_files,
        .guest_modules = ftp_modules,
        .n_ports = 5,
        .guest_ports = { 21 },                   /* control; the passive ports map 1:1 */
        .script = ftp_script,
        .parse = ftp_parse,
        .host = ftp_host,
        .metrics = ftp_metrics,
        .vmstat_window = "ftp.bytes",
        .vmstat_window_phase = "upload",
        .vmstat_phases = ftp_vmstat_phases,
        .vmstat_main = "upload",
};
