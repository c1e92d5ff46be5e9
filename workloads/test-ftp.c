/* test-ftp.c: the FTP workload's generator, halt reduction, script, parser,
 * and the real host side against a real vsftpd on 127.0.0.1 (run as root;
 * skipped otherwise, so those come last), including the whole job script
 * run by busybox sh. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/test.h"
#include "common/util.h"
#include "workloads/ftp.h"

TEST_MAIN();

static double now_mono(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- generator -------------------------------------------------------- */

TEST(gen_known_answer) {
        /* splitmix64 seeded with 1234567: the published reference sequence
         * (Rosetta Code "Pseudo-random numbers/Splitmix64"). */
        static const uint64_t want[] = {
                UINT64_C(6457827717110365317), UINT64_C(3203168211198807973),
                UINT64_C(9817491932198370423), UINT64_C(4593380528125082431),
                UINT64_C(16408922859458223821),
        };
        uint8_t buf[40];
        struct ftp_gen g;

        for (size_t i = 0; i < 5; i++)
                ASSERT_TRUE(ftp_gen_word(1234567, i) == want[i]);
        ftp_gen_init(&g, 1234567);
        ftp_gen_fill(&g, buf, sizeof(buf));
        for (size_t i = 0; i < 5; i++) {
                uint64_t v;
                memcpy(&v, buf + 8 * i, 8);
                ASSERT_TRUE(le64toh(v) == want[i]);
        }
        ASSERT_EQ(g.offset, 40);
}

TEST(gen_chunking_is_invisible) {
        static uint8_t whole[5000], parts[5000];
        struct ftp_gen g;
        size_t off = 0, step = 1;

        ftp_gen_init(&g, 99);
        ftp_gen_fill(&g, whole, sizeof(whole));
        ftp_gen_init(&g, 99);
        while (off < sizeof(parts)) {
                size_t n = step < sizeof(parts) - off ? step : sizeof(parts) - off;
                ftp_gen_fill(&g, parts + off, n);
                off += n;
                step = step * 3 % 17 + 1;    /* 1, 4, 13, 6, ...: every alignment */
        }
        ASSERT_TRUE(memcmp(whole, parts, sizeof(whole)) == 0);
        ftp_gen_fill(&g, parts, 0);
        ASSERT_EQ(g.offset, sizeof(whole));
}

TEST(gen_seed_sensitivity) {
        static uint8_t a[4096], b[4096];
        struct ftp_gen g;
        size_t same = 0;

        ftp_gen_init(&g, 1);
        ftp_gen_fill(&g, a, sizeof(a));
        ftp_gen_init(&g, 2);
        ftp_gen_fill(&g, b, sizeof(b));
        for (size_t i = 0; i < sizeof(a); i++)
                same += a[i] == b[i];
        /* Independent bytes agree 1 time in 256: ~16 of 4096. */
        ASSERT_TRUE(same < 64);
        ftp_gen_init(&g, 1);
        ftp_gen_fill(&g, b, sizeof(b));
        ASSERT_TRUE(memcmp(a, b, sizeof(a)) == 0);
}

/* ---- halts ------------------------------------------------------------ */

TEST(halts_hand_made) {
        /* login (flat at 0), flow, a 2.5 s halt, flow, a 0.5 s pause (too
         * short), flow, a 1.0 s halt (exactly min), flow, the 226 wait. */
        static const double t[] = { 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 9, 10 };
        static const double b[] = { 0, 0, 0, 10, 20, 20, 20, 20, 20, 20, 30, 40, 40, 50, 60, 60, 60, 70, 70 };
        struct ftp_halts h;

        ASSERT_EQ(ftp_halts(t, b, ELEMENTSOF(t), 1.0, &h), 0);
        ASSERT_EQ(h.count, 2);
        ASSERT_NEAR(h.longest_s, 2.5, 0);
        ASSERT_NEAR(h.total_s, 3.5, 0);

        ASSERT_EQ(ftp_halts(t, b, ELEMENTSOF(t), 0.5, &h), 0);
        ASSERT_EQ(h.count, 3);
        ASSERT_NEAR(h.total_s, 4.0, 0);

        ASSERT_EQ(ftp_halts(t, b, ELEMENTSOF(t), 3.0, &h), 0);
        ASSERT_EQ(h.count, 0);
        ASSERT_NEAR(h.longest_s, 0, 0);
        ASSERT_NEAR(h.total_s, 0, 0);
}

TEST(halts_edges) {
        static const double t[] = { 0, 1, 2, 3, 4 };
        static const double flat[] = { 5, 5, 5, 5, 5 };
        static const double steady[] = { 0, 1, 2, 3, 4 };
        static const double down[] = { 0, 2, 1, 3, 4 };
        static const double tback[] = { 0, 1, 0.5, 3, 4 };
        struct ftp_halts h = { 7, 7, 7 };

        ASSERT_EQ(ftp_halts(t, flat, 0, 1.0, &h), 0);
        ASSERT_EQ(h.count, 0);
        ASSERT_EQ(ftp_halts(t, flat, 5, 1.0, &h), 0);     /* never started: not a halt */
        ASSERT_EQ(h.count, 0);
        ASSERT_EQ(ftp_halts(t, steady, 5, 1.0, &h), 0);
        ASSERT_EQ(h.count, 0);
        h.count = 7;
        ASSERT_EQ(ftp_halts(t, down, 5, 1.0, &h), -EINVAL);
        ASSERT_EQ(h.count, 7);
        ASSERT_EQ(ftp_halts(tback, steady, 5, 1.0, &h), -EINVAL);
}

TEST(setup_s_hand_made) {
        /* The host phase began at 4.0; banner and login until 10.2 (flat at
         * 0), the first bytes at 10.25 (the point recorded when seen), then
         * the 10 Hz schedule. */
        static const double t[] = { 10.2, 10.25, 10.3, 10.4, 10.5 };
        static const double b[] = { 0, 262144, 524288, 1048576, 1048576 };
        static const double none[] = { 0, 0, 0, 0, 0 };
        static const double b_nan[] = { 0, NAN, 524288, 1048576, 1048576 };
        double s = 7;

        ASSERT_EQ(ftp_setup_s(4.0, t, b, ELEMENTSOF(t), &s), 0);
        ASSERT_NEAR(s, 6.25, 1e-12);
        /* It is the first sample with bytes, not the first sample. */
        ASSERT_EQ(ftp_setup_s(10.2, t, b, ELEMENTSOF(t), &s), 0);
        ASSERT_NEAR(s, 0.05, 1e-12);
        /* The first bytes at the very start of the phase. */
        ASSERT_EQ(ftp_setup_s(10.25, t, b, ELEMENTSOF(t), &s), 0);
        ASSERT_NEAR(s, 0, 0);

        s = 7;
        ASSERT_EQ(ftp_setup_s(4.0, t, none, ELEMENTSOF(t), &s), -ENODATA);
        ASSERT_EQ(ftp_setup_s(4.0, t, b, 0, &s), -ENODATA);
        ASSERT_EQ(ftp_setup_s(10.3, t, b, ELEMENTSOF(t), &s), -EINVAL);   /* bytes before the start */
        ASSERT_EQ(ftp_setup_s(NAN, t, b, ELEMENTSOF(t), &s), -EINVAL);
        ASSERT_EQ(ftp_setup_s(4.0, t, b_nan, ELEMENTSOF(t), &s), -EINVAL);
        ASSERT_NEAR(s, 7, 0);      /* not written on failure */
}

/* ---- keys, config, script --------------------------------------------- */

/* "ftp:size=SIZE,verify=VERIFY,seed=SEED" parsed (seed "" = the cell's).
 * Returns NULL where the spec is refused. Caller frees (spec_freep). */
static struct workload_spec *spec3(const char *size, const char *verify, const char *seed) {
        struct workload_spec *s = NULL;
        struct kb_error err = { "" };
        char text[256];

        snprintf(text, sizeof(text), "ftp:size=%s,verify=%s,seed=%s", size, verify, seed);
        if (workload_spec_parse(text, &s, &err) < 0)
                return NULL;
        return s;
}

static void spec_freep(struct workload_spec **s) {
        *s = workload_spec_free(*s);
}

TEST(params_from_spec) {
        struct workload_env env = { .seed = 77 };
        struct kb_error err = { "" };
        struct ftp_params p;
        _cleanup_(spec_freep) struct workload_spec *s = spec3("600M", "0", "");

        ASSERT_EQ(ftp_params_from_spec(s, &env, &p, &err), 0);
        ASSERT_EQ(p.size, 600ULL << 20);
        ASSERT_EQ(p.verify, 0);
        ASSERT_EQ(p.seed, 77);
        ASSERT_EQ(p.rate, 0);
        spec_freep(&s);
        s = spec3("32M", "1", "5");
        ASSERT_EQ(ftp_params_from_spec(s, &env, &p, &err), 0);
        ASSERT_EQ(p.size, 32ULL << 20);
        ASSERT_EQ(p.verify, 1);
        ASSERT_EQ(p.seed, 5);
        spec_freep(&s);
        /* A zero size, a bad bool and seed 0 (which would read as "the
         * cell's") are refused when the spec is parsed. */
        ASSERT_TRUE(spec3("0", "0", "") == NULL);
        ASSERT_TRUE(spec3("1M", "maybe", "") == NULL);
        ASSERT_TRUE(spec3("1M", "0", "0") == NULL);
        {
                struct workload_spec *r = NULL;
                ASSERT_EQ(workload_spec_parse("ftp:rate=11M", &r, &err), 0);
                ASSERT_EQ(ftp_params_from_spec(r, &env, &p, &err), 0);
                ASSERT_EQ(p.rate, 11ULL << 20);
                workload_spec_free(r);
                /* Too slow a limit would make curl's bursts look like halts. */
                ASSERT_EQ(workload_spec_parse("ftp:rate=100k", &r, &err), -EINVAL);
                ASSERT_TRUE(strstr(err.msg, "key 'rate'") != NULL);
                ASSERT_EQ(workload_spec_parse("ftp:rate=0", &r, &err), -EINVAL);
                ASSERT_EQ(workload_spec_parse("dd", &r, &err), 0);
                ASSERT_EQ(ftp_params_from_spec(r, &env, &p, &err), -EINVAL);
                workload_spec_free(r);
        }
        ASSERT_STREQ(ftp_ops.keys[0].def, "600M");
        ASSERT_EQ(ftp_ops.n_ports, 5);
}

static struct workload_env guest_env(void) {
        return (struct workload_env){ .mem_bytes = 160 << 20, .cpus = 2, .disk_bytes = 2ULL << 30,
                                      .mnt = "/mnt/test", .ports = { 40000, 40010, 40011, 40012, 40013 },
                                      .nports = 5, .seed = 1 };
}

static int sh_syntax_ok(const char *script) {
        g_autofree char *path = g_strdup("/tmp/kbench-ftp-script-XXXXXX");
        int fd = mkstemp(path), status;
        g_autofree char *cmd = NULL;

        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(write(fd, script, strlen(script)) == (ssize_t)strlen(script));
        close(fd);
        cmd = g_strdup_printf("busybox sh -n %s", path);
        status = system(cmd);
        unlink(path);
        return status == 0;
}

TEST(script_generation) {
        struct workload_env env = guest_env();
        struct kb_error err = { "" };
        g_autofree char *script = NULL, *script_v = NULL;
        _cleanup_(spec_freep) struct workload_spec *s = spec3("64M", "0", "");

        ASSERT_EQ(ftp_ops.script(s, &env, &script, &err), 0);
        ASSERT_TRUE(strstr(script, "\npasv_min_port=40010\n") != NULL);
        ASSERT_TRUE(strstr(script, "\npasv_max_port=40013\n") != NULL);
        ASSERT_TRUE(strstr(script, "\nlisten_port=21\n") != NULL);
        ASSERT_TRUE(strstr(script, "listen_address") == NULL);
        ASSERT_TRUE(strstr(script, "\nanon_root=/mnt/test/ftp\n") != NULL);
        ASSERT_TRUE(strstr(script, "\nseccomp_sandbox=NO\n") != NULL);
        ASSERT_TRUE(strstr(script, "echo host-start >&3\nread line < /run/kbench/host\n") != NULL);
        ASSERT_TRUE(strstr(script, "echo sync-start >&3\nsync\necho sync-end >&3\n") != NULL);
        ASSERT_TRUE(strstr(script, "sha256sum") == NULL);
        /* host-start only once the guest's NIC has link: before that,
         * QEMU's forward loses its SYN and retries it 6 s later. */
        const char *carrier = strstr(script, "/sys/class/net/eth0/carrier");
        const char *listen = strstr(script, "/proc/net/tcp");
        const char *start = strstr(script, "echo host-start >&3");
        ASSERT_TRUE(carrier && listen && start);
        ASSERT_TRUE(listen < carrier && carrier < start);
        ASSERT_TRUE(strstr(script, "ftp-error: eth0 has no carrier after 30 s") != NULL);
        /* IPv6 off before vsftpd starts, long before the link is up: its
         * multicast joins at link-up would stop QEMU's e1000 receiving for 1 s. */
        const char *v6 = strstr(script, "\n{ echo 1 > /proc/sys/net/ipv6/conf/eth0/disable_ipv6; } 2>/dev/null\n");
        ASSERT_TRUE(v6 != NULL && v6 < strstr(script, "/usr/sbin/vsftpd"));
        ASSERT_TRUE(sh_syntax_ok(script));

        spec_freep(&s);
        s = spec3("64M", "1", "");
        ASSERT_EQ(ftp_ops.script(s, &env, &script_v, &err), 0);
        ASSERT_TRUE(strstr(script_v, "sha256sum") != NULL);
        ASSERT_TRUE(sh_syntax_ok(script_v));
}

TEST(script_rejects) {
        struct workload_env env = guest_env();
        struct kb_error err = { "" };
        char *script = NULL;
        _cleanup_(spec_freep) struct workload_spec *s = spec3("64M", "0", "");

        env.ports[3] = 50000;
        ASSERT_EQ(ftp_ops.script(s, &env, &script, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "consecutive") != NULL);
        env = guest_env();
        env.nports = 1;
        ASSERT_EQ(ftp_ops.script(s, &env, &script, &err), -EINVAL);
        env = guest_env();
        env.disk_bytes = 32 << 20;
        ASSERT_EQ(ftp_ops.script(s, &env, &script, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "does not fit") != NULL);
        env = guest_env();
        env.mnt = "/mnt/te st;rm";
        ASSERT_EQ(ftp_ops.script(s, &env, &script, &err), -EINVAL);
        ASSERT_TRUE(script == NULL);
}

TEST(script_link_dev) {
        struct ftp_server_params sp = { .dir = "/srv/x", .run_dir = "/run/x", .user = "ftp",
                                        .port = 2121, .pasv_min = 3000, .pasv_max = 3003 };
        static const char *const bad[] = { "../eth0", "eth0/..", "eth 0", "eth0;reboot", "" };
        struct kb_error err = { "" };
        char *script = NULL;

        /* No device: no carrier wait (the tests on 127.0.0.1). */
        ASSERT_EQ(ftp_script_build(&sp, "/run/fifo", 0, &script, &err), 0);
        ASSERT_TRUE(strstr(script, "carrier") == NULL);
        ASSERT_TRUE(strstr(script, "disable_ipv6") == NULL);
        ASSERT_TRUE(sh_syntax_ok(script));
        g_free(script);
        script = NULL;
        sp.link_dev = "lo";
        ASSERT_EQ(ftp_script_build(&sp, "/run/fifo", 0, &script, &err), 0);
        ASSERT_TRUE(strstr(script, "/sys/class/net/lo/carrier") != NULL);
        g_free(script);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                script = NULL;
                sp.link_dev = bad[i];
                ASSERT_EQ(ftp_script_build(&sp, "/run/fifo", 0, &script, &err), -EINVAL);
                ASSERT_TRUE(script == NULL);
        }
}

/* ---- parser ----------------------------------------------------------- */

static int run_parse(const char *verify, const char *const *lines, size_t n_lines,
                     const char *const *events, const double *t, size_t n_events,
                     struct metric_list *ml, struct kb_error *err) {
        _cleanup_(spec_freep) struct workload_spec *s = spec3("64M", verify, "");
        struct workload_output out = { n_lines, lines, n_events, events, t };

        return ftp_ops.parse(s, &out, ml, err);
}

TEST(parse_ok) {
        static const char *const lines[] = { "ftp-expected 67108864", "ftp-size 67108864",
                                             "ftp-upload-s 12.500000" };
        static const char *const events[] = { "host-start", "upload-seen", "sync-start", "sync-end" };
        static const double t[] = { 3.0, 15.75, 16.0, 19.5 };
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };

        ASSERT_EQ(run_parse("0", lines, 3, events, t, 4, &ml, &err), 0);
        ASSERT_EQ(ml.n, 2);
        ASSERT_NEAR(metric_find(&ml, "ftp.sync_s")->value, 3.5, 0);
        ASSERT_NEAR(metric_find(&ml, "ftp.ingest_s")->value, 12.5 + 3.75, 0);
        ASSERT_STREQ(metric_find(&ml, "ftp.ingest_s")->unit, "s");
        metric_list_clear(&ml);
        /* verify=1 needs the guest's checksum line */
        ASSERT_EQ(run_parse("1", lines, 3, events, t, 4, &ml, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "ftp-sha256") != NULL);
        ASSERT_EQ(ml.n, 0);
}

TEST(parse_failures) {
        static const char *const short_file[] = { "ftp-expected 100", "ftp-size 99", "ftp-upload-s 1" };
        static const char *const failed[] = { "ftp-error: the host upload failed (failed)" };
        static const char *const junk[] = { "ftp-expected 100", "sh: stat: not found" };
        static const char *const bad_num[] = { "ftp-expected 1e3" };
        static const char *const twice[] = { "ftp-size 1", "ftp-size 1" };
        static const char *const good[] = { "ftp-expected 100", "ftp-size 100", "ftp-upload-s 1" };
        static const char *const ev[] = { "upload-seen", "sync-start", "sync-end" };
        static const char *const ev_missing[] = { "upload-seen", "sync-start" };
        static const double t[] = { 1, 2, 3 }, t_back[] = { 1, 3, 2 };
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };

        ASSERT_EQ(run_parse("0", short_file, 3, ev, t, 3, &ml, &err), -EIO);
        ASSERT_TRUE(strstr(err.msg, "short file: 99 of 100") != NULL);
        ASSERT_EQ(run_parse("0", failed, 1, ev, t, 3, &ml, &err), -EIO);
        ASSERT_TRUE(strstr(err.msg, "host upload failed") != NULL);
        ASSERT_EQ(run_parse("0", junk, 2, ev, t, 3, &ml, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "'sh: stat: not found'") != NULL);
        ASSERT_EQ(run_parse("0", bad_num, 1, ev, t, 3, &ml, &err), -EINVAL);
        ASSERT_EQ(run_parse("0", twice, 2, ev, t, 3, &ml, &err), -EINVAL);
        ASSERT_EQ(run_parse("0", good, 3, ev_missing, t, 2, &ml, &err), -EINVAL);
        ASSERT_TRUE(strstr(err.msg, "sync-end") != NULL);
        ASSERT_EQ(run_parse("0", good, 3, ev, t_back, 3, &ml, &err), -EINVAL);
        ASSERT_EQ(ml.n, 0);
        ASSERT_EQ(run_parse("0", good, 3, ev, t, 3, &ml, &err), 0);
        metric_list_clear(&ml);
}

/* ---- fake harness ----------------------------------------------------- */

struct fake {
        char said[512];
        int n_said;
        const char *fifo;          /* also write the line here, as the agent does */
        double pt_t[100000], pt_v[100000];
        size_t n_pt;
        int bad_kind;
        int n_rate;                /* "ftp.rate_limit" points */
        double rate_t, rate_v;     /* the last of them */
};

static double fake_now(void *u) {
        return now_mono();
}

static int fake_say(void *u, const char *line) {
        struct fake *f = u;

        snprintf(f->said, sizeof(f->said), "%s", line);
        f->n_said++;
        if (f->fifo) {
                int fd = open(f->fifo, O_WRONLY | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                dprintf(fd, "%s\n", line);
                close(fd);
        }
        return 0;
}

static int fake_point(void *u, const char *kind, double t, double v) {
        struct fake *f = u;

        if (strcmp(kind, "ftp.rate_limit") == 0) {
                f->n_rate++;
                f->rate_t = t;
                f->rate_v = v;
                return 0;
        }
        if (strcmp(kind, "ftp.bytes") != 0)
                f->bad_kind++;
        if (f->n_pt < ELEMENTSOF(f->pt_t)) {
                f->pt_t[f->n_pt] = t;
                f->pt_v[f->n_pt++] = v;
        }
        return 0;
}

static volatile int no_cancel;

static struct workload_host fake_host(struct fake *f, struct workload_env *env, struct metric_list *ml) {
        return (struct workload_host){ .env = env, .now = fake_now, .say = fake_say,
                                       .point = fake_point, .cancel = &no_cancel,
                                       .userdata = f, .metrics = ml };
}

/* A listening socket on 127.0.0.1 with a kernel-chosen port. */
static int listen_any(uint16_t *ret_port) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t sl = sizeof(sa);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        ASSERT_TRUE(fd >= 0);
        ASSERT_TRUE(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
        ASSERT_TRUE(listen(fd, 16) == 0);
        ASSERT_TRUE(getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
        *ret_port = ntohs(sa.sin_port);
        return fd;
}

static int port_free(uint16_t port) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

        ok = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
        if (fd >= 0)
                close(fd);
        return ok;
}

/* Five free ports: a control port and four consecutive passive ports, found
 * by binding to port 0 and probing the next three. */
static void free_ports(uint16_t *ports) {
        for (int attempt = 0; attempt < 100; attempt++) {
                uint16_t c, p;
                int fc = listen_any(&c), fp = listen_any(&p), ok = p < 65530 && p + 3 != c;

                close(fc);
                close(fp);
                for (int i = 1; ok && i < 4; i++)
                        ok = port_free(p + i) && p + i != c;
                if (ok) {
                        ports[0] = c;
                        for (int i = 0; i < 4; i++)
                                ports[1 + i] = p + i;
                        return;
                }
        }
        TEST_FAIL("no four consecutive free ports");
}

static void require_root_vsftpd(void) {
        if (geteuid() != 0)
                TEST_SKIP("vsftpd tests need root");
        if (access("/usr/sbin/vsftpd", X_OK) != 0)
                TEST_SKIP("no /usr/sbin/vsftpd");
}

static const char *ftp_user(void) {
        return getpwnam("ftp") ? "ftp" : "nobody";
}

static void sha256_of_stream(uint64_t seed, uint64_t size, char *ret_hex) {
        GChecksum *c = g_checksum_new(G_CHECKSUM_SHA256);
        static uint8_t buf[1 << 16];
        struct ftp_gen g;

        ftp_gen_init(&g, seed);
        for (uint64_t left = size; left;) {
                size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
                ftp_gen_fill(&g, buf, n);
                g_checksum_update(c, buf, (gssize)n);
                left -= n;
        }
        strcpy(ret_hex, g_checksum_get_string(c));
        g_checksum_free(c);
}

static void sha256_of_file(const char *path, char *ret_hex) {
        g_autofree char *data = NULL;
        gsize len = 0;
        g_autofree char *hex = NULL;

        ASSERT_TRUE(g_file_get_contents(path, &data, &len, NULL));
        hex = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, len);
        strcpy(ret_hex, hex);
}

/* ---- failures --------------------------------------------------------- */

TEST(silent_server_times_out) {
        static struct fake f;
        struct workload_env env = { .nports = 5 };
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };
        struct ftp_params p = { .size = 1 << 20, .banner_timeout_s = 1.0 };
        /* Listens (the kernel completes the handshake) but never says a word,
         * like QEMU's forward before anything listens in the guest. */
        int lfd = listen_any(&env.ports[0]);
        struct workload_host host = fake_host(&f, &env, &ml);
        double t0 = now_mono();
        int r = ftp_upload(&host, &p, &err);
        double took = now_mono() - t0;

        close(lfd);
        ASSERT_EQ(r, -ETIMEDOUT);
        /* Gives up at its deadline, not before, and does not hang (a loose
         * upper bound: this is not a timing test). */
        ASSERT_TRUE(took >= 0.9 && took < 10.0);
        ASSERT_TRUE(strstr(err.msg, "no 220 banner") != NULL);
        ASSERT_TRUE(strstr(err.msg, "no banner") != NULL);
        ASSERT_STREQ(f.said, "failed");
        ASSERT_EQ(ml.n, 0);
        ASSERT_EQ(f.n_pt, 0);
}

TEST(refused_port_times_out) {
        static struct fake f;
        struct workload_env env = { .nports = 5 };
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };
        struct ftp_params p = { .size = 1 << 20, .banner_timeout_s = 0.5 };
        int lfd = listen_any(&env.ports[0]);
        struct workload_host host = fake_host(&f, &env, &ml);

        close(lfd);        /* now nothing listens there */
        ASSERT_EQ(ftp_upload(&host, &p, &err), -ETIMEDOUT);
        ASSERT_TRUE(strstr(err.msg, "refused") != NULL);
}

struct fake_server {
        int lfd;
        const char *reply;         /* to the first command after the banner */
};

/* Like QEMU's forward when its SYN to the guest was lost: the first
 * connection is accepted and never answered; later ones are greeted, and
 * the login is refused so that the test ends without a data connection. */
static void *silent_first_server_run(void *u) {
        struct fake_server *s = u;
        int silent = accept(s->lfd, NULL, NULL);

        for (int i = 0; i < 2; i++) {
                int c = accept(s->lfd, NULL, NULL);
                char buf[256];
                if (c < 0)
                        break;
                dprintf(c, "220 fake\r\n");
                if (i == 1) {
                        struct pollfd pfd = { .fd = c, .events = POLLIN };
                        if (poll(&pfd, 1, 5000) > 0 && read(c, buf, sizeof(buf)) > 0)
                                dprintf(c, "%s\r\n", s->reply);
                        usleep(100000);
                }
                close(c);
        }
        if (silent >= 0)
                close(silent);
        return NULL;
}

TEST(silent_connection_is_abandoned) {
        static struct fake f;
        struct workload_env env = { .nports = 5 };
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };
        struct ftp_params p = { .size = 1 << 20, .banner_timeout_s = 10 };
        struct fake_server s = { .reply = "530 Login incorrect." };
        pthread_t th;

        s.lfd = listen_any(&env.ports[0]);
        ASSERT_EQ(pthread_create(&th, NULL, silent_first_server_run, &s), 0);
        struct workload_host host = fake_host(&f, &env, &ml);
        int r = ftp_upload(&host, &p, &err);
        shutdown(s.lfd, SHUT_RDWR);        /* a server still in accept() gives up */
        pthread_join(th, NULL);
        close(s.lfd);
        /* Reaching curl's login (530) shows the probe moved on to a new
         * connection; waiting on the silent one would end in -ETIMEDOUT. */
        if (r != -EIO)
                TEST_FAIL("ftp_upload: %d %s", r, err.msg);
        ASSERT_TRUE(strstr(err.msg, "530") != NULL);
}

/* Greets every connection, then answers the first command with reply. */
static void *fake_server_run(void *u) {
        struct fake_server *s = u;

        for (int i = 0; i < 2; i++) {
                int c = accept(s->lfd, NULL, NULL);
                char buf[256];
                if (c < 0)
                        return NULL;
                dprintf(c, "220 fake\r\n");
                if (i == 1) {
                        struct pollfd pfd = { .fd = c, .events = POLLIN };
                        if (poll(&pfd, 1, 5000) > 0 && read(c, buf, sizeof(buf)) > 0)
                                dprintf(c, "%s\r\n", s->reply);
                        usleep(100000);
                }
                close(c);
        }
        return NULL;
}

TEST(rejected_login_reports_curl_error) {
        static struct fake f;
        struct workload_env env = { .nports = 5 };
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };
        struct ftp_params p = { .size = 1 << 20, .banner_timeout_s = 5 };
        struct fake_server s = { .reply = "530 Login incorrect." };
        pthread_t th;

        s.lfd = listen_any(&env.ports[0]);
        ASSERT_EQ(pthread_create(&th, NULL, fake_server_run, &s), 0);
        struct workload_host host = fake_host(&f, &env, &ml);
        int r = ftp_upload(&host, &p, &err);
        pthread_join(th, NULL);
        close(s.lfd);
        ASSERT_EQ(r, -EIO);
        fprintf(stderr, "error: %s\n", err.msg);
        ASSERT_TRUE(strstr(err.msg, "530") != NULL);
        ASSERT_STREQ(f.said, "failed");
        ASSERT_EQ(ml.n, 0);
}

TEST(oops_banner_is_reported) {
        static struct fake f;
        struct workload_env env = { .nports = 5 };
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };
        struct ftp_params p = { .size = 1 << 20, .banner_timeout_s = 5 };
        uint16_t port;
        int lfd = listen_any(&port);
        int c;

        env.ports[0] = port;
        /* Queue the connection before the server "answers": connect happens
         * inside ftp_upload, so answer from a child process. */
        pid_t pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                c = accept(lfd, NULL, NULL);
                dprintf(c, "500 OOPS: vsftpd: cannot locate user specified in 'ftp_username':ftp\r\n");
                usleep(200000);
                _exit(0);
        }
        struct workload_host host = fake_host(&f, &env, &ml);
        int r = ftp_upload(&host, &p, &err);
        waitpid(pid, NULL, 0);
        close(lfd);
        ASSERT_EQ(r, -EIO);
        ASSERT_TRUE(strstr(err.msg, "500 OOPS: vsftpd: cannot locate user") != NULL);
}

/* ---- real server ------------------------------------------------------ */

TEST(upload_to_real_vsftpd) {
        require_root_vsftpd();
        g_autofree char *tmp = g_dir_make_tmp("kbench-ftp-XXXXXX", NULL);
        g_autofree char *dir = g_strdup_printf("%s/root", tmp), *run = g_strdup_printf("%s/run", tmp);
        g_autofree char *in = g_strdup_printf("%s/in", dir), *empty = g_strdup_printf("%s/empty", run);
        g_autofree char *conf = NULL, *conf_path = g_strdup_printf("%s/vsftpd.conf", run);
        g_autofree char *data = g_strdup_printf("%s/data", in), *cmd = NULL;
        static struct fake f;
        struct workload_env env = { .nports = 5 };
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };
        struct ftp_params p = { .size = 96 << 20, .seed = 12345, .verify = 1, .banner_timeout_s = 10 };
        char want[65], got[65], said[600];
        struct ftp_halts h;
        pid_t pid;
        int status;

        free_ports(env.ports);
        struct ftp_server_params sp = { .dir = dir, .run_dir = run, .user = ftp_user(),
                                        .listen_address = "127.0.0.1", .port = env.ports[0],
                                        .pasv_min = env.ports[1], .pasv_max = env.ports[4] };
        ASSERT_EQ(ftp_vsftpd_conf(&sp, &conf, &err), 0);
        ASSERT_TRUE(g_mkdir_with_parents(in, 0755) == 0 && g_mkdir_with_parents(empty, 0755) == 0);
        ASSERT_TRUE(chmod(dir, 0755) == 0 && chmod(tmp, 0755) == 0);
        ASSERT_TRUE(chown(in, getpwnam(sp.user)->pw_uid, (gid_t)-1) == 0);
        ASSERT_TRUE(g_file_set_contents(conf_path, conf, -1, NULL));

        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                execl("/usr/sbin/vsftpd", "vsftpd", conf_path, (char *)NULL);
                _exit(127);
        }
        /* No sleep: ftp_upload must itself wait for the banner. */
        struct workload_host host = fake_host(&f, &env, &ml);
        double t_call = now_mono();
        int r = ftp_upload(&host, &p, &err);
        kill(pid, SIGTERM);
        waitpid(pid, &status, 0);
        if (r < 0)
                TEST_FAIL("ftp_upload: %d %s", r, err.msg);

        sha256_of_stream(p.seed, p.size, want);
        sha256_of_file(data, got);
        ASSERT_STREQ(got, want);
        ASSERT_EQ(f.n_said, 1);
        snprintf(said, sizeof(said), "uploaded %llu %s ", (unsigned long long)p.size, want);
        ASSERT_TRUE(strncmp(f.said, said, strlen(said)) == 0);

        /* Timeline: starts at 0 bytes, ends at size, monotonic, dense. */
        ASSERT_EQ(f.bad_kind, 0);
        ASSERT_TRUE(f.n_pt >= 2);
        ASSERT_NEAR(f.pt_v[0], 0, 0);
        ASSERT_NEAR(f.pt_v[f.n_pt - 1], (double)p.size, 0);
        for (size_t i = 1; i < f.n_pt; i++) {
                ASSERT_TRUE(f.pt_t[i] >= f.pt_t[i - 1] && f.pt_v[i] >= f.pt_v[i - 1]);
                if (f.pt_t[i] - f.pt_t[i - 1] > 0.3)
                        TEST_FAIL("timeline gap of %.3f s at point %zu", f.pt_t[i] - f.pt_t[i - 1], i);
        }
        double up = metric_find(&ml, "ftp.upload_s")->value;
        ASSERT_TRUE(up > 0 && up <= f.pt_t[f.n_pt - 1] - f.pt_t[0] + 1e-9);
        /* MBps is over the data phase: shorter than upload_s by the login,
         * PASV and STOR, and covering every point that saw bytes move. */
        double data_s = p.size / 1e6 / metric_find(&ml, "ftp.MBps")->value;
        size_t first_moved = 0;
        while (first_moved < f.n_pt && f.pt_v[first_moved] == 0)
                first_moved++;
        ASSERT_TRUE(first_moved < f.n_pt);
        ASSERT_TRUE(data_s < up);
        ASSERT_TRUE(data_s >= f.pt_t[f.n_pt - 1] - f.pt_t[first_moved] - 1e-6);
        /* setup_s ends at the first point with bytes and starts when the host
         * phase did: after the call, before the first FTP command. */
        const struct metric *setup = metric_find(&ml, "ftp.setup_s");
        ASSERT_TRUE(setup != NULL);
        double phase_start = f.pt_t[first_moved] - setup->value;
        ASSERT_TRUE(phase_start >= t_call - 1e-9 && phase_start <= f.pt_t[0] + 1e-9);
        ASSERT_EQ(ftp_halts(f.pt_t, f.pt_v, f.n_pt, 1.0, &h), 0);
        ASSERT_NEAR(metric_find(&ml, "ftp.halt_count")->value, h.count, 1e-9);
        ASSERT_TRUE(metric_find(&ml, "ftp.halt_longest_s") && metric_find(&ml, "ftp.halt_total_s"));
        fprintf(stderr, "uploaded %llu bytes in %.3f s, %zu points\n",
                (unsigned long long)p.size, up, f.n_pt);
        metric_list_clear(&ml);
        cmd = g_strdup_printf("rm -rf %s", tmp);
        ASSERT_EQ(system(cmd), 0);
}

/* With rate=R, libcurl holds the upload to R: over the data phase the
 * average stays at or below R (plus a tolerance for the first buffer, which
 * curl sends before it can measure), so the data phase lasts at least
 * size / R. Both hold at any host speed: a slow host only makes the upload
 * slower. The limit is on the timeline. */
TEST(rate_limited_upload_to_real_vsftpd) {
        require_root_vsftpd();
        g_autofree char *tmp = g_dir_make_tmp("kbench-ftp-XXXXXX", NULL);
        g_autofree char *dir = g_strdup_printf("%s/root", tmp), *run = g_strdup_printf("%s/run", tmp);
        g_autofree char *in = g_strdup_printf("%s/in", dir), *empty = g_strdup_printf("%s/empty", run);
        g_autofree char *conf = NULL, *conf_path = g_strdup_printf("%s/vsftpd.conf", run), *cmd = NULL;
        static struct fake f;
        struct workload_env env = { .nports = 5 };
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };
        const double tol = 0.10;
        struct ftp_params p = { .size = 6 << 20, .seed = 3, .rate = 3 << 20, .banner_timeout_s = 10 };
        pid_t pid;
        int status;

        free_ports(env.ports);
        struct ftp_server_params sp = { .dir = dir, .run_dir = run, .user = ftp_user(),
                                        .listen_address = "127.0.0.1", .port = env.ports[0],
                                        .pasv_min = env.ports[1], .pasv_max = env.ports[4] };
        ASSERT_EQ(ftp_vsftpd_conf(&sp, &conf, &err), 0);
        ASSERT_TRUE(g_mkdir_with_parents(in, 0755) == 0 && g_mkdir_with_parents(empty, 0755) == 0);
        ASSERT_TRUE(chmod(dir, 0755) == 0 && chmod(tmp, 0755) == 0);
        ASSERT_TRUE(chown(in, getpwnam(sp.user)->pw_uid, (gid_t)-1) == 0);
        ASSERT_TRUE(g_file_set_contents(conf_path, conf, -1, NULL));
        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                execl("/usr/sbin/vsftpd", "vsftpd", conf_path, (char *)NULL);
                _exit(127);
        }
        struct workload_host host = fake_host(&f, &env, &ml);
        int r = ftp_upload(&host, &p, &err);
        kill(pid, SIGTERM);
        waitpid(pid, &status, 0);
        if (r < 0)
                TEST_FAIL("ftp_upload: %d %s", r, err.msg);

        double mbps = metric_find(&ml, "ftp.MBps")->value, rate = mbps * 1e6;
        double data_s = (double)p.size / rate, min_s = (double)p.size / (double)p.rate;
        fprintf(stderr, "rate-limited upload: %.0f B/s against a %llu B/s limit, data phase %.3f s (>= %.3f)\n",
                rate, (unsigned long long)p.rate, data_s, min_s);
        ASSERT_TRUE(rate <= (double)p.rate * (1 + tol));
        ASSERT_TRUE(data_s >= min_s * (1 - tol));
        /* The whole timeline, first to last point, is no faster either. */
        ASSERT_TRUE(f.pt_t[f.n_pt - 1] - f.pt_t[0] >= min_s * (1 - tol));
        ASSERT_EQ(f.n_rate, 1);
        ASSERT_NEAR(f.rate_v, (double)p.rate, 0);
        ASSERT_TRUE(f.rate_t <= f.pt_t[0]);
        ASSERT_EQ(f.bad_kind, 0);
        /* Bursts ~50 ms apart: no halt of a second at this rate. */
        ASSERT_NEAR(metric_find(&ml, "ftp.halt_count")->value, 0, 0);
        metric_list_clear(&ml);
        cmd = g_strdup_printf("rm -rf %s", tmp);
        ASSERT_EQ(system(cmd), 0);
}

/* Read one line from fd within timeout_s. Returns 1, 0 on EOF, -1 on timeout. */
static int read_line(int fd, char *buf, size_t size, double timeout_s) {
        size_t n = 0;
        double deadline = now_mono() + timeout_s;

        while (n + 1 < size) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                double left = deadline - now_mono();
                if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
                        return -1;
                char c;
                ssize_t k = read(fd, &c, 1);
                if (k <= 0)
                        return n ? 1 : 0;
                if (c == '\n')
                        break;
                buf[n++] = c;
        }
        buf[n] = '\0';
        return 1;
}

TEST(job_script_end_to_end) {
        require_root_vsftpd();
        if (system("busybox true") != 0)
                TEST_SKIP("no busybox");
        g_autofree char *tmp = g_dir_make_tmp("kbench-ftp-XXXXXX", NULL);
        g_autofree char *mnt = g_strdup_printf("%s/mnt", tmp), *dir = g_strdup_printf("%s/ftp", mnt);
        g_autofree char *run = g_strdup_printf("%s/run", tmp), *fifo = g_strdup_printf("%s/host", tmp);
        g_autofree char *script = NULL, *data = g_strdup_printf("%s/in/data", dir), *cmd = NULL;
        static struct fake f;
        struct workload_env env = { .nports = 5 };
        struct metric_list ml = { 0 };
        struct kb_error err = { "" };
        struct ftp_params p = { .size = 48 << 20, .seed = 777, .verify = 1, .banner_timeout_s = 10 };
        char line[600], *lines[64], *events[16], want[65], got[65];
        double event_t[16];
        size_t n_lines = 0, n_events = 0;
        int fd3[2], out[2], status;
        pid_t pid;

        free_ports(env.ports);
        struct ftp_server_params sp = { .dir = dir, .run_dir = run, .user = ftp_user(),
                                        .listen_address = "127.0.0.1", .port = env.ports[0],
                                        .pasv_min = env.ports[1], .pasv_max = env.ports[4] };
        ASSERT_EQ(ftp_script_build(&sp, fifo, 1, &script, &err), 0);
        ASSERT_TRUE(chmod(tmp, 0755) == 0 && g_mkdir_with_parents(mnt, 0755) == 0);
        ASSERT_TRUE(mkfifo(fifo, 0600) == 0);
        ASSERT_TRUE(pipe(fd3) == 0 && pipe(out) == 0);
        pid = fork();
        ASSERT_TRUE(pid >= 0);
        if (pid == 0) {
                /* As the agent runs a job: cwd = mnt, events on fd 3. */
                if (chdir(mnt) < 0 || dup2(fd3[1], 3) < 0 || dup2(out[1], 1) < 0 || dup2(out[1], 2) < 0)
                        _exit(126);
                execlp("busybox", "busybox", "sh", "-c", script, (char *)NULL);
                _exit(127);
        }
        close(fd3[1]);
        close(out[1]);
        for (;;) {
                int r = read_line(fd3[0], line, sizeof(line), 30);
                ASSERT_TRUE(r >= 0);
                if (r == 0)
                        break;
                ASSERT_TRUE(n_events < ELEMENTSOF(events));
                event_t[n_events] = now_mono();
                events[n_events++] = g_strdup(line);
                if (strcmp(line, "host-start") == 0) {
                        f.fifo = fifo;
                        struct workload_host host = fake_host(&f, &env, &ml);
                        if (ftp_upload(&host, &p, &err) < 0)
                                TEST_FAIL("ftp_upload: %s", err.msg);
                }
        }
        while (read_line(out[0], line, sizeof(line), 30) == 1 && n_lines < ELEMENTSOF(lines))
                lines[n_lines++] = g_strdup(line);
        waitpid(pid, &status, 0);
        for (size_t i = 0; i < n_lines; i++)
                fprintf(stderr, "job: %s\n", lines[i]);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        ASSERT_EQ(n_events, 6);    /* host-start upload-seen sync-start sync-end verify-start verify-end */

        sha256_of_stream(p.seed, p.size, want);
        sha256_of_file(data, got);
        ASSERT_STREQ(got, want);

        _cleanup_(spec_freep) struct workload_spec *s = spec3("48M", "1", "777");
        struct workload_output o = { n_lines, (const char *const *)lines, n_events,
                                     (const char *const *)events, event_t };
        if (ftp_ops.parse(s, &o, &ml, &err) < 0)
                TEST_FAIL("parse: %s", err.msg);
        double up = metric_find(&ml, "ftp.upload_s")->value;
        double ingest = metric_find(&ml, "ftp.ingest_s")->value;
        double sync_s = metric_find(&ml, "ftp.sync_s")->value;
        ASSERT_TRUE(sync_s >= 0 && ingest >= up + sync_s - 1e-3);
        /* The job's upload time is the host's, rounded to the microsecond. */
        char want_line[64];
        snprintf(want_line, sizeof(want_line), "ftp-upload-s %.6f", up);
        int seen = 0;
        for (size_t i = 0; i < n_lines; i++)
                seen += strcmp(lines[i], want_line) == 0;
        ASSERT_EQ(seen, 1);
        fprintf(stderr, "upload %.3f s, sync %.3f s, ingest %.3f s\n", up, sync_s, ingest);

        for (size_t i = 0; i < n_lines; i++)
                g_free(lines[i]);
        for (size_t i = 0; i < n_events; i++)
                g_free(events[i]);
        metric_list_clear(&ml);
        cmd = g_strdup_printf("rm -rf %s", tmp);
        ASSERT_EQ(system(cmd), 0);
}

TEST(job_script_vsftpd_cannot_start) {
        require_root_vsftpd();
        if (system("busybox true") != 0)
                TEST_SKIP("no busybox");
        /* A listen address no interface has: vsftpd exits at once with
         * "500 OOPS: could not bind listening IPv4 socket". The job must say
         * so and exit 1 without ever asking the host to upload. */
        g_autofree char *tmp = g_dir_make_tmp("kbench-ftp-XXXXXX", NULL);
        g_autofree char *mnt = g_strdup_printf("%s/mnt", tmp), *dir = g_strdup_printf("%s/ftp", mnt);
        g_autofree char *run = g_strdup_printf("%s/run", tmp), *fifo = g_strdup_printf("%s/host", tmp);
        g_autofree char *script = NULL, *cmd = NULL, *out = NULL;
        uint16_t ports[5];
        struct kb_error err = { "" };
        int status;

        free_ports(ports);
        struct ftp_server_params sp = { .dir = dir, .run_dir = run, .user = ftp_user(),
                                        .listen_address = "192.0.2.77", .port = ports[0],
                                        .pasv_min = ports[1], .pasv_max = ports[4] };
        ASSERT_EQ(ftp_script_build(&sp, fifo, 0, &script, &err), 0);
        ASSERT_TRUE(g_mkdir_with_parents(mnt, 0755) == 0);
        g_autofree char *path = g_strdup_printf("%s/job.sh", tmp);
        ASSERT_TRUE(g_file_set_contents(path, script, -1, NULL));
        /* fd 3 (events) into a file: it must stay empty. */
        cmd = g_strdup_printf("cd %s && timeout 20 busybox sh %s > %s/out 2>&1 3> %s/events",
                              mnt, path, tmp, tmp);
        status = system(cmd);
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1);
        g_autofree char *events_path = g_strdup_printf("%s/events", tmp), *events = NULL;
        g_autofree char *out_path = g_strdup_printf("%s/out", tmp);
        ASSERT_TRUE(g_file_get_contents(events_path, &events, NULL, NULL));
        ASSERT_STREQ(events, "");
        ASSERT_TRUE(g_file_get_contents(out_path, &out, NULL, NULL));
        fprintf(stderr, "job: %s", out);
        ASSERT_TRUE(g_str_has_prefix(out, "ftp-error: vsftpd exited: 500 OOPS: could not bind"));
        ASSERT_TRUE(strchr(out, '\n') == out + strlen(out) - 1);
        g_free(cmd);
        cmd = g_strdup_printf("rm -rf %s", tmp);
        ASSERT_EQ(system(cmd), 0);
}
