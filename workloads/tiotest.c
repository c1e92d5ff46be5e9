/* tiotest.c: kbench's threaded I/O tester, a static guest binary written
 * from tiobench's published methodology (tiobench itself is unpackaged and
 * unmaintained). For each thread count T, T threads each own one file of
 * size/T bytes and run four phases in order: sequential write, random
 * write, sequential read, random read. A phase's wall clock runs from the
 * moment all threads are released together to the last thread's finish,
 * fsync included for writes. Random phases do random/T block-aligned
 * operations per thread from a per-thread seed, and rates count only the
 * operations done (the original credited a whole file to random phases).
 * With -c the page cache is dropped (after sync) before each of the two
 * read phases, outside their timed window; otherwise the random read would
 * re-read what the sequential read just cached.
 * Each operation's latency is timed; CPU is getrusage(RUSAGE_SELF) user +
 * system over the phase: the sum over all threads of this process, so it
 * ranges up to 100% per CPU and leaves out work done by kernel threads
 * (background writeback by the flusher, I/O completion charged elsewhere). One self-describing line per (phase, T) goes to
 * stdout for tiobench.c's parser:
 *
 *   tiotest phase=seq_write threads=2 size=67108864 block=4096 ops=16384
 *     bytes=67108864 wall_s=0.5 lat_avg_ms=0.03 lat_max_ms=12 lat_gt2s=0
 *     lat_gt10s=0 cpu_user_s=0.01 cpu_sys_s=0.2
 *
 * (one line). Memory is bounded: one block buffer per thread. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/parse.h"
#include "common/splitmix64.h"

#define TIOTEST_THREADS_MAX 256
#define TIOTEST_COUNTS_MAX 32
#define TIOTEST_BLOCK_MAX (16u << 20)

enum tiotest_phase { SEQ_WRITE, RAND_WRITE, SEQ_READ, RAND_READ, N_PHASES };

static const char *const tiotest_phase_names[N_PHASES] = {
        "seq_write", "rand_write", "seq_read", "rand_read",
};

struct tiotest_opts {
        const char *dir;
        uint64_t size;             /* total bytes over all threads */
        uint64_t block;            /* bytes per operation */
        uint64_t random;           /* random operations over all threads */
        unsigned threads[TIOTEST_COUNTS_MAX];
        int n_threads;
        int direct, sync, drop_caches;
        uint64_t seed;
        int event_fd;              /* phase events go here, -1: none */
};

struct tiotest_thread {
        pthread_t tid;
        const struct tiotest_opts *o;
        pthread_barrier_t *ready, *go;
        enum tiotest_phase phase;
        unsigned index;
        int fd;
        unsigned char *buf;
        uint64_t blocks;           /* blocks in this thread's file */
        uint64_t nops;             /* operations to do */
        uint64_t seed;
        /* results */
        uint64_t ops_done;
        double lat_sum, lat_max;   /* seconds */
        uint64_t gt2, gt10;
        double t_end;              /* CLOCK_MONOTONIC seconds after the last op (and fsync) */
        int err;                   /* errno of the first failure, 0 = ok */
        const char *what;          /* the failing call */
};

static double tiotest_now(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whole-block pread/pwrite: short transfers continue, EINTR retries, and
 * end of file before the block is full is an error (EIO). */
static int tiotest_io(int fd, unsigned char *buf, size_t len, uint64_t off, int is_write) {
        size_t done = 0;

        while (done < len) {
                ssize_t n = is_write ? pwrite(fd, buf + done, len - done, (off_t)(off + done))
                                  : pread(fd, buf + done, len - done, (off_t)(off + done));
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        return is_write ? -ENOSPC : -EIO;
                done += (size_t)n;
        }
        return 0;
}

static void *tiotest_worker(void *arg) {
        struct tiotest_thread *t = arg;
        int is_write = t->phase == SEQ_WRITE || t->phase == RAND_WRITE;
        int is_random = t->phase == RAND_WRITE || t->phase == RAND_READ;
        uint64_t state = t->seed;

        pthread_barrier_wait(t->ready);
        pthread_barrier_wait(t->go);
        for (uint64_t i = 0; i < t->nops; i++) {
                uint64_t blk = is_random ? splitmix64(&state) % t->blocks : i;
                double t0 = tiotest_now(), lat;
                int r = tiotest_io(t->fd, t->buf, t->o->block, blk * t->o->block, is_write);

                if (r < 0) {
                        t->err = -r;
                        t->what = is_write ? "write" : "read";
                        break;
                }
                lat = tiotest_now() - t0;
                t->ops_done++;
                t->lat_sum += lat;
                if (lat > t->lat_max)
                        t->lat_max = lat;
                if (lat > 2.0)
                        t->gt2++;
                if (lat > 10.0)
                        t->gt10++;
        }
        if (is_write && !t->err && fsync(t->fd) < 0) {
                t->err = errno;
                t->what = "fsync";
        }
        t->t_end = tiotest_now();
        return NULL;
}

static int tiotest_drop_caches(void) {
        int fd, r = 0;

        sync();
        fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (write(fd, "3\n", 2) != 2)
                r = -errno;
        close(fd);
        return r;
}

static void tiotest_event(const struct tiotest_opts *o, const char *what, unsigned threads) {
        char buf[96];
        int n;

        if (o->event_fd < 0)
                return;
        n = snprintf(buf, sizeof(buf), "phase %s t%u\n", what, threads);
        /* Events are advisory: a failed write must not fail the measurement. */
        if (write(o->event_fd, buf, (size_t)n) < 0)
                return;
}

static void tiotest_file(const struct tiotest_opts *o, unsigned threads, unsigned i, char *buf, size_t size) {
        snprintf(buf, size, "%s/tiotest.%u.%u", o->dir, threads, i);
}

/* Open thread i's file and fill its block buffer. Returns 0, or 1 after
 * printing why (nothing of it left open). */
static int tiotest_prepare(const struct tiotest_opts *o, unsigned n, enum tiotest_phase phase,
                           struct tiotest_thread *t, unsigned i) {
        int is_write = phase == SEQ_WRITE || phase == RAND_WRITE;
        char path[4096];
        int flags = (is_write ? O_RDWR : O_RDONLY) | O_CLOEXEC;

        if (phase == SEQ_WRITE)
                flags |= O_CREAT | O_TRUNC;
        if (o->direct)
                flags |= O_DIRECT;
        if (o->sync && is_write)
                flags |= O_SYNC;
        tiotest_file(o, n, i, path, sizeof(path));
        t->fd = open(path, flags, 0644);
        if (t->fd < 0) {
                fprintf(stderr, "tiotest: open %s: %s\n", path, strerror(errno));
                return 1;
        }
        /* O_DIRECT wants an aligned buffer; 4096 covers every logical block size we meet. */
        if (posix_memalign((void **)&t->buf, 4096, o->block) != 0) {
                fprintf(stderr, "tiotest: out of memory\n");
                close(t->fd);
                t->buf = NULL;
                return 1;
        }
        /* Written data is not all zeros, so no layer can shortcut it. */
        for (uint64_t b = 0, s = t->seed; b < o->block; b += 8) {
                uint64_t v = splitmix64(&s);
                memcpy(t->buf + b, &v, o->block - b < 8 ? o->block - b : 8);
        }
        return 0;
}

/* What the threads of a phase measured, summed. */
struct tiotest_sum {
        double t_end, lat_sum, lat_max;  /* seconds */
        uint64_t ops, gt2, gt10;
};

/* Sum the threads' results, close their files and free their buffers.
 * Returns 0, or 1 after printing the first thread's error. */
static int tiotest_gather(struct tiotest_thread *t, unsigned n, enum tiotest_phase phase,
                          struct tiotest_sum *sum) {
        int ret = 0;

        for (unsigned i = 0; i < n; i++) {
                if (t[i].err && !ret) {
                        fprintf(stderr, "tiotest: %s %s thread %u: %s\n", tiotest_phase_names[phase],
                                t[i].what ? t[i].what : "", i, strerror(t[i].err));
                        ret = 1;
                }
                if (t[i].t_end > sum->t_end)
                        sum->t_end = t[i].t_end;
                sum->ops += t[i].ops_done;
                sum->lat_sum += t[i].lat_sum;
                if (t[i].lat_max > sum->lat_max)
                        sum->lat_max = t[i].lat_max;
                sum->gt2 += t[i].gt2;
                sum->gt10 += t[i].gt10;
                close(t[i].fd);
                free(t[i].buf);
        }
        return ret;
}

static double tiotest_cpu_s(const struct timeval *a, const struct timeval *b) {
        return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_usec - a->tv_usec) / 1e6;
}

/* Start the prepared threads together, wait for them, and measure the
 * process's CPU time over the phase. */
static void tiotest_start(struct tiotest_thread *t, unsigned n, pthread_barrier_t *ready, pthread_barrier_t *go,
                          double *ret_t_start, struct rusage *ret_r0, struct rusage *ret_r1) {
        for (unsigned i = 0; i < n; i++)
                if (pthread_create(&t[i].tid, NULL, tiotest_worker, &t[i]) != 0) {
                        /* The prepared threads wait on a barrier that can no
                         * longer fill; leaving the process is the only way out. */
                        fprintf(stderr, "tiotest: cannot create thread %u\n", i);
                        exit(1);
                }

        pthread_barrier_wait(ready);
        getrusage(RUSAGE_SELF, ret_r0);
        *ret_t_start = tiotest_now();
        pthread_barrier_wait(go);
        for (unsigned i = 0; i < n; i++)
                pthread_join(t[i].tid, NULL);
        getrusage(RUSAGE_SELF, ret_r1);
}

/* Run one phase with n threads. Returns 0, or 1 after printing why. */
static int tiotest_phase(const struct tiotest_opts *o, unsigned n, enum tiotest_phase phase) {
        uint64_t file_bytes = o->size / n / o->block * o->block;
        struct tiotest_thread *t = calloc(n, sizeof(*t));
        struct tiotest_sum sum = { 0 };
        pthread_barrier_t ready, go;
        struct rusage r0, r1;
        double t_start;
        int ret = 0;
        unsigned prepared = 0;

        if (!t) {
                fprintf(stderr, "tiotest: out of memory\n");
                return 1;
        }
        pthread_barrier_init(&ready, NULL, n + 1);
        pthread_barrier_init(&go, NULL, n + 1);
        for (unsigned i = 0; i < n && !ret; i++) {
                t[i] = (struct tiotest_thread){
                        .o = o, .ready = &ready, .go = &go, .phase = phase, .index = i,
                        .blocks = file_bytes / o->block,
                        /* 0x5851f42d4c957f2d: an odd constant spreading thread seeds apart */
                        .seed = o->seed ^ ((uint64_t)(i + 1) * 0x5851f42d4c957f2dULL) ^ ((uint64_t)phase << 56),
                };
                t[i].nops = (phase == RAND_WRITE || phase == RAND_READ) ? o->random / n : t[i].blocks;
                ret = tiotest_prepare(o, n, phase, &t[i], i);
                if (!ret)
                        prepared++;
        }
        if (ret) {
                /* No thread runs yet: files and buffers are set up first. */
                for (unsigned i = 0; i < prepared; i++) {
                        close(t[i].fd);
                        free(t[i].buf);
                }
        } else {
                tiotest_start(t, n, &ready, &go, &t_start, &r0, &r1);
                ret = tiotest_gather(t, n, phase, &sum);
        }
        pthread_barrier_destroy(&ready);
        pthread_barrier_destroy(&go);
        free(t);
        if (ret)
                return ret;

        printf("tiotest phase=%s threads=%u size=%" PRIu64 " block=%" PRIu64 " ops=%" PRIu64
               " bytes=%" PRIu64 " wall_s=%.6f lat_avg_ms=%.6f lat_max_ms=%.6f lat_gt2s=%" PRIu64
               " lat_gt10s=%" PRIu64 " cpu_user_s=%.6f cpu_sys_s=%.6f\n",
               tiotest_phase_names[phase], n, file_bytes * n, o->block, sum.ops, sum.ops * o->block,
               sum.t_end - t_start, sum.ops ? sum.lat_sum / (double)sum.ops * 1e3 : 0.0, sum.lat_max * 1e3,
               sum.gt2, sum.gt10, tiotest_cpu_s(&r0.ru_utime, &r1.ru_utime),
               tiotest_cpu_s(&r0.ru_stime, &r1.ru_stime));
        fflush(stdout);
        return 0;
}

static int tiotest_run(const struct tiotest_opts *o, unsigned n) {
        int r = 0;

        for (int p = 0; p < N_PHASES && r == 0; p++) {
                /* Before each read phase, not only the first: the
                 * sequential read leaves every file in the page cache, and
                 * a random read after it would time memory copies. */
                if ((p == SEQ_READ || p == RAND_READ) && o->drop_caches) {
                        int d;

                        /* A phase of its own: how much the drop frees
                         * follows what the phase before it left. */
                        tiotest_event(o, "drop-caches", n);
                        d = tiotest_drop_caches();
                        if (d < 0) {
                                fprintf(stderr, "tiotest: drop caches: %s\n", strerror(-d));
                                r = 1;
                                break;
                        }
                }
                tiotest_event(o, tiotest_phase_names[p], n);
                r = tiotest_phase(o, n, (enum tiotest_phase)p);
        }
        for (unsigned i = 0; i < n; i++) {
                char path[4096];

                tiotest_file(o, n, i, path, sizeof(path));
                unlink(path);
        }
        return r;
}

static int tiotest_usage(const char *msg) {
        if (msg)
                fprintf(stderr, "tiotest: %s\n", msg);
        fprintf(stderr, "usage: tiotest -d DIR -s SIZE -b BLOCK -t T[/T...] -r RANDOM_OPS"
                        " [-D] [-S] [-c] [-x SEED] [-e FD]\n"
                        "  -D O_DIRECT, -S O_SYNC writes, -c drop caches before each read phase,\n"
                        "  -e FD write phase events to FD\n");
        return 2;
}

static int tiotest_parse_threads(const char *s, struct tiotest_opts *o) {
        o->n_threads = 0;
        for (;;) {
                char num[16];
                size_t len = strcspn(s, "/");
                uint64_t v;

                if (len == 0 || len >= sizeof(num) || o->n_threads >= TIOTEST_COUNTS_MAX)
                        return -EINVAL;
                memcpy(num, s, len);
                num[len] = '\0';
                if (parse_u64(num, &v) < 0 || v == 0 || v > TIOTEST_THREADS_MAX)
                        return -EINVAL;
                o->threads[o->n_threads++] = (unsigned)v;
                if (s[len] == '\0')
                        return 0;
                s += len + 1;
        }
}

int main(int argc, char **argv) {
        struct tiotest_opts o = { .event_fd = -1 };
        uint64_t v;
        int c, have_threads = 0;

        while ((c = getopt(argc, argv, "d:s:b:t:r:DScx:e:")) != -1) {
                switch (c) {
                case 'd':
                        o.dir = optarg;
                        break;
                case 's':
                        if (parse_size(optarg, &o.size) < 0)
                                return tiotest_usage("bad -s");
                        break;
                case 'b':
                        if (parse_size(optarg, &o.block) < 0 || o.block == 0 || o.block > TIOTEST_BLOCK_MAX)
                                return tiotest_usage("bad -b (1 byte .. 16M)");
                        break;
                case 't':
                        if (tiotest_parse_threads(optarg, &o) < 0)
                                return tiotest_usage("bad -t (1..256, '/'-separated)");
                        have_threads = 1;
                        break;
                case 'r':
                        if (parse_u64(optarg, &o.random) < 0)
                                return tiotest_usage("bad -r");
                        break;
                case 'D':
                        o.direct = 1;
                        break;
                case 'S':
                        o.sync = 1;
                        break;
                case 'c':
                        o.drop_caches = 1;
                        break;
                case 'x':
                        if (parse_u64(optarg, &o.seed) < 0)
                                return tiotest_usage("bad -x");
                        break;
                case 'e':
                        if (parse_u64(optarg, &v) < 0 || v > 1024)
                                return tiotest_usage("bad -e");
                        o.event_fd = (int)v;
                        break;
                default:
                        return tiotest_usage(NULL);
                }
        }
        if (optind != argc || !o.dir || !o.size || !o.block || !have_threads)
                return tiotest_usage("-d, -s, -b and -t are required");
        for (int i = 0; i < o.n_threads; i++) {
                if (o.size / o.threads[i] < o.block)
                        return tiotest_usage("-s too small: every thread needs at least one block");
                if (o.random / o.threads[i] == 0)
                        return tiotest_usage("-r smaller than a thread count: a thread would do no operation");
        }
        if (o.event_fd >= 0 && fcntl(o.event_fd, F_GETFD) < 0)
                o.event_fd = -1;
        for (int i = 0; i < o.n_threads; i++)
                if (tiotest_run(&o, o.threads[i]) != 0)
                        return 1;
        return 0;
}
