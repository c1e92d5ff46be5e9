/* web/sitefixture: the generated store (see sitefixture.h). Records in the
 * data log are framed by the agent's writer (common/proto.h), as a cell's
 * would be; the marks the charts draw are the rows the cell would have
 * stored beside it (one per good event record, never the one with a bad
 * CRC). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "common/proto.h"
#include "results/bisect.h"
#include "results/nights.h"
#include "web/sitefixture.h"

#define KID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define KID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define KID_H "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define ROWS 30

static void record(GString *log, const char *key, unsigned seq, unsigned t_ms, const char *type,
                   const char *payload) {
        char buf[PROTO_LINE_MAX + 1];
        int n = proto_format(buf, sizeof(buf), key, seq, t_ms, type, payload, strlen(payload));

        if (n > 0)
                g_string_append_len(log, buf, n);
}

/* An event record in the log and its row among the marks (vmstat rows
 * arrive 0.8 s after they are made). */
static void event(GString *log, struct db_mark *marks, size_t *n, const char *key, unsigned seq, unsigned t_ms,
                  const char *name) {
        record(log, key, seq, t_ms, "event", name);
        marks[(*n)++] = (struct db_mark){ name, t_ms / 1000.0, t_ms / 1000.0 + 0.8 };
}

/* The cell's vmstat rows (one a second from 4 s, the since-boot row first)
 * and, for dd, the planted stall; cell 4 gets a write phase that ends
 * before it. OUT: rows[ROWS], pts (*np points appended). */
static void fixture_vmstat(int idx, int ftp, double jitter, struct db_vmstat_row *rows, struct db_point *pts,
                           size_t *np) {
        for (int i = 0; i < ROWS; i++) {
                rows[i] = (struct db_vmstat_row){ .seq = (int64_t)i + 5, .t_host = 4.0 + i, .t_guest = 3.2 + i,
                                                  .first = i == 0 };
                for (int k = 0; k < DB_VM_NCOLS; k++)
                        rows[i].v[k] = 10 + k + (i % 7);
                rows[i].v[DB_VM_bo] = 40000 + 1000 * (i % 5) + 500 * jitter;
                rows[i].v[DB_VM_bi] = i > 20 ? 80000 : 0;
                rows[i].v[DB_VM_free] = 60000 - 1000 * i;
                rows[i].v[DB_VM_cache] = 20000 + 1500 * i;
                rows[i].v[DB_VM_us] = 2;
                rows[i].v[DB_VM_sy] = 50 + i % 10;
                rows[i].v[DB_VM_id] = 40 - i % 10;
                rows[i].v[DB_VM_wa] = 8;
        }
        if (!ftp)
                for (int i = 10; i < 13; i++)
                        rows[i].v[DB_VM_bo] = 20;   /* the planted stall: one run of 3 rows */
        if (!ftp && idx == 4) {
                /* A write phase that ends before the stall (rows at 14..16 s):
                 * the shading follows the main phase, so nothing is shaded. */
                pts[(*np)++] = (struct db_point){ "phase.write", 3.5, 0 };
                pts[(*np)++] = (struct db_point){ "phase.write", 12.0, 1 };
        }
        rows[ROWS - 1].v[DB_VM_gu] = NAN;
}

static int add_cell(struct db *db, int64_t run_id, int idx, const char *kid, int ftp, int failed, int hostile,
                    unsigned *seed, struct kb_error *err) {
        char key[16];
        struct db_vmstat_row rows[ROWS];
        struct db_point pts[200];
        struct db_metric m[24];
        size_t nm = 0, np = 0;
        GString *data = g_string_new(NULL), *console = g_string_new(NULL);
        static const char output[] = "[agent] module crc32c-intel.ko: No such device\nftp-size 33554432\n";
        static const char script[] = "#!/bin/sh\ndd if=/dev/zero of=/mnt/f bs=1M count=32 conv=fsync\n";
        struct db_log logs[4];
        struct db_mark marks[8];
        size_t n_marks = 0;
        struct db_cell c;
        double jitter;
        int r;

        snprintf(key, sizeof(key), "c%03d", idx);
        *seed = *seed * 1103515245u + 12345u;
        jitter = (double)(*seed % 1000) / 1000.0;
        fixture_vmstat(idx, ftp, jitter, rows, pts, &np);
        if (ftp) {
                /* 0.1 s samples; flat from 8.0 to 9.5 s: one halt of 1.5 s */
                double bytes = 0;

                for (int i = 0; i < 150; i++) {
                        double t = 5.0 + 0.1 * i;

                        if (i > 0 && !(t > 7.95 && t < 9.55) && bytes < 33554432)
                                bytes += 400000;
                        pts[np++] = (struct db_point){ "ftp.bytes", t, bytes };
                }
        }

        record(data, key, 0, 3000, "ready", "release=6.1 cpus=2 mem_kb=112216");
        event(data, marks, &n_marks, key, 1, 3100, "mounted");
        if (ftp) {
                event(data, marks, &n_marks, key, 2, 4000, "host-start");
                event(data, marks, &n_marks, key, 3, 14000, "sync-start");
                event(data, marks, &n_marks, key, 4, 14500, "sync-end");
        } else {
                event(data, marks, &n_marks, key, 2, 3300, "phase write");
                event(data, marks, &n_marks, key, 3, 20000, "phase read");
                event(data, marks, &n_marks, key, 4, 30000, "phase end");
        }
        /* a record with a wrong CRC: never a phase mark */
        g_string_append_printf(data, "@kb %s 5 25000 event phase bogus *00000000\n", key);
        record(data, key, 6, 31000, "done", "0");

        g_string_append(console, "[    0.000000] Linux version 6.1.0 (debian-kernel@lists.debian.org)\n");
        for (int i = 0; i < 40; i++)
                g_string_append_printf(console, "[    %d.%06d] ata1.00: ATA-7: QEMU HARDDISK, 2.5+, max UDMA/100\n",
                                       i / 10, i * 1000);
        g_string_append(console, "\x1b[31mcolour\x1b[0m \xff\xfe invalid \xc3 utf-8\n");
        g_string_append_len(console, "NUL:\0:after\n", 12);
        if (hostile)
                g_string_append(console, SITEFIXTURE_HOSTILE " </pre><script>alert(2)</script>\n");

        if (!failed) {
                if (ftp) {
                        m[nm++] = (struct db_metric){ "ftp.MBps", 35 + 5 * jitter, 1, "MB/s", NULL };
                        m[nm++] = (struct db_metric){ "ftp.halt_count", 1, 1, "", NULL };
                        m[nm++] = (struct db_metric){ "ftp.halt_longest_s", 1.5, 1, "s", NULL };
                        m[nm++] = (struct db_metric){ "ftp.upload_s", 1.8, 1, "s", NULL };
                } else {
                        m[nm++] = (struct db_metric){ "dd.write_MBps", 100 + 8 * jitter, 1, "MB/s", NULL };
                        m[nm++] = (struct db_metric){ "dd.read_MBps", 350 + 20 * jitter, 1, "MB/s", NULL };
                        m[nm++] = (struct db_metric){ "dd.write_s", 3.2, 1, "s", NULL };
                        m[nm++] = (struct db_metric){ "dd.read_s", 0.9, 1, "s", NULL };
                        /* judged beyond the workload's own: the kernel's work and its waiting */
                        m[nm++] = (struct db_metric){ "guest.write.kernel_Minsn", 4200 + 4 * jitter, 1, "Minsn", NULL };
                        m[nm++] = (struct db_metric){ "guest.write.wait_s", 0.3 + 0.02 * jitter, 1, "s", NULL };
                }
                m[nm++] = (struct db_metric){ "vmstat.stall_count", ftp ? 0 : 1, 1, "runs", NULL };
                m[nm++] = (struct db_metric){ "vmstat.stall_longest_s", ftp ? 0 : 3, 1, "s", NULL };
                m[nm++] = (struct db_metric){ "vmstat.bo_mean", 42000, 1, "blocks/s", NULL };
                m[nm++] = (struct db_metric){ "vmstat.si_cov", 0, 0, "ratio", hostile ? SITEFIXTURE_HOSTILE : "mean is 0" };
        }
        logs[0] = (struct db_log){ "console", console->str, console->len };
        logs[1] = (struct db_log){ "data", data->str, data->len };
        logs[2] = (struct db_log){ "output", output, sizeof(output) - 1 };
        logs[3] = (struct db_log){ "script", script, sizeof(script) - 1 };
        c = (struct db_cell){
                .run_id = run_id, .cell_key = key, .kernel_id = kid, .workload = ftp ? "ftp" : "dd",
                .params_json = ftp ? "{\"workload\":\"ftp:size=32M\",\"mem_mb\":160,\"cpus\":2}"
                                   : "{\"workload\":\"dd:size=32M,bs=1M\",\"mem_mb\":160,\"cpus\":2}",
                .iteration = idx / 4, .attempt = 1, .state = failed ? "hang" : "ok",
                .detail = failed ? (hostile ? "no record for 60 s: " SITEFIXTURE_HOSTILE : "no record for 60 s") : NULL,
                .accel = "tcg", .started_at = 1764575000.0 + idx * 20, .boot_s = 4.1 + jitter / 10,
                .workload_s = 25, .total_s = 31, .exit_code = failed ? -1 : 0,
                .n_metrics = nm, .metrics = m, .n_vmstat = ROWS, .vmstat = rows, .n_points = np, .points = pts,
                .n_marks = n_marks, .marks = marks, .n_logs = 4, .logs = logs,
        };
        r = db_cell_insert(db, &c, NULL, err);
        g_string_free(data, TRUE);
        g_string_free(console, TRUE);
        return r;
}

int sitefixture_fill(struct db *db, int n_runs, int cells_per_run, int hostile, struct kb_error *err) {
        struct db_kernel ka = { KID_A, "6.1.0-47-amd64", "6.1.0-47-amd64", "a.deb", 1764570000 };
        struct db_kernel kb = { KID_B, "6.1.0-57-amd64", "6.1.0-57-amd64", "b.deb", 1764570001 };
        struct db_kernel kh = { KID_H, SITEFIXTURE_HOSTILE, "6.1", "h.deb", 1764570002 };
        unsigned seed = 42;
        int r;

        r = db_kernel_upsert(db, &ka, err);
        if (r >= 0)
                r = db_kernel_upsert(db, &kb, err);
        if (r >= 0 && hostile)
                r = db_kernel_upsert(db, &kh, err);
        for (int i = 0; r >= 0 && i < n_runs; i++) {
                struct db_run run = {
                        .tag = hostile ? "\"><script>alert(1)</script>" : "nightly",
                        .settings_json = "{\"kernels\":[{\"name\":\"6.1.0-47-amd64\"},{\"name\":\"6.1.0-57-amd64\"}],"
                                         "\"workloads\":[\"dd:size=32M\",\"ftp:size=32M\"],\"repeats\":2,"
                                         "\"mem_mb\":160,\"note\":\"<b>bold?</b>\",\"accel\":\"tcg\",\"disk_mbps\":200,"
                                         "\"accel_why\":\"tcg: KVM probe guest failed to start (" SITEFIXTURE_ACCEL_ERROR
                                         ")\",\"warm\":false,\"cold\":false,\"how_keys\":[\"repeats\","
                                         "\"kernels\",\"workloads\",\"accel_why\",\"warm\",\"cold\",\"how_keys\"]}",
                        .host = "builder", .host_info_json = "{\"cores\":2,\"cpu\":\"AMD EPYC\","
                                                             "\"kernel\":\"6.18.44\",\"machine\":\"x86_64\","
                                                             "\"mem_kb\":24683664}",
                        .qemu_version = "7.2.22", .libvirt_version = "9.0.0",
                        .kbench_version = "0.1.0", .started_at = 1764575000.0 + 3600 * i,
                };
                const char *kids[3] = { KID_A, KID_B, KID_H };
                int nk = hostile ? 3 : 2;

                r = db_run_create(db, &run, err);
                for (int c = 0; r >= 0 && c < cells_per_run; c++)
                        r = add_cell(db, run.id, c, kids[c % nk], (c / nk) % 2, c == cells_per_run - 1, hostile,
                                     &seed, err);
                if (r >= 0)
                        r = db_run_finish(db, run.id, "complete", err);
        }
        return r;
}

int sitefixture_nights(struct db *db, const char *subject, struct kb_error *err) {
        static const char slow[] = "UPDATE metrics SET value = value / 2 WHERE name = 'dd.write_MBps' AND cell_id IN "
                                   "(SELECT id FROM cells WHERE run_id = 2 AND kernel_id = '" KID_B "')";
        int rc = sqlite3_exec(db_handle(db), slow, NULL, NULL, NULL);
        int r = rc == SQLITE_OK ? 0 : db_error(db, rc, err, "slowing run 2");

        for (int night = 1; r >= 0 && night <= 3; night++) {
                g_autofree char *b = g_strdup_printf("run:%d:6.1.0-57-amd64", night);
                struct db_night_compare c = { subject, "run:1:6.1.0-47-amd64", b };
                struct db_night n = { .started_at = 1764600000.0 + 86400 * night, .baseline = "6.1.0-47-amd64",
                                      .alpha = 0.05, .noise = 0.02 };

                r = db_night_add(db, &n, &c, 1, err);
        }
        return r;
}

int sitefixture_bisection(struct db *db, const char *name, struct kb_error *err) {
        struct db_bisection b = { .workload = "dd", .metric = "dd.write_MBps", .source = "kernels",
                                  .good = "6.1.0-47-amd64", .bad = name, .settings_json = "{\"mem_mb\":160}",
                                  .started_at = 1764700000.0 };
        const struct db_bisect_step steps[] = {
                { 0, 0, "ends", "6.1.0-47-amd64", KID_A, "[1]", 2, "different", NULL, "bad", 104, 52, 52, NULL },
                { 0, 1, "probe", name, KID_B, "[2]", 2, "different", "same", "bad", 104, 52, 52, name },
                { 0, 2, "confirm", name, KID_B, "[3]", 2, "different", NULL, "bad", 104, 53, NAN, NULL },
        };
        int r = db_bisection_create(db, &b, err);

        for (size_t i = 0; r >= 0 && i < sizeof(steps) / sizeof(steps[0]); i++) {
                struct db_bisect_step st = steps[i];

                st.bisection_id = b.id;
                r = db_bisect_step_add(db, &st, err);
        }
        if (r >= 0)
                r = db_bisection_finish(db, b.id, "done", "first-bad", name,
                                        "{\"confirmed\":true,\"change\":-0.5}", err);
        return r;
}
