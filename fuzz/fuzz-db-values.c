/* fuzz-db-values.c: a results database whose structure is sound but whose
 * values are not: a NULL where the schema said NOT NULL, a time near
 * DBL_MAX, text where a number belongs, a blob for a name. fuzz-db.c runs
 * the queries over damaged files; this target runs everything that reads
 * a store above them, since that is where such values did harm (a NULL
 * state dereferenced by a view, an axis wider than a double that a chart
 * never finished drawing): every view of `kbench show` (the runs, each
 * run, its cells, their vmstat and logs), and a whole `kbench publish`
 * with its default comparisons, into a directory removed after. The
 * corpus (fuzz/corpus/db-values/) is a real store and copies of it damaged
 * at the value level by fuzz/gen-db-values.py. Errors are expected;
 * crashes, leaks and hangs are not. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/show.h"
#include "results/db.h"
#include "results/query.h"
#include "web/site.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The site is flat: its pages and its manifest. */
static void remove_site(const char *dir) {
        DIR *d = opendir(dir);
        struct dirent *de;
        char path[512];

        if (!d)
                return;
        while ((de = readdir(d)))
                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
                        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
                        unlink(path);
                }
        closedir(d);
        rmdir(dir);
}

static void show_everything(struct db *db, FILE *out) {
        struct kb_error err;
        struct query_run *runs = NULL;
        size_t n_runs = 0;

        for (int json = 0; json < 2; json++)
                (void)show_runs(db, json, out, &err);
        if (query_runs(db, &runs, &n_runs, &err) < 0)
                return;
        for (size_t i = 0; i < n_runs && i < 4; i++) {
                struct query_cell *cells = NULL;
                size_t n_cells = 0;

                for (int json = 0; json < 2; json++)
                        (void)show_run(db, runs[i].id, &(struct show_opts){ .format = json ? SHOW_JSON : SHOW_TEXT }, out, &err);
                if (query_cells(db, runs[i].id, &cells, &n_cells, &err) < 0)
                        continue;
                for (size_t k = 0; k < n_cells && k < 4; k++) {
                        const char *key = cells[k].cell_key;

                        for (int json = 0; json < 2; json++) {
                                (void)show_cell(db, runs[i].id, key, json, out, &err);
                                (void)show_cell_vmstat(db, runs[i].id, key, json, out, &err);
                        }
                        (void)show_cell_log(db, runs[i].id, key, "console", 1, out, &err);
                }
                query_cells_free(cells, n_cells);
        }
        query_runs_free(runs, n_runs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char path[] = "/tmp/kbench-fuzz-dbv-XXXXXX", side[64], site[64];
        struct kb_error err;
        struct db *db = NULL;
        int fd;

        if (size > 4 << 20)
                return 0;
        fd = mkstemp(path);
        if (fd < 0)
                return 0;
        if (write(fd, data, size) == (ssize_t)size && db_open_existing(path, &db, &err) >= 0) {
                FILE *out = fopen("/dev/null", "w");
                struct site_options o = { .dir = site, .with_defaults = 1 };
                struct site_result res;

                if (out) {
                        show_everything(db, out);
                        fclose(out);
                }
                snprintf(site, sizeof(site), "%s-site", path);
                (void)site_publish(db, &o, &res, &err);
                remove_site(site);
                db_close(db);
        }
        close(fd);
        unlink(path);
        snprintf(side, sizeof(side), "%s-wal", path);
        unlink(side);
        snprintf(side, sizeof(side), "%s-shm", path);
        unlink(side);
        return 0;
}
