/* cli_vmstat.c: `kbench vmstat FILE|- [--json] [--interval S]
 * [--bo-threshold N] [--skip-first]`: analyse vmstat text a user already has
 * (a capture, a mailing-list post, a serial log) with the dialect parser
 * and the stall analysis kbench runs on its own captures (which it reads
 * by column index instead, vmstat_agent_feed(); on the agent's records the
 * two give the same table, workloads/test-vmstat.c). */
#include <errno.h>
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/parse.h"
#include "common/util.h"
#include "common/proto.h"
#include "cli/cli.h"
#include "report/vmstatout.h"
#include "workloads/vmstat.h"

struct vmstat_opts {
        gboolean json;
        gboolean skip_first;
        char *interval;            /* seconds, text as given */
        char *threshold;           /* blocks/s, text as given */
};

static void vmstat_opts_clear(struct vmstat_opts *o) {
        g_free(o->interval);
        g_free(o->threshold);
}

/* One LF-terminated line (or the unterminated last one) of FILE: a kbench
 * ttyS1 data log (`kbench show RUN --cell KEY --log data`) holds framed
 * records: those of the vmstat types are unwrapped, with the guest's time and
 * the since-boot flag they carry, and other records are passed over. Every
 * other line goes to the parser as text. Returns >= 0 or -ENOMEM. */
static int cli_vmstat_line(struct vmstat_parser *p, const char *line, size_t n) {
        static struct proto_record rec;

        if (n > 4 && memcmp(line, "@kb ", 4) == 0 && proto_parse(line, n, &rec) == PROTO_OK) {
                if (!g_str_has_prefix(rec.type, "vmstat"))
                        return 0;
                return vmstat_parser_feed(p, rec.payload, rec.payload_len,
                                          strcmp(rec.type, "vmstat-header") == 0 ? NAN : (double)rec.t_ms / 1000.0,
                                          strcmp(rec.type, "vmstat-boot") == 0);
        }
        return vmstat_parser_feed_bytes(p, line, n);
}

/* Feed FILE (or stdin for "-") to p line by line through a bounded buffer:
 * a line longer than any framed record cannot be one, so its bytes go
 * straight to the parser (which rejects over-long lines) and memory stays
 * bounded on any input, a 100 MB file without a newline included.
 * Returns 0 or -errno with err. */
static int cli_vmstat_read(const char *path, struct vmstat_parser *p, struct kb_error *err) {
        FILE *f = NULL;
        static char buf[65536], line[PROTO_LINE_MAX + 2];
        size_t n, len = 0;
        int passthrough = 0;      /* the current line outgrew line[]: stream it */
        int r = 0, read_errno;

        /* A pipe comes in as "-": a FIFO, device or socket by name could
         * block or never end, so FILE must be a regular file. */
        if (strcmp(path, "-") == 0) {
                f = stdin;
        } else {
                int fd;

                r = fileio_open_regular(path, &fd, err);
                if (r < 0)
                        return r;
                f = fdopen(fd, "rb");
                if (!f) {
                        close(fd);
                        return error_setf(err, -errno, "%s: %s", path, strerror(errno));
                }
        }
        while (r >= 0 && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
                for (size_t i = 0; r >= 0 && i < n;) {
                        const char *nl = memchr(buf + i, '\n', n - i);
                        size_t seg = nl ? (size_t)(nl - (buf + i)) + 1 : n - i;

                        if (passthrough) {
                                r = vmstat_parser_feed_bytes(p, buf + i, seg);
                        } else if (len + seg <= sizeof(line)) {
                                memcpy(line + len, buf + i, seg);
                                len += seg;
                        } else {
                                r = vmstat_parser_feed_bytes(p, line, len);
                                if (r >= 0)
                                        r = vmstat_parser_feed_bytes(p, buf + i, seg);
                                len = 0;
                                passthrough = 1;
                        }
                        i += seg;
                        if (nl) {
                                if (!passthrough && r >= 0)
                                        r = cli_vmstat_line(p, line, len);
                                len = 0;
                                passthrough = 0;
                        }
                }
        }
        /* The loop's last call was the failing fread: its errno says why
         * (EISDIR for a directory). */
        read_errno = errno;
        if (r >= 0 && len > 0)
                r = cli_vmstat_line(p, line, len);
        if (r < 0)
                error_setf(err, r, "%s: %s", path, strerror(-r));
        else if (ferror(f))
                r = error_setf(err, -(read_errno ? read_errno : EIO), "%s: %s", path,
                               strerror(read_errno ? read_errno : EIO));
        if (f != stdin)
                fclose(f);
        return r < 0 ? r : 0;
}

/* The options' values, checked; 2 (a usage error) when one is refused. */
static int vmstat_values(const struct vmstat_opts *o, double *interval, double *threshold) {
        /* A value is echoed cut at 64 bytes: a pasted file must not become
         * a 100 KB error line. vmstat's delay is whole seconds, at most a
         * day is any capture's; above that a stall length means nothing. */
        if (o->interval) {
                union parse_value v;

                if (parse_number(o->interval, PARSE_REAL, VMSTAT_INTERVAL_MIN, VMSTAT_INTERVAL_MAX, &v) < 0) {
                        cli_errorf("vmstat: --interval " CLI_Q ": expected seconds in %g..%g", CLI_QARG(o->interval),
                                   VMSTAT_INTERVAL_MIN, VMSTAT_INTERVAL_MAX);
                        return 2;
                }
                *interval = v.d;
        }
        /* bo is never negative: a threshold below 0 would find no stall
         * and say nothing of why. */
        if (o->threshold) {
                union parse_value v;

                if (parse_number(o->threshold, PARSE_REAL, 0, VMSTAT_VALUE_MAX, &v) < 0) {
                        cli_errorf("vmstat: --bo-threshold " CLI_Q ": expected blocks/s from 0 to 2^53",
                                   CLI_QARG(o->threshold));
                        return 2;
                }
                *threshold = v.d;
        }
        return 0;
}

static int vmstat_output(const struct vmstat_table *t, int json, double threshold, double interval) {
        if (json) {
                /* Streamed sample by sample: a tree of every sample would
                 * take gigabytes on a large capture. */
                /* -EIO, a failed write, is said by the check of every
                 * verb's output (cli_stdout_done). */
                if (vmstatout_json_dumpf(t, threshold, interval, stdout) == -ENOMEM)
                        return cli_errorf("vmstat: out of memory");
        } else {
                int r = vmstatout_print(t, threshold, interval, stdout);

                if (r < 0)
                        return cli_errorf("vmstat: %s", strerror(-r));
        }
        return 0;
}

int cli_vmstat(int argc, char **argv, struct cli_ctx *c) {
        static const struct cli_usage usage = {
                .verb = "vmstat",
                .params = "FILE|- - analyse vmstat output",
                .summary = "Reads any vmstat output (every procps dialect, kbench captures and ttyS1 data\n"
                           "logs, serial logs with other lines mixed in) and reports the columns, a per-column summary and the\n"
                           "writeout stalls: runs of samples whose bo is at or below the threshold.",
        };
        _cleanup_(vmstat_opts_clear) struct vmstat_opts o = { 0 };
        GOptionEntry entries[] = {
                { "json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print one JSON object", NULL },
                { "interval", 0, 0, G_OPTION_ARG_STRING, &o.interval,
                  "Seconds between samples (default 1)", "S" },
                { "bo-threshold", 0, 0, G_OPTION_ARG_STRING, &o.threshold,
                  "bo at or below this is a writeout stall (default 100 blocks/s)", "N" },
                { "skip-first", 0, 0, G_OPTION_ARG_NONE, &o.skip_first,
                  "Drop each capture's first row (the average since boot)", NULL },
                { NULL, 0, 0, 0, NULL, NULL, NULL },
        };
        struct kb_error err = { { 0 } };
        struct vmstat_parser *p;
        struct vmstat_table *t;
        double interval = VMSTAT_INTERVAL, threshold = VMSTAT_BO_THRESHOLD;
        int r, ret = 0;

        if (cli_options(&usage, entries, &argc, &argv))
                return 2;
        if (argc != 2) {
                cli_errorf("vmstat: expected one FILE (or - for stdin), see kbench vmstat --help");
                return 2;
        }
        if (vmstat_values(&o, &interval, &threshold))
                return 2;

        p = vmstat_parser_new();
        if (!p)
                return cli_errorf("vmstat: out of memory");
        vmstat_parser_set_skip_first(p, o.skip_first);
        r = cli_vmstat_read(argv[1], p, &err);
        if (r < 0) {
                vmstat_parser_free(p);
                return cli_error(&err);
        }
        t = vmstat_parser_finish(p);
        if (!t)
                return cli_errorf("vmstat: out of memory");
        /* Nothing to analyse is a failure: a script piping the wrong file
         * must not read "0 stalls" as a result. */
        if (t->nsamples == 0 && t->skipped == 0) {
                ret = cli_errorf("vmstat: %s: no vmstat rows found (%zu lines rejected)", argv[1], t->rejected);
                vmstat_table_free(t);
                return ret;
        }

        ret = vmstat_output(t, o.json, threshold, interval);
        vmstat_table_free(t);
        return ret;
}
