/* cli/cli_kernel.c: `kbench kernel add|build|list|remove`, the user's view of
 * the kernel store (kernels/kstore). Imports can take tens of seconds, so
 * their steps are reported on stderr; results go to stdout (or --json). */
#include <glib.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/fileio.h"
#include "common/utf8.h"
#include "common/util.h"
#include "cli/cli.h"
#include "host/snapshot.h"
#include "kernels/build.h"
#include "kernels/kstore.h"

/* The command's setup (its row's needs): 0, or the exit code after the
 * error line. OUT: *ret, the kernel store (the context's). */
static int open_store(struct cli_ctx *c, struct kstore **ret) {
        struct kb_error err = { "" };

        if (cli_setup(c, &err) < 0)
                return cli_error(&err);
        *ret = c->s.ks;
        return 0;
}

struct progress_state {
        double t0;
};

/* An import's or a build's progress lines (kernels/ sends only those). */
static int print_progress(void *ctx, const struct kb_event *ev) {
        struct progress_state *p = ctx;
        struct timespec t;
        _cleanup_free_ char *shown = NULL;

        if (ev->kind != KB_EVENT_PROGRESS)
                return 0;
        /* A line quotes the store and the file (a name in names/, a
         * package's file names): shown in the terminal-safe form. */
        shown = utf8_mask(ev->text);
        clock_gettime(CLOCK_MONOTONIC, &t);
        fprintf(stderr, "[%6.1fs] %s\n", (double)t.tv_sec + (double)t.tv_nsec / 1e9 - p->t0, shown);
        return 0;
}

/* Every text of a kernel comes from its kernel.json and the store's
 * names/: a file anyone can write, so each is printed terminal-safe. */
static void print_kernel(const struct kstore_kernel *k) {
        _cleanup_free_ char *name = utf8_mask(k->name), *id = utf8_mask(k->id),
                        *release = utf8_mask(k->release ? k->release : "-"), *image = utf8_mask(k->image_path),
                        *vmlinux = utf8_mask(k->vmlinux_path ? k->vmlinux_path : "- (no PVH note: boots the bzImage)"),
                        *modules = utf8_mask(k->modules_dir ? k->modules_dir : "- (none: drivers must be built in)");

        printf("name:     %s\n", name);
        printf("id:       %s\n", id);
        printf("release:  %s\n", release);
        printf("image:    %s\n", image);
        printf("vmlinux:  %s\n", vmlinux);
        printf("modules:  %s (%d)\n", modules, k->n_modules);
}

static int kernel_add(int argc, char **argv, struct cli_ctx *c) {
        static const struct cli_usage usage = {
                .verb = "kernel add",
                .params = "FILE - import a kernel",
                .summary = "FILE is a Debian linux-image .deb (modules are extracted, depmod is run)\n"
                           "or a bare kernel image (bzImage, or an ELF vmlinux with a PVH note).\n"
                           "Importing the same image again changes nothing (but --name adds a name).\n"
                           "The kernel's sha256 identifies it.",
        };
        g_autofree char *name = NULL;
        gboolean json = FALSE, quiet = FALSE;
        GOptionEntry entries[] = {
                { "name", 0, 0, G_OPTION_ARG_STRING, &name, "Store under NAME (default: the kernel release)", "NAME" },
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the stored kernel as JSON", NULL },
                { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
                  "No progress lines; one line naming the stored kernel (errors still print)", NULL },
                { NULL, 0, 0, 0, NULL, NULL, NULL },
        };
        struct kstore *s = NULL;
        struct kstore_kernel *k = NULL;
        struct kb_error err = { "" };
        struct progress_state ps;
        const struct kb_sink sink = { print_progress, &ps };
        struct timespec t;
        int r, existed = 0;

        if ((r = cli_options(&usage, entries, &argc, &argv)))
                return r;
        if (argc != 2)
                return cli_errorf("kernel add: expected one FILE (try --help)") + 1;
        if (name && !kstore_name_new_valid(name))
                return cli_errorf("kernel add: --name '%.128s' is not a kernel name (" KSTORE_NAME_RULE ")", name) + 1;
        /* The file is looked at before a store is made: a FIFO or a
         * directory given by mistake must not leave a new store behind. */
        {
                _cleanup_close_ int fd = -1;

                if (fileio_open_regular(argv[1], &fd, &err) < 0)
                        return cli_error(&err);
        }
        if ((r = open_store(c, &s)))
                return r;
        clock_gettime(CLOCK_MONOTONIC, &t);
        ps.t0 = (double)t.tv_sec + (double)t.tv_nsec / 1e9;
        if (!quiet)
                kstore_set_events(s, &sink);
        r = kstore_add(s, argv[1], name, &k, &existed, &err);
        kstore_set_events(s, NULL);        /* the sink is this function's */
        if (r < 0)
                return cli_error(&err);
        if (json) {
                json_auto_t *o = kstore_kernel_to_json(k);
                json_object_set_new(o, "existed", json_boolean(existed));
                json_dumpf(o, stdout, JSON_INDENT(2) | KB_JSON_OUT);
                putchar('\n');
        } else {
                _cleanup_free_ char *shown = utf8_mask(k->name), *id = utf8_mask(k->id);

                printf("%s %s", existed ? "already stored:" : "added:", shown);
                if (quiet)
                        printf(" (%d modules, id %.12s)\n", k->n_modules, id);
                else {
                        putchar('\n');
                        print_kernel(k);
                }
        }
        kstore_kernel_free(k);
        return 0;
}

static void print_built(const struct kbuild_result *res, int json) {
        if (json) {
                json_auto_t *j = kstore_kernel_to_json(res->kernel);

                json_object_set_new(j, "cache_hit", json_boolean(res->cache_hit));
                json_object_set_new(j, "existed", json_boolean(res->existed));
                json_object_set_new(j, "source_id", json_string(res->source_id));
                json_object_set_new(j, "build_s", res->cache_hit ? json_null() : json_real(res->build_s));
                json_object_set_new(j, "log", res->log_path ? json_string(res->log_path) : json_null());
                json_dumpf(j, stdout, JSON_INDENT(2) | KB_JSON_OUT);
                putchar('\n');
        } else {
                /* The release is the built tree's, the name may be the store's. */
                _cleanup_free_ char *kname = utf8_mask(res->kernel->name),
                                *release = utf8_mask(res->kernel->release ? res->kernel->release : "-"),
                                *id = utf8_mask(res->kernel->id), *source = utf8_mask(res->source_id),
                                *log = utf8_mask(res->log_path ? res->log_path : "-");

                if (res->cache_hit)
                        printf("cache hit: %s (%s, id %.12s): built before from %s\n", kname, release, id, source);
                else
                        printf("built: %s (%s, id %.12s) from %s in %.0f s%s; log %s\n", kname, release, id, source,
                               res->build_s, res->existed ? " (the same image was stored already)" : "", log);
        }
}

/* `kernel build SRC`: kernels/build.c does the work; this checks the
 * options, holds the store's lock (a build writes into the store) and
 * prints the result. */
static int kernel_build(int argc, char **argv, struct cli_ctx *c) {
        static const struct cli_usage usage = {
                .verb = "kernel build",
                .params = "SRC - build a kernel from source into the store",
                .summary = "SRC is a kernel source tree (a git checkout, Debian's linux-source unpacked)\n"
                           "or a linux-source .tar.xz. The build runs in a persistent O= tree per\n"
                           "source tree and configuration (<store>/build), with ccache when installed,\n"
                           "so the next build of a nearby commit is incremental; the same inputs again\n"
                           "are a cache hit. The stored kernel keeps its .config and build.json\n"
                           "(source, commit, configuration, compiler, build time).",
        };
        const struct store_ctx *g = c->g;
        g_autofree char *name = NULL, *config = NULL;
        g_auto(GStrv) fragments = NULL, patches = NULL;
        gint jobs = 0;
        gboolean json = FALSE;
        GOptionEntry entries[] = {
                { "config", 0, 0, G_OPTION_ARG_FILENAME, &config,
                  "Base configuration: a .config file, defconfig or tinyconfig (default defconfig)", "FILE|defconfig|tinyconfig" },
                { "fragment", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &fragments,
                  "A config fragment merged over the base, then make olddefconfig (repeatable, in order)", "FILE" },
                { "patch", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &patches,
                  "A patch applied with patch -p1 to a private copy of the tree (repeatable, in order)", "FILE" },
                { "name", 0, 0, G_OPTION_ARG_STRING, &name,
                  "Store under NAME (default: the kernel release and -g<commit>, or a digest of the inputs)", "NAME" },
                { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "make -j N (default: the host's CPUs)", "N" },
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the stored kernel and the build as JSON", NULL },
                { NULL, 0, 0, 0, NULL, NULL, NULL },
        };
        struct kstore *s = NULL;
        g_autofree char *work = NULL;
        struct kbuild_opts o = { 0 };
        struct kbuild_result res = { 0 };
        struct kb_error err = { "" };
        struct progress_state ps;
        const struct kb_sink sink = { print_progress, &ps };
        struct timespec t;
        int r;

        if ((r = cli_options(&usage, entries, &argc, &argv)))
                return r;
        if (argc != 2)
                return cli_errorf("kernel build: expected one SRC (try --help)") + 1;
        if (name && !kstore_name_new_valid(name))
                return cli_errorf("kernel build: --name '%.128s' is not a kernel name (" KSTORE_NAME_RULE ")",
                                  name) + 1;
        if (jobs < 0 || jobs > 1024)
                return cli_errorf("kernel build: --jobs %d is out of range (1-1024)", jobs) + 1;
        o = (struct kbuild_opts){ .source = argv[1], .config = config, .fragments = fragments, .patches = patches,
                                  .name = name, .jobs = jobs, .events = &sink };
        /* The files it is given are looked at before a store is made. */
        if (kbuild_check_inputs(&o, &err) < 0)
                return cli_error(&err);
        if ((r = open_store(c, &s)))
                return r;
        work = g_build_filename(g->home, "build", NULL);
        clock_gettime(CLOCK_MONOTONIC, &t);
        ps.t0 = (double)t.tv_sec + (double)t.tv_nsec / 1e9;
        o.work_dir = work;
        if (kbuild_run(s, &o, &res, &err) < 0)
                return cli_error(&err);
        print_built(&res, json);
        kbuild_result_clear(&res);
        return 0;
}

/* The stored kernels with their snapshots, and the damaged entries, as
 * `kernel list --json` prints them. */
static void list_json(struct kstore_kernel **v, size_t n, const struct kstore_damaged *dm, size_t nd,
                      const struct snapshot_info *snaps, size_t n_snaps) {
        json_auto_t *a = json_array();

        for (size_t i = 0; i < nd; i++)
                json_array_append_new(a, json_pack("{s:s, s:o, s:b, s:s}", "name", dm[i].name, "id",
                                                   dm[i].id ? json_string(dm[i].id) : json_null(),
                                                   "damaged", 1, "why", dm[i].why));
        for (size_t i = 0; i < n; i++) {
                json_t *k = kstore_kernel_to_json(v[i]), *sv = json_array();
                for (size_t j = 0; j < n_snaps; j++)
                        if (strcmp(snaps[j].kernel_id, v[i]->id) == 0)
                                json_array_append_new(sv, json_pack("{s:s, s:I, s:i, s:i, s:f, s:f, s:b}",
                                        "key", snaps[j].key, "bytes", (json_int_t)snaps[j].bytes,
                                        "mem_mb", (int)snaps[j].mem_mb, "cpus", (int)snaps[j].cpus,
                                        "created_at", snaps[j].created_at, "boot_s", snaps[j].boot_s,
                                        "complete", snaps[j].complete));
                json_object_set_new(k, "snapshots", sv);
                json_array_append_new(a, k);
        }
        json_dumpf(a, stdout, JSON_INDENT(2) | KB_JSON_OUT);
        putchar('\n');
}

/* The stored kernels, a line each with its snapshots' count and size,
 * then the damaged entries. */
static void list_text(struct kstore_kernel **v, size_t n, const struct kstore_damaged *dm, size_t nd,
                      const struct snapshot_info *snaps, size_t n_snaps) {
        printf("%-28s %-28s %-12s %-4s %7s  %-20s  %s\n", "NAME", "RELEASE", "ID", "PVH", "MODULES", "ADDED",
               "SNAPSHOTS");
        for (size_t i = 0; i < n; i++) {
                char added[32] = "-";
                time_t at = (time_t)v[i]->added_at;
                struct tm tm;
                uint64_t bytes = 0;
                int count = 0;
                if (gmtime_r(&at, &tm))
                        strftime(added, sizeof(added), "%Y-%m-%d %H:%M UTC", &tm);
                for (size_t j = 0; j < n_snaps; j++)
                        if (strcmp(snaps[j].kernel_id, v[i]->id) == 0) {
                                count++;
                                bytes += snaps[j].bytes;
                        }
                _cleanup_free_ char *name = utf8_mask(v[i]->name), *id = utf8_mask(v[i]->id),
                                *release = utf8_mask(v[i]->release ? v[i]->release : "-");

                printf("%-28s %-28s %.12s %-4s %7d  %-20s  ", name, release, id,
                       v[i]->vmlinux_path ? "yes" : "no", v[i]->n_modules, added);
                if (count)
                        printf("%d (%.1f MiB)\n", count, (double)bytes / (1 << 20));
                else
                        printf("-\n");
        }
        /* A damaged entry is shown, not hidden: it holds a name,
         * and 'kernel remove' takes it away. */
        for (size_t i = 0; i < nd; i++) {
                _cleanup_free_ char *why = utf8_mask(dm[i].why), *name = utf8_mask(dm[i].name);

                printf("%-28s DAMAGED: %s (kbench kernel remove %s)\n", name, why, name);
        }
}

static int kernel_list(int argc, char **argv, struct cli_ctx *c) {
        static const struct cli_usage usage = {
                .verb = "kernel list",
                .params = "- list stored kernels",
        };
        const struct store_ctx *g = c->g;
        gboolean json = FALSE;
        GOptionEntry entries[] = {
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print a JSON array", NULL },
                { NULL, 0, 0, 0, NULL, NULL, NULL },
        };
        struct kstore *s = NULL;
        struct kstore_kernel **v = NULL;
        struct kstore_damaged *dm = NULL;
        struct snapshot_info *snaps = NULL;
        struct kb_error err = { "" };
        size_t n = 0, nd = 0, n_snaps = 0;
        int r;

        if ((r = cli_options(&usage, entries, &argc, &argv)))
                return r;
        if (argc != 1)
                return cli_errorf("kernel list: unexpected argument '%.64s'", argv[1]) + 1;
        if ((r = open_store(c, &s)))
                return r;
        if (kstore_list_all(s, &v, &n, &dm, &nd, &err) < 0)
                return cli_error(&err);
        if (snapshot_list(g->home, &snaps, &n_snaps, &err) < 0) {
                kstore_kernel_list_free(v, n);
                kstore_damaged_free(dm, nd);
                return cli_error(&err);
        }
        if (json)
                list_json(v, n, dm, nd, snaps, n_snaps);
        else if (n == 0 && nd == 0)
                fprintf(stderr, "no kernels stored; add one with 'kbench kernel add FILE'\n");
        else
                list_text(v, n, dm, nd, snaps, n_snaps);
        kstore_kernel_list_free(v, n);
        kstore_damaged_free(dm, nd);
        snapshot_info_free(snaps, n_snaps);
        return 0;
}

static int kernel_remove(int argc, char **argv, struct cli_ctx *c) {
        static const struct cli_usage usage = {
                .verb = "kernel remove",
                .params = "NAME - remove a kernel name (and its files and "
                          "snapshots when unused)",
        };
        const struct store_ctx *g = c->g;
        GOptionEntry entries[] = { { NULL, 0, 0, 0, NULL, NULL, NULL } };
        struct kstore *s = NULL;
        g_autofree char *gone = NULL;
        struct kb_error err = { "" };
        int r;

        if ((r = cli_options(&usage, entries, &argc, &argv)))
                return r;
        if (argc != 2)
                return cli_errorf("kernel remove: expected one NAME (try --help)") + 1;
        /* A path, an empty string: no kernel could have that name. */
        if (!kstore_name_valid(argv[1]))
                return cli_errorf("kernel remove: '%.64s%s' is not a kernel name (see kbench kernel list)", argv[1],
                                  strlen(argv[1]) > 64 ? "..." : "") + 1;
        if ((r = open_store(c, &s)))
                return r;
        if (kstore_remove(s, argv[1], &gone, &err) < 0)
                return cli_error(&err);
        {
                _cleanup_free_ char *shown = utf8_mask(argv[1]);

                printf("removed: %s\n", shown);
        }
        /* The warm-start snapshots go with the kernel's files (while another
         * name points at them, they stay useful and stay). */
        if (gone) {
                int removed = 0;
                uint64_t bytes = 0;
                if (snapshot_remove_kernel(g->home, gone, &removed, &bytes, &err) < 0)
                        return cli_error(&err);
                if (removed)
                        printf("removed %d snapshot(s), %.1f MiB\n", removed, (double)bytes / (1 << 20));
        }
        return 0;
}

/* needs (cli.h): add and build put a kernel in, so they may create the
 * store; list and remove refuse one that is not there. build and remove
 * hold the lock: a build writes into the store, and a run resolves its
 * kernels at its start and boots them for hours, so removing one under it
 * would fail its cells. add takes no lock: an import only adds (a staging
 * directory renamed into place, a name made with symlink's EEXIST), so it
 * can neither disturb a run nor be disturbed by one; nightly imports the
 * same way under its lock. */
static const struct {
        const char *name;
        int (*fn)(int argc, char **argv, struct cli_ctx *c);
        unsigned needs;
        const char *verb;          /* as the lock names its holder */
        const char *help;
} subcommands[] = {
        { "add", kernel_add, CLI_CREATE | CLI_KSTORE, "kernel add",
          "import a .deb, bzImage or vmlinux: add FILE [--name NAME] [--json]" },
        { "build", kernel_build, CLI_CREATE | CLI_LOCK | CLI_KSTORE, "kernel build",
          "build a kernel from source: build SRC [--config C] [--fragment F] [--patch P]" },
        { "list", kernel_list, CLI_STORE | CLI_KSTORE, "kernel list", "list stored kernels: list [--json]" },
        { "remove", kernel_remove, CLI_STORE | CLI_LOCK | CLI_KSTORE, "kernel remove",
          "remove a kernel by name: remove NAME" },
};

/* "add, build, list, remove", from the table. Caller g_frees. */
static char *command_names(void) {
        GString *s = g_string_new(NULL);

        for (size_t i = 0; i < G_N_ELEMENTS(subcommands); i++)
                g_string_append_printf(s, "%s%s", i ? ", " : "", subcommands[i].name);
        return g_string_free(s, FALSE);
}

int cli_kernel(int argc, char **argv, struct cli_ctx *c) {
        g_autofree char *names = command_names();

        if (argc < 2)
                return cli_errorf("kernel: no command given (%s); try 'kbench kernel --help'", names) + 1;
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
                printf("Usage: kbench kernel COMMAND [OPTIONS]\n\nManage the kernel store (%s).\n\nCommands:\n",
                       "content-addressed by the image's sha256");
                for (size_t i = 0; i < G_N_ELEMENTS(subcommands); i++)
                        printf("  %-7s %s\n", subcommands[i].name, subcommands[i].help);
                printf("\n'kbench kernel COMMAND --help' describes a command.\n");
                return 0;
        }
        for (size_t i = 0; i < G_N_ELEMENTS(subcommands); i++)
                if (strcmp(argv[1], subcommands[i].name) == 0) {
                        cli_ctx_init(c, c->g, subcommands[i].verb, subcommands[i].needs);
                        return subcommands[i].fn(argc - 1, argv + 1, c);
                }
        return cli_errorf("kernel: unknown command '%.64s' (%s)", argv[1], names) + 1;
}
