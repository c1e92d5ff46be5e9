/* main.c: the kbench command. Global options are taken out of argv wherever
 * they stand, then the verb table dispatches; each verb parses the rest. */
#include <glib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/utf8.h"

static const struct {
        const char *name;
        int (*fn)(int argc, char **argv, const struct store_ctx *g);
        const char *help;
} verbs[] = {
        { "kernel", cli_kernel, "manage the kernel store: add, build (from source), list, remove" },
        { "run", cli_run, "boot kernels under QEMU and run workloads" },
        { "show", cli_show, "list runs, or one run's cells and metrics" },
        { "compare", cli_compare, "is kernel B better or worse than A? (statistics, verdicts)" },
        { "vmstat", cli_vmstat, "analyse vmstat output: columns, summary, writeout stalls" },
        { "publish", cli_publish, "write a static HTML site of the results: tables and charts" },
        { "bisect", cli_bisect, "find the kernel or commit that changed a metric (builds, sequential rule)" },
        { "nightly", cli_nightly, "one unattended night: fetch new kernels, measure, detect, report, publish" },
        { "doctor", cli_doctor, "check QEMU, libvirt, the accelerator and the store" },
};

/* One error line on stderr. Messages quote the store (kernel names, tags,
 * settings) and the guest: invalid UTF-8 becomes U+FFFD and every control
 * character (C0 with the newline, DEL, C1, the bidirectional ones) a '?', so no message can drive
 * the terminal or forge a second line. */
static void put_error(const char *msg) {
        g_autofree char *valid = g_utf8_make_valid(msg, -1);
        g_autoptr(GString) line = g_string_new("kbench: ");

        for (const char *p = valid; *p; p = g_utf8_next_char(p)) {
                gunichar c = g_utf8_get_char(p);

                if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || utf8_is_bidi_control(c))
                        g_string_append_c(line, '?');
                else
                        g_string_append_unichar(line, c);
        }
        g_string_append_c(line, '\n');
        fputs(line->str, stderr);
}

int cli_error(const struct kb_error *err) {
        put_error(err->msg[0] ? err->msg : "unknown error");
        return 1;
}

int cli_errorf(const char *fmt, ...) {
        g_autofree char *msg = NULL;
        va_list ap;

        va_start(ap, fmt);
        msg = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        put_error(msg);
        return 1;
}

static void usage(FILE *f) {
        fprintf(f, "Usage: kbench [--store DIR] [--db FILE] [--connect URI] VERB [OPTIONS]\n\n"
                   "kbench boots kernels under QEMU (through libvirt), runs I/O and VM\n"
                   "workloads in them while vmstat streams over a serial port, and stores\n"
                   "every sample in SQLite.\n\nVerbs:\n");
        for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++)
                fprintf(f, "  %-8s %s\n", verbs[i].name, verbs[i].help);
        fprintf(f, "\nGlobal options:\n"
                   "  --store DIR     kernel store and results (default $KBENCH_HOME, as root /var/lib/kbench,\n"
                   "                  else $XDG_DATA_HOME/kbench)\n"
                   "  --db FILE       results database (default <store>/results.db)\n"
                   "  --connect URI   libvirt URI (default qemu:///embed?root=<store>/libvirt)\n"
                   "\n'kbench VERB --help' describes a verb.\n");
}

/* Remove "--opt VALUE" / "--opt=VALUE" from argv; returns the value (owned) or NULL. */
static char *take_option(int *argc, char **argv, const char *opt) {
        size_t ol = strlen(opt);
        char *val = NULL;

        for (int i = 1; i < *argc; i++) {
                int drop = 0;

                if (strcmp(argv[i], "--") == 0)
                        break;
                if (strcmp(argv[i], opt) == 0 && i + 1 < *argc) {
                        g_free(val);
                        val = g_strdup(argv[i + 1]);
                        drop = 2;
                } else if (strncmp(argv[i], opt, ol) == 0 && argv[i][ol] == '=') {
                        g_free(val);
                        val = g_strdup(argv[i] + ol + 1);
                        drop = 1;
                }
                if (drop) {
                        memmove(argv + i, argv + i + drop, sizeof(char *) * (size_t)(*argc - i - drop + 1));
                        *argc -= drop;
                        i--;
                }
        }
        return val;
}

int main(int argc, char **argv) {
        struct store_ctx g = { 0 };
        const char *env;
        int r = 2;

        g.home = take_option(&argc, argv, "--store");
        g.db_path = take_option(&argc, argv, "--db");
        g.connect = take_option(&argc, argv, "--connect");

        if (!g.home) {
                /* As root, QEMU runs as libvirt-qemu (host/vm.c), which
                 * cannot enter /root (mode 0700): root's store is a system one. */
                env = getenv("KBENCH_HOME");
                g.home = env && *env ? g_strdup(env)
                         : geteuid() == 0 ? g_strdup("/var/lib/kbench")
                                          : g_build_filename(g_get_user_data_dir(), "kbench", NULL);
        }
        if (!g_path_is_absolute(g.home)) {
                char *cwd = g_get_current_dir(), *abs = g_build_filename(cwd, g.home, NULL);
                g_free(cwd);
                g_free(g.home);
                g.home = abs;
        }
        if (!g.db_path)
                g.db_path = g_build_filename(g.home, "results.db", NULL);
        if (!g.connect)
                g.connect = g_strdup_printf("qemu:///embed?root=%s/libvirt", g.home);

        if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
            strcmp(argv[1], "help") == 0) {
                usage(argc < 2 ? stderr : stdout);
                r = argc < 2 ? 2 : 0;
                goto out;
        }
        if (strcmp(argv[1], "--version") == 0) {
                printf("kbench %s\n", KBENCH_VERSION);
                r = 0;
                goto out;
        }
        for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++)
                if (strcmp(argv[1], verbs[i].name) == 0) {
                        r = verbs[i].fn(argc - 1, argv + 1, &g);
                        goto out;
                }
        cli_errorf("unknown verb '%s' (try 'kbench --help')", argv[1]);
out:
        g_free(g.home);
        g_free(g.db_path);
        g_free(g.connect);
        return r;
}
