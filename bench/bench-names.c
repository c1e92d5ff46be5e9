/* bench-names.c: how the cost of `kbench show RUN`, `kbench compare` and
 * `kbench publish` grows with the number of distinct metric names. A store
 * of one run, two kernels, 4 dd cells each, every cell with N metric names
 * of its own kind (vmstat-like, informational: the costs here are of
 * pairing, grouping and laying out, not of a judged metric's statistics,
 * which bench-compare times), for N = 2 500, 5 000, 10 000 and 20 000.
 * Reported per N: each verb's seconds (the view and its text, as the verb
 * prints it, to /dev/null; publish into a new directory), the site's bytes
 * and its largest file; then each verb's growth from 10 000 to 20 000
 * names, about 2 when linear and 4 when quadratic. Fails when a growth is
 * over 3, or a page or data file is over the site's bound per file.
 * `meson test --benchmark`, or build/bench/bench-names [MAX_N]. */
#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib.h>

#include "bench/bench.h"
#include "bench/benchstore.h"
#include "report/compare.h"
#include "report/show.h"
#include "report/textcompare.h"
#include "report/view.h"
#include "results/db.h"
#include "web/site.h"

#define CELLS_PER_KERNEL 4
#define GROWTH_MAX 3.0             /* 2 is linear, 4 quadratic */
/* A page or data file the site writes stays under this however many
 * names a cell has: the site lists at most PAGE_METRICS_MAX metrics a
 * table (web/page.h), a few hundred bytes each. */
#define FILE_BYTES_MAX (8 << 20)

/* Metric k: a name of its own kind, vmstat-like and informational. */
static double metric_name(int k, char *name, size_t size, const char **unit) {
        snprintf(name, size, "vmstat.m%05d_mean", k);
        *unit = "blocks/s";
        return 100;
}

/* One run of 2 x CELLS_PER_KERNEL dd cells, each with n metric names. */
static int fill(struct db *db, int n) {
        const char *params = "{\"workload\":\"dd:size=,bs=1M\",\"mem_mb\":256,\"cpus\":1,\"disk_mbps\":0,"
                             "\"fs\":\"ext4\",\"accel\":\"kvm\"}";
        struct benchstore b;
        int r = -1;

        if (benchstore_begin(&b, db_handle(db), "bench-names") == 0 &&
            benchstore_exec(b.h, b.who, "INSERT INTO runs (id, tag, settings_json, started_at, status) VALUES (1, "
                            "'names', '{\"repeats\":4,\"mem_mb\":256,\"cpus\":1,\"accel\":\"kvm\"}', "
                            "1700000000, 'complete')") == 0)
                r = benchstore_cells(&b, 1, 2 * CELLS_PER_KERNEL, params, n, metric_name);
        return benchstore_end(&b, r);
}

/* The site's bytes and its largest file. */
static void site_size(const char *site, long long *ret_total, long long *ret_max) {
        DIR *d = opendir(site);
        struct dirent *e;

        *ret_total = *ret_max = 0;
        while (d && (e = readdir(d))) {
                g_autofree char *p = g_build_filename(site, e->d_name, NULL);
                struct stat st;

                if (e->d_name[0] == '.' || stat(p, &st) < 0)
                        continue;
                *ret_total += st.st_size;
                *ret_max = MAX(*ret_max, (long long)st.st_size);
        }
        if (d)
                closedir(d);
}

struct times {
        double show, compare, publish;
        long long site_bytes, page_max;
};

static int measure(const char *dir, int n, struct times *t) {
        g_autofree char *path = g_strdup_printf("%s/n%d.db", dir, n), *site = g_strdup_printf("%s/site%d", dir, n);
        struct compare_options o = { .a = "run:1:kA", .b = "run:1:kB", .alpha = 0.05, .noise = 0.02 };
        struct site_options so = { .dir = site };
        struct kb_error err = { { 0 } };
        struct compare_view *v = NULL;
        struct site_result res;
        struct db *db = NULL;
        FILE *null = fopen("/dev/null", "w");
        double t0;
        int r = -1;

        if (!null || db_open(path, &db, &err) < 0 || fill(db, n) < 0)
                goto out;
        t0 = bench_now();
        if (show_run(db, 1, &(struct show_opts){ .format = SHOW_TEXT, .width = TEXTCOMPARE_WIDTH }, null, &err) < 0)
                goto out;
        t->show = bench_now() - t0;
        t0 = bench_now();
        if (view_compare_load(db, &o, &v, &err) < 0)
                goto out;
        textcompare_print(v, &(struct textcompare_opts){ .width = TEXTCOMPARE_WIDTH }, null);
        t->compare = bench_now() - t0;
        t0 = bench_now();
        if (site_publish(db, &so, &res, &err) < 0)
                goto out;
        t->publish = bench_now() - t0;
        site_size(site, &t->site_bytes, &t->page_max);
        r = 0;
out:
        if (r < 0)
                fprintf(stderr, "bench-names: %d names: %s\n", n, err.msg);
        compare_view_free(v);
        db_close(db);
        if (null)
                fclose(null);
        return r;
}

int main(int argc, char **argv) {
        static const int sizes[] = { 2500, 5000, 10000, 20000 };
        char dir[] = "/tmp/kbench-bench-names-XXXXXX";
        g_autofree char *cmd = NULL;
        struct times t[4] = { { 0 } };
        int max_n = argc > 1 ? atoi(argv[1]) : 20000, n_done = 0, rc = 0;

        if (!mkdtemp(dir))
                return 1;
        cmd = g_strdup_printf("rm -rf '%s'", dir);
        printf("%8s %9s %9s %9s %10s %12s  (%d cells, one metric name each per cell)\n", "names", "show s",
               "compare s", "publish s", "site MB", "largest MB", 2 * CELLS_PER_KERNEL);
        for (size_t i = 0; i < G_N_ELEMENTS(sizes) && sizes[i] <= max_n; i++) {
                if (measure(dir, sizes[i], &t[i]) < 0) {
                        rc = 1;
                        break;
                }
                printf("%8d %9.3f %9.3f %9.3f %10.1f %12.2f\n", sizes[i], t[i].show, t[i].compare, t[i].publish,
                       (double)t[i].site_bytes / 1e6, (double)t[i].page_max / 1e6);
                fflush(stdout);
                if (t[i].page_max > FILE_BYTES_MAX) {
                        fprintf(stderr, "bench-names: a file of %lld bytes, over the bound of %d\n", t[i].page_max,
                                FILE_BYTES_MAX);
                        rc = 1;
                }
                n_done++;
        }
        if (n_done >= 2) {
                const struct times *a = &t[n_done - 2], *b = &t[n_done - 1];
                double g[3] = { b->show / a->show, b->compare / a->compare, b->publish / a->publish };

                printf("growth from %d to %d names: show x%.2f, compare x%.2f, publish x%.2f (2: linear, 4: "
                       "quadratic)\n", sizes[n_done - 2], sizes[n_done - 1], g[0], g[1], g[2]);
                for (int k = 0; k < 3; k++)
                        if (g[k] > GROWTH_MAX) {
                                fprintf(stderr, "bench-names: a cost grew x%.2f when the names doubled\n", g[k]);
                                rc = 1;
                        }
        }
        if (system(cmd) != 0)
                fprintf(stderr, "bench-names: cannot remove %s\n", dir);
        return rc;
}
