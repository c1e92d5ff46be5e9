/* runner_store.c: what a run writes, and how it keeps what it measured
 * safe: the run row's settings and host, each finished attempt as one
 * transaction (retried once after giving back the store's reserve, or
 * kept pending for --resume), and the kernel's symbol table a guest sent.
 * Apart from the loop so that the storage contract (what a cell's row
 * holds, what a run's settings say) is in one place. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <jansson.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cell/cellprof.h"
#include "cell/cellrows.h"
#include "common/fileio.h"
#include "kernels/kconfig.h"
#include "kernels/ksyms.h"
#include "run/runner_int.h"

char *runner_store_host_info(void) {
        g_autofree char *cpuinfo = NULL, *meminfo = NULL;
        const char *model = "unknown";
        char *line, *save = NULL;
        struct utsname u;
        long mem_kb = 0;
        json_t *j;
        char *s;

        uname(&u);
        if (g_file_get_contents("/proc/cpuinfo", &cpuinfo, NULL, NULL))
                for (line = strtok_r(cpuinfo, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
                        if (g_str_has_prefix(line, "model name") && strchr(line, ':')) {
                                model = g_strstrip(strchr(line, ':') + 1);
                                break;
                        }
        if (g_file_get_contents("/proc/meminfo", &meminfo, NULL, NULL))
                mem_kb = strtol(meminfo + strcspn(meminfo, "0123456789"), NULL, 10);
        j = json_pack("{s:s, s:s, s:i, s:I, s:s}", "cpu", model, "kernel", u.release,
                      "cores", (int)sysconf(_SC_NPROCESSORS_ONLN), "mem_kb", (json_int_t)mem_kb,
                      "machine", u.machine);
        s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(j);
        return s;
}

char *runner_store_settings(const struct run *r) {
        const struct run_settings *o = &r->set;
        json_t *j = json_object(), *ks = json_array(), *ws = json_array();
        char *s;

        for (size_t k = 0; k < r->n_kernels; k++) {
                /* The upstream version, for the pages: the store may have
                 * lost the kernel by the time they are written. */
                g_autofree char *up = kconfig_upstream(r->kernels[k]->version, r->kernels[k]->release);

                json_array_append_new(ks, json_pack("{s:s, s:s, s:s?, s:s?}", "name", r->kernels[k]->name, "id",
                                                    r->kernels[k]->id, "release", r->kernels[k]->release,
                                                    "upstream", up));
        }
        for (size_t w = 0; w < r->n_specs; w++)
                json_array_append_new(ws, json_string(r->specs[w]->text));
        json_object_set_new(j, "kernels", ks);
        json_object_set_new(j, "workloads", ws);
        runopts_save(o, j);
        /* What the run's header counts against, also while it is unfinished. */
        json_object_set_new(j, "planned_cells", json_integer((json_int_t)(r->n_kernels * r->n_specs) *
                                                             run_rounds(r)));
        json_object_set_new(j, "accel", json_string(r->accel));
        json_object_set_new(j, "accel_why", json_string(r->accel_why));
        if (r->g->hosts) {
                json_t *hs = json_array();

                for (size_t h = 0; h < r->n_hosts; h++)
                        json_array_append_new(hs, json_pack("{s:s, s:s, s:i}", "name", r->hosts[h].name, "uri",
                                                            r->hosts[h].uri, "slots", (int)r->hosts[h].slots));
                json_object_set_new(j, RUNOPTS_HOSTS_KEY, hs);
        }
        /* Which of these keys compare and nightly leave out of "the same
         * settings", as the option table classified them for this run. */
        json_object_set_new(j, RUNOPTS_HOW_KEYS, runopts_how_keys());
        s = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        return s;
}

/* A cell's params: its workload, the settings the option table keeps per
 * cell (and the accelerator), and the sysctls its guest read back after
 * writing them (res may be NULL: none known). */
static char *cell_params_json(const struct run *r, const struct run_host *h, const struct plan_cell *pc,
                              const struct cell_result *res) {
        json_t *j = json_pack("{s:s}", "workload", r->specs[pc->workload]->text);
        char *s;

        runopts_cell_params(&r->set, j);
        /* A host's cells are its own comparison (settings/runopts.c). */
        json_object_set_new(j, RUNOPTS_ACCEL_KEY, json_string(h->accel));
        if (h->name)
                json_object_set_new(j, RUNOPTS_HOST_KEY, json_string(h->name));
        if (res && res->sysctls && res->sysctls->len) {
                json_t *applied = json_object();
                for (guint i = 0; i < res->sysctls->len; i++) {
                        const char *kv = res->sysctls->pdata[i], *eq = strchr(kv, '=');
                        g_autofree char *k = g_strndup(kv, (size_t)(eq - kv));
                        json_object_set_new(applied, k, json_string(eq + 1));
                }
                json_object_set_new(j, "sysctls_applied", applied);
        }
        if (res && res->disk_driver[0])
                json_object_set_new(j, "disk_driver", json_string(res->disk_driver));
        s = json_dumps(j, JSON_COMPACT);

        json_decref(j);
        return s;
}

#define RESERVE_BYTES (64u << 20)

/* Keep RESERVE_BYTES of the store's filesystem in a file, so that a commit
 * that fails on a full disk can be retried once the reserve is given back.
 * Best effort: a store without room for it runs without it. */
void runner_store_reserve(struct run *r) {
        int fd = -1;

        r->reserve = g_build_filename(r->g->home, "reserve", NULL);
        /* Not through a link someone put there: it would fill its target. */
        if (fileio_create(r->reserve, O_WRONLY, 0600, &fd, NULL) < 0)
                return;
        if (posix_fallocate(fd, 0, RESERVE_BYTES) != 0)
                run_note(r, "no room for the %u MiB reserve in %s", RESERVE_BYTES >> 20, r->g->home);
        close(fd);
}

/* Give the reserve back; returns 1 when there was one to give. */
static int reserve_release(struct run *r) {
        return r->reserve && g_unlink(r->reserve) == 0;
}

/* A kernel's symbol table its guest sent in a cell goes into the kernel
 * store, so the kernel's later cells need not send it again
 * (cell/cellprof.h). Not being able to is said, not fatal: the next cell
 * sends it again. */
void runner_store_ksyms(struct run *r, const struct kstore_kernel *k, const struct cell_result *res) {
        g_autofree char *tmp = NULL;
        struct kb_error err = { { 0 } };
        int multi = r->n_hosts > 1, fd;

        if (!res->ksyms_fresh || !res->ksyms)
                return;
        tmp = g_build_filename(r->g->home, "scratch", "ksyms-XXXXXX", NULL);
        fd = g_mkstemp(tmp);
        if (fd < 0) {
                run_note(r, "%s: its symbol table is not kept: %s: %s", k->name, tmp, g_strerror(errno));
                return;
        }
        close(fd);
        if (multi)
                g_mutex_lock(&r->lock);
        if (ksyms_save(res->ksyms, tmp, &err) < 0 || kstore_attach(r->ks, k, "ksyms", tmp, CELLPROF_KSYMS_FILE, &err) < 0)
                run_note(r, "%s: its symbol table is not kept: %s", k->name, err.msg);
        if (multi)
                g_mutex_unlock(&r->lock);
        g_unlink(tmp);
}

/* Store one finished attempt. A failed commit (a full host disk, mostly)
 * first gives back the store's reserve and tries again; if that fails too
 * the cell goes to <store>/pending as JSON, said in a note with its key,
 * and --resume stores it. Returns 0 when the cell is safe (in the database
 * or pending), or the error (the run must stop). */
int runner_store_cell(struct run *r, const struct run_host *h, const struct plan_cell *pc, int attempt,
                      struct cell_result *res, int *ret_pending, struct kb_error *err) {
        g_autofree char *params = cell_params_json(r, h, pc, res);
        g_autofree char *dir = g_build_filename(r->g->home, "pending", NULL);
        g_autofree char *path = NULL;
        struct cellrows_ctx ctx = { .run_id = r->row.id, .cell_key = pc->key,
                                    .kernel_id = r->kernels[pc->kernel]->id, .workload = r->specs[pc->workload],
                                    .iteration = pc->iteration, .attempt = attempt, .accel = h->accel,
                                    .params_json = params, .vmstat_interval_s = r->set.vmstat_interval_s };
        struct kb_error perr = { { 0 } };
        struct cellrows rows;
        int ret;

        *ret_pending = 0;
        cellrows_build(&ctx, res, &rows);
        rows.cell.host_id = h->db_id;
        ret = db_cell_insert(r->db, &rows.cell, NULL, err);
        if (ret < 0 && reserve_release(r))
                ret = db_cell_insert(r->db, &rows.cell, NULL, err);
        if (ret < 0 && cellrows_save_pending(dir, &rows.cell, &path, &perr) == 0) {
                kb_emit(r->ev, &(struct kb_event){ .kind = KB_EVENT_CELL_KEPT, .label = pc->key,
                                                   .run_id = r->row.id, .state = res->state,
                                                   .detail = err->msg, .text = path });
                *ret_pending = 1;
                ret = 0;
        } else if (ret < 0) {
                error_prefix(err, ret, "cell %s (run %" G_GINT64_FORMAT ", %s: %s) is lost: %s; storing it",
                             pc->key, r->row.id, res->state, res->detail, perr.msg);
        }
        cellrows_clear(&rows);
        return ret;
}
