/* main.c: the kbench command. Global options are taken out of argv wherever
 * they stand, then the verb table dispatches; each verb parses the rest
 * through cli_parse, which holds the rules every verb's options share. */
#include <glib.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/utf8.h"
#include "common/util.h"
#include "cli/cli.h"
#include "run/hosts.h"

/* needs: what cli_setup opens for the verb (cli.h). Which verbs lock is
 * this column; docs/architecture.md says why. kernel's commands declare
 * their own (cli_kernel.c); doctor looks at each part itself
 * (cli_setup_only), a missing store being one of its findings; bisect
 * creates the store only when it builds (--git). */
static const struct {
        const char *name;
        int (*fn)(int argc, char **argv, struct cli_ctx *c);
        unsigned needs;
        const char *help;
} verbs[] = {
        { "kernel", cli_kernel, 0, "manage the kernel store: add, build (from source), list, remove" },
        { "run", cli_run, CLI_STORE | CLI_LOCK | CLI_KSTORE | CLI_DB_CREATE | CLI_SIGNALS | CLI_HOSTS,
          "boot kernels under QEMU and run workloads" },
        { "show", cli_show, CLI_DB, "list runs, or one run's cells and metrics" },
        { "compare", cli_compare, CLI_DB, "is kernel B better or worse than A? (statistics, verdicts)" },
        { "workloads", cli_workloads, 0, "list the workloads, their guest packages and metrics" },
        { "metrics", cli_metrics, 0, "list the metrics: which are judged, by what rule, how finely, and why not" },
        { "vmstat", cli_vmstat, 0, "analyse vmstat output: columns, summary, writeout stalls" },
        { "publish", cli_publish, CLI_DB, "write a static HTML site of the results: tables and charts" },
        { "bisect", cli_bisect,
          CLI_STORE | CLI_CREATE | CLI_LOCK | CLI_KSTORE | CLI_DB_CREATE | CLI_SIGNALS | CLI_HOSTS,
          "find the kernel or commit that changed a metric (builds, sequential rule)" },
        { "nightly", cli_nightly,
          CLI_STORE | CLI_CREATE | CLI_LOCK | CLI_KSTORE | CLI_DB_CREATE | CLI_SIGNALS | CLI_HOSTS,
          "one unattended night: fetch new kernels, measure, detect, report, publish" },
        { "doctor", cli_doctor, 0, "check QEMU, libvirt, the accelerator and the store" },
};

/* One error line on stderr. Messages quote the store (kernel names, tags,
 * settings) and the guest: utf8_mask makes them one line that cannot drive
 * the terminal, and a message of more than a kb_error's bytes (a pasted
 * file as a value) keeps its head and its reason (error_fit). */
static int errors_said;     /* error lines printed: cli_stdout_done adds none to one */

static void put_error(const char *msg) {
        char fitted[sizeof(((struct kb_error *)0)->msg)];
        _cleanup_free_ char *masked = NULL;

        error_fit(fitted, sizeof(fitted), msg, strlen(msg));
        masked = utf8_mask(fitted);
        fprintf(stderr, "kbench: %s\n", masked);
        errors_said++;
}

int cli_stdout_done(const char *verb, int code) {
        int flushed = fflush(stdout) == 0, e = errno;

        if (flushed && !ferror(stdout))
                return code;
        /* A write that failed before this flush (the buffer filled) left
         * the stream's error flag, but not its reason. */
        if (!errors_said)
                cli_errorf("%s: cannot write the output%s%s", verb, flushed ? " (a write to stdout failed)" : ": ",
                           flushed ? "" : g_strerror(e));
        return 1;
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
        fprintf(f, "Usage: kbench [--store DIR] [--db FILE] [--connect [NAME=]URI]... VERB [OPTIONS]\n\n"
                   "kbench boots kernels under QEMU (through libvirt), runs I/O and VM\n"
                   "workloads in them while vmstat streams over a serial port, and stores\n"
                   "every sample in SQLite.\n\nVerbs:\n");
        for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++)
                fprintf(f, "  %-8s %s\n", verbs[i].name, verbs[i].help);
        fprintf(f, "\nGlobal options:\n"
                   "  --store DIR     kernel store and results (default $KBENCH_HOME, as root /var/lib/kbench,\n"
                   "                  else $XDG_DATA_HOME/kbench)\n"
                   "  --db FILE       results database (default <store>/results.db)\n"
                   "  --connect [NAME=]URI\n"
                   "                  libvirt URI (default qemu:///embed?root=<store>/libvirt); given more\n"
                   "                  than once, kbench run spreads its cells over those hosts\n"
                   "\n'kbench help VERB' (or 'kbench VERB --help') describes a verb.\n");
}

static int find_verb(const char *name) {
        for (size_t i = 0; i < G_N_ELEMENTS(verbs); i++)
                if (strcmp(name, verbs[i].name) == 0)
                        return (int)i;
        return -1;
}

/* `kbench help VERB [WORD...]`: the verb's own --help (kernel's commands
 * take theirs: help kernel add). Returns the exit code. */
static int help_verb(const struct store_ctx *g, int argc, char **argv) {
        g_autofree char **args = g_new0(char *, (size_t)argc + 2);
        struct cli_ctx c = { 0 };
        int v = find_verb(argv[0]), r;

        if (v < 0)
                return cli_errorf("help: unknown verb " CLI_Q " (kbench --help lists them)", CLI_QARG(argv[0])) + 1;
        if (argc > 2)
                return cli_errorf("help: " CLI_Q " takes at most one word after it", CLI_QARG(argv[0])) + 1;
        memcpy(args, argv, sizeof(char *) * (size_t)argc);
        args[argc] = (char *)"--help";
        cli_ctx_init(&c, g, verbs[v].name, verbs[v].needs);
        r = verbs[v].fn(argc + 1, args, &c);
        cli_ctx_clear(&c);
        return r;
}

/* Take the first global option opt ("--store", whose value is a what) out
 * of argv, wherever it stands before "--", as "--opt VALUE" or
 * "--opt=VALUE". OUT: *ret, the value (g_free) or NULL when absent.
 * Returns 0, or 2 after one line: no value, or an empty one (which would
 * be the working directory, or the system's libvirt). */
static int take_first(int *argc, char **argv, const char *opt, const char *what, char **ret) {
        size_t ol = strlen(opt);

        *ret = NULL;
        for (int i = 1; i < *argc; i++) {
                const char *v = NULL;
                int drop = 0;

                if (strcmp(argv[i], "--") == 0)
                        break;
                if (strcmp(argv[i], opt) == 0) {
                        if (i + 1 >= *argc)
                                return cli_errorf("%s needs a %s (try 'kbench --help')", opt, what) + 1;
                        v = argv[i + 1];
                        drop = 2;
                } else if (strncmp(argv[i], opt, ol) == 0 && argv[i][ol] == '=') {
                        v = argv[i] + ol + 1;
                        drop = 1;
                }
                if (!drop)
                        continue;
                if (!*v)
                        return cli_errorf("%s needs a %s, not an empty string", opt, what) + 1;
                *ret = g_strdup(v);
                memmove(argv + i, argv + i + drop, sizeof(char *) * (size_t)(*argc - i - drop + 1));
                *argc -= drop;
                return 0;
        }
        return 0;
}

/* take_first for an option given at most once: twice is a usage error. */
static int take_option(int *argc, char **argv, const char *opt, const char *what, char **ret) {
        g_autofree char *val = NULL, *again = NULL;
        int r = take_first(argc, argv, opt, what, &val);

        if (r == 0 && val)
                r = take_first(argc, argv, opt, what, &again);
        if (r)
                return r;
        if (again)
                return cli_errorf("%s given twice ('%.64s' and '%.64s'): give it once", opt, val, again) + 1;
        *ret = TAKE_PTR(val);
        return 0;
}

/* --connect, which may be given more than once (a run over several hosts):
 * every value in order into *ret (NULL-terminated, NULL when none). */
static int take_connects(int *argc, char **argv, char ***ret) {
        g_autoptr(GPtrArray) vals = g_ptr_array_new_with_free_func(g_free);
        char *v = NULL;
        int r;

        while ((r = take_first(argc, argv, "--connect", "URI", &v)) == 0 && v)
                g_ptr_array_add(vals, TAKE_PTR(v));
        if (r)
                return r;
        if (vals->len) {
                g_ptr_array_add(vals, NULL);
                *ret = (char **)g_ptr_array_free(g_steal_pointer(&vals), FALSE);
        }
        return 0;
}

/* The entry of entries (NULL-terminated arrays in a NULL-terminated list)
 * named long_name (when short_name is 0) or short_name, or NULL. */
static const GOptionEntry *find_entry(const GOptionEntry *const *entries, const char *long_name, size_t len,
                                      char short_name) {
        for (size_t g = 0; entries[g]; g++)
                for (const GOptionEntry *e = entries[g]; e->long_name; e++)
                        if (short_name ? e->short_name == short_name
                                       : strlen(e->long_name) == len && strncmp(e->long_name, long_name, len) == 0)
                                return e;
        return NULL;
}

static int takes_value(const GOptionEntry *e) {
        return e->arg != G_OPTION_ARG_NONE &&
               !(e->arg == G_OPTION_ARG_CALLBACK && (e->flags & G_OPTION_FLAG_NO_ARG));
}

static int repeatable(const GOptionEntry *e) {
        return e->arg == G_OPTION_ARG_STRING_ARRAY || e->arg == G_OPTION_ARG_FILENAME_ARRAY ||
               e->arg == G_OPTION_ARG_CALLBACK;
}

/* The rules of one option's value (see cli_parse); seen counts each
 * entry's uses. Returns 0, or 2 after one line. */
static int check_value(const char *verb, const GOptionEntry *e, const char *value, GHashTable *seen) {
        guint n = GPOINTER_TO_UINT(g_hash_table_lookup(seen, e)) + 1;
        int text = e->arg != G_OPTION_ARG_FILENAME && e->arg != G_OPTION_ARG_FILENAME_ARRAY;

        g_hash_table_insert(seen, (gpointer)e, GUINT_TO_POINTER(n));
        if (n > 1 && !repeatable(e))
                return cli_errorf("%s: --%s given twice: it takes one value", verb, e->long_name) + 1;
        if (value && !*value)
                return cli_errorf("%s: --%s needs a value, not an empty string", verb, e->long_name) + 1;
        /* GOption would convert a text value from the locale's charset and
         * fail without naming the option. */
        if (value && text && !g_utf8_validate(value, -1, NULL))
                return cli_errorf("%s: --%s: the value is not UTF-8 text", verb, e->long_name) + 1;
        return 0;
}

/* What a help option asks for. */
enum help { HELP_NONE, HELP_MAIN, HELP_ALL };

static enum help help_option(const char *a) {
        if (strcmp(a, "-h") == 0 || strcmp(a, "-?") == 0 || strcmp(a, "--help") == 0)
                return HELP_MAIN;
        /* --help-all, and a group's --help-GROUP (bisect's --help-run),
         * whose group GOption does not hand out: the whole help. */
        return strncmp(a, "--help-", 7) == 0 && a[7] ? HELP_ALL : HELP_NONE;
}

/* Walk argv as GOption will, checking each value given to a known option.
 * OUT: *ret_help, the first help option given where an option stands (a
 * value "-h" is a value). */
static int check_argv(const char *verb, const GOptionEntry *const *entries, int argc, char **argv,
                      enum help *ret_help) {
        g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);

        *ret_help = HELP_NONE;
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];
                const GOptionEntry *e;
                int r = 0;

                if (strcmp(a, "--") == 0)
                        break;
                if (a[0] != '-' || a[1] == '\0')
                        continue;
                if (!*ret_help)
                        *ret_help = help_option(a);
                if (a[1] == '-') {
                        const char *eq = strchr(a + 2, '=');

                        e = find_entry(entries, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2), 0);
                        if (!e)
                                continue;        /* GOption says what it is */
                        if (!takes_value(e))
                                r = check_value(verb, e, NULL, seen);
                        else if (eq || i + 1 < argc)
                                r = check_value(verb, e, eq ? eq + 1 : argv[++i], seen);
                        if (r)
                                return r;
                        continue;
                }
                for (const char *c = a + 1; *c; c++) {
                        e = find_entry(entries, NULL, 0, *c);
                        if (!e)
                                break;        /* GOption says what it is */
                        if (!takes_value(e)) {
                                r = check_value(verb, e, NULL, seen);
                                if (r)
                                        return r;
                                continue;
                        }
                        if (c[1])
                                r = check_value(verb, e, c + 1, seen);
                        else if (i + 1 < argc)
                                r = check_value(verb, e, argv[++i], seen);
                        if (r)
                                return r;
                        break;        /* the rest of the word, or the next one, was the value */
                }
        }
        return 0;
}

/* Columns of the first len bytes of UTF-8 text s. */
static size_t columns(const char *s, size_t len) {
        return (size_t)g_utf8_strlen(s, (gssize)len);
}

/* Where a help line's text begins, for its continuation lines: a line of
 * a name and its description ("  -k, --kernel=NAME    Kernel ...",
 * "      size       bytes written ...") continues under the description,
 * which follows the first gap of two blanks; any other line under its own
 * first character. */
static size_t help_indent(const char *line) {
        size_t lead = strspn(line, " ");
        const char *gap = strstr(line + lead, "  ");

        if (!gap)
                return lead;
        return columns(line, (size_t)(gap - line) + strspn(gap, " "));
}

void cli_wrap(GString *out, const char *line, size_t width) {
        size_t indent = help_indent(line), lead = 0;        /* lead: columns already on the line */
        const char *p = line;

        if (indent * 2 > width)
                indent = 8;        /* a description that starts far right continues further left */
        while (lead + columns(p, strlen(p)) > width) {
                const char *cut = NULL, *q = p;
                size_t col = lead;

                /* The last blank that leaves at most width columns, past the
                 * indentation (the option's name is never cut). */
                for (; *q && col <= width; q = g_utf8_next_char(q), col++)
                        if (*q == ' ' && col > indent && q > p && q[-1] != ' ')
                                cut = q;
                if (!cut)
                        break;        /* one word wider than the line: let it be */
                g_string_append_len(out, p, cut - p);
                g_string_append_c(out, '\n');
                for (size_t i = 0; i < indent; i++)
                        g_string_append_c(out, ' ');
                lead = indent;
                p = cut + strspn(cut, " ");
        }
        g_string_append(out, p);
}

/* GOption's help of ctx on stdout, as kbench's: "Usage: kbench VERB ..."
 * on one line (the program name is the verb's, cli_parse), every line
 * within CLI_HELP_COLUMNS. */
static void print_help(GOptionContext *ctx, enum help help) {
        g_autofree char *text = g_option_context_get_help(ctx, help == HELP_MAIN, NULL);
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_autoptr(GString) out = g_string_new(NULL);

        for (size_t i = 0; lines[i]; i++) {
                g_autofree char *joined = NULL;
                const char *line = lines[i];

                if (strcmp(line, "Usage:") == 0 && lines[i + 1])
                        line = joined = g_strconcat("Usage: ", g_strchug(lines[++i]), NULL);
                cli_wrap(out, line, CLI_HELP_COLUMNS);
                if (lines[i + 1])
                        g_string_append_c(out, '\n');
        }
        fputs(out->str, stdout);
}

/* For the shell completion (cli/kbench.bash): every option of entries,
 * one a line, "--name=" (and "-k=") when it takes a value, else "--name"
 * ("-k"), then GOption's own help options (-h, --help, --help-all, a
 * group's --help-GROUP, from its help's "Help Options"): the option table
 * itself, so the completion keeps no list of its own. */
static void print_options(GOptionContext *ctx, const GOptionEntry *const *entries) {
        g_autofree char *help = g_option_context_get_help(ctx, FALSE, NULL);
        g_auto(GStrv) lines = g_strsplit(help, "\n", -1);
        int in_help = 0;

        for (size_t g = 0; entries[g]; g++)
                for (const GOptionEntry *e = entries[g]; e->long_name; e++) {
                        const char *eq = takes_value(e) ? "=" : "";

                        if (e->flags & G_OPTION_FLAG_HIDDEN)
                                continue;
                        printf("--%s%s\n", e->long_name, eq);
                        if (e->short_name)
                                printf("-%c%s\n", e->short_name, eq);
                }
        for (size_t i = 0; lines[i]; i++) {
                const char *l = lines[i];

                if (!g_str_has_prefix(l, "  "))
                        in_help = strcmp(l, "Help Options:") == 0;
                else if (in_help && g_str_has_prefix(l, "  -h, "))
                        fputs("-h\n", stdout);
                if (in_help && (l = strstr(l, "--help")))
                        printf("%.*s\n", (int)strcspn(l, " ="), l);
        }
}

int cli_parse(GOptionContext *ctx, const GOptionEntry *const *entries, const char *verb, int *argc, char ***argv) {
        g_autoptr(GError) gerr = NULL;
        g_autofree char *prg = g_strconcat("kbench ", verb, NULL);
        enum help help;
        int r;

        /* One verb runs a process: "Usage: kbench run". */
        if (!g_get_prgname())
                g_set_prgname(prg);
        if (*argc == 2 && strcmp((*argv)[1], CLI_COMPLETE_OPTIONS) == 0) {
                print_options(ctx, entries);
                exit(cli_stdout_done(verb, 0));
        }
        r = check_argv(verb, entries, *argc, *argv, &help);
        if (r)
                return r;
        /* Help is printed and the process ends, as GOption would do. */
        if (help) {
                print_help(ctx, help);
                exit(cli_stdout_done(verb, 0));
        }
        if (!g_option_context_parse(ctx, argc, argv, &gerr))
                return cli_errorf("%s: %s (try --help)", verb, gerr->message) + 1;
        return 0;
}

int cli_options_of(const struct cli_usage *u, const GOptionEntry *const *tables, const struct cli_group *group,
                   int *argc, char ***argv) {
        g_autoptr(GOptionContext) ctx = g_option_context_new(u->params);
        g_autoptr(GPtrArray) all = g_ptr_array_new();

        if (u->summary)
                g_option_context_set_summary(ctx, u->summary);
        if (u->description)
                g_option_context_set_description(ctx, u->description);
        for (size_t i = 0; tables[i]; i++) {
                g_option_context_add_main_entries(ctx, tables[i], NULL);
                g_ptr_array_add(all, (void *)tables[i]);
        }
        if (group) {
                GOptionGroup *g = g_option_group_new(group->name, group->title, group->help, NULL, NULL);

                g_option_group_add_entries(g, group->entries);
                g_option_context_add_group(ctx, g);
                g_ptr_array_add(all, (void *)group->entries);
        }
        g_ptr_array_add(all, NULL);
        return cli_parse(ctx, (const GOptionEntry *const *)all->pdata, u->verb, argc, argv);
}

const char *cli_flag_name(const char *option) {
        g_autofree char *flag = g_strconcat("--", option, NULL);

        return g_intern_string(flag);
}

int cli_options(const struct cli_usage *u, const GOptionEntry *entries, int *argc, char ***argv) {
        return cli_options_of(u, (const GOptionEntry *const[]){ entries, NULL }, NULL, argc, argv);
}

/* The global options (--store, --db, --connect), taken out of argv, and
 * what they default to. Returns 0, or -1 once the error is said. */
static int global_options(int *argc, char **argv, struct store_ctx *g) {
        const char *env;
        int first_named = 0;

        if (take_option(argc, argv, "--store", "DIR", &g->home) || take_option(argc, argv, "--db", "FILE", &g->db_path) ||
            take_connects(argc, argv, &g->hosts))
                return -1;
        /* A verb that talks to one host (doctor checks each) takes the
         * first; a run spreads its cells over all of them. One host given
         * without a name is the run's one host, as nightly's connect and
         * every run before several hosts: its cells name no host, so they
         * pair with those runs'. */
        for (size_t i = 0; g->hosts && g->hosts[i]; i++) {
                g_autofree char *name = NULL, *uri = NULL;
                struct kb_error err = { { 0 } };

                if (run_host_spec_parse(g->hosts[i], &name, &uri, &err) < 0) {
                        cli_errorf("--connect %s", err.msg);
                        return -1;
                }
                if (i == 0) {
                        g->connect = g_steal_pointer(&uri);
                        first_named = name != NULL;
                }
        }
        if (g->hosts && !g->hosts[1] && !first_named)
                g_clear_pointer(&g->hosts, g_strfreev);

        if (!g->home) {
                /* As root, QEMU runs as libvirt-qemu (host/vm_qemu.c), which
                 * cannot enter /root (mode 0700): root's store is a system one. */
                env = getenv("KBENCH_HOME");
                g->home = env && *env ? g_strdup(env)
                         : geteuid() == 0 ? g_strdup("/var/lib/kbench")
                                          : g_build_filename(g_get_user_data_dir(), "kbench", NULL);
        }
        if (!g_path_is_absolute(g->home)) {
                char *cwd = g_get_current_dir(), *abs = g_build_filename(cwd, g->home, NULL);
                g_free(cwd);
                g_free(g->home);
                g->home = abs;
        }
        if (!g->db_path)
                g->db_path = g_build_filename(g->home, "results.db", NULL);
        if (!g->connect)
                g->connect = g_strdup_printf("qemu:///embed?root=%s/libvirt", g->home);
        return 0;
}

/* The verb argv[1] names, or help, the version, completion. Returns the
 * exit code. */
static int dispatch(int argc, char **argv, struct store_ctx *g, struct cli_ctx *c) {
        int verb;

        /* A bare kbench is a usage error like any other: one line. */
        if (argc < 2)
                return cli_errorf("no verb given; try 'kbench --help'") + 1;
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || (strcmp(argv[1], "help") == 0 && argc == 2)) {
                usage(stdout);
                return 0;
        }
        /* "kbench help VERB [SUBCOMMAND]" is "kbench VERB [SUBCOMMAND] --help". */
        if (strcmp(argv[1], "help") == 0)
                return help_verb(g, argc - 2, argv + 2);
        /* Hidden, for cli/kbench.bash: the global options, and lists of
         * what the store holds (cli_complete.c). */
        if (strcmp(argv[1], CLI_COMPLETE_OPTIONS) == 0) {
                fputs("--store=\n--db=\n--connect=\n--help\n--version\n", stdout);
                return 0;
        }
        if (strcmp(argv[1], "--complete") == 0) {
                cli_ctx_init(c, g, "complete", CLI_DB);
                return cli_complete(argc - 1, argv + 1, c);
        }
        if (strcmp(argv[1], "--version") == 0) {
                /* A question of its own: what stands beside it would be
                 * ignored, and a script would take the 0 for its answer. */
                if (argc > 2)
                        return cli_errorf("--version takes nothing else (" CLI_Q " given; try 'kbench --help')",
                                          CLI_QARG(argv[2])) + 1;
                printf("kbench %s\n", KBENCH_VERSION);
                return 0;
        }
        verb = find_verb(argv[1]);
        if (verb >= 0) {
                cli_ctx_init(c, g, verbs[verb].name, verbs[verb].needs);
                return verbs[verb].fn(argc - 1, argv + 1, c);
        }
        return cli_errorf("unknown verb " CLI_Q " (try 'kbench --help')", CLI_QARG(argv[1])) + 1;
}

int main(int argc, char **argv) {
        struct store_ctx g = { 0 };
        struct cli_ctx c = { 0 };
        int r = 2;

        /* Option values and names from the store are UTF-8, whatever the
         * environment's locale: GOption then takes "--tag café" as text.
         * Only the character type: numbers keep the C locale's '.'. */
        if (!setlocale(LC_CTYPE, "C.UTF-8"))
                setlocale(LC_CTYPE, "");
        if (global_options(&argc, argv, &g) == 0)
                r = dispatch(argc, argv, &g, &c);
        /* Every verb's output, --help's and --version's too: a full disk
         * behind >FILE is an error, not a success. */
        r = cli_stdout_done(c.verb ? c.verb : "kbench", r);
        cli_ctx_clear(&c);
        g_free(g.home);
        g_free(g.db_path);
        g_free(g.connect);
        g_strfreev(g.hosts);
        return r;
}
