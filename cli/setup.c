/* cli/setup.c: what a verb needs before it works, provided in one place.
 * Each row of the verb table (main.c's verbs[], cli_kernel.c's
 * subcommands[]) declares its needs as CLI_* flags, as git's RUN_SETUP
 * does; cli_setup opens them in one order for every verb, so that which
 * verbs lock, create a store or need a database is read off the table
 * (docs/architecture.md) and no verb, and no floor below cli/, opens the
 * store or takes its lock itself. */
#include <errno.h>
#include <glib.h>
#include <signal.h>
#include <stdio.h>

#include "cell/cell.h"
#include "cli/cli.h"
#include "kernels/kstore.h"
#include "results/db.h"
#include "run/hosts.h"
#include "store/lock.h"

/* The store's directory: refused when missing, unless the verb puts a
 * kernel in (store.h, "Which verbs may create a store"). */
static int need_store(struct cli_ctx *c, struct kb_error *err) {
        int r = store_prepare(c->g, !!(c->needs & CLI_CREATE), err);

        if (r == 1)
                fprintf(stderr, "kbench: creating the store %s\n", c->g->home);
        return r < 0 ? r : 0;
}

/* After the directory: the lock creates no store. */
static int need_lock(struct cli_ctx *c, struct kb_error *err) {
        return lock_store(c->g->home, c->verb, &c->lock, err);
}

/* A verb that writes (creates the store, or holds the lock) makes the
 * kernel store's directories; a reader only looks (a store without
 * kernels lists none). */
static int need_kstore(struct cli_ctx *c, struct kb_error *err) {
        g_autofree char *dir = store_kernels_dir(c->g);

        return c->needs & (CLI_CREATE | CLI_LOCK) ? kstore_open(dir, &c->s.ks, err)
                                                  : kstore_open_existing(dir, &c->s.ks, err);
}

/* --db need not be in the store: a reader of it needs no store. */
static int need_db(struct cli_ctx *c, struct kb_error *err) {
        return c->needs & CLI_DB_CREATE ? db_open(c->g->db_path, &c->s.db, err)
                                        : db_open_existing(c->g->db_path, &c->s.db, err);
}

static void on_stop_signal(int sig) {
        (void)sig;
        cell_interrupted = 1;
}

/* From the moment the store is opened, a signal asks the pump to stop
 * rather than killing kbench beside a running guest. Before it, nothing
 * would be left behind: the default action is the right one. */
static int need_signals(struct cli_ctx *c, struct kb_error *err) {
        struct sigaction sa = { .sa_handler = on_stop_signal };

        (void)c;
        if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0)
                return error_setf(err, -errno, "cannot install the signal handlers: %s", g_strerror(errno));
        return 0;
}

/* In this order: the directory before its lock, the lock before anything
 * is read that another kbench may be writing. part: what a pump asks for
 * to have the step (store.h). */
static const struct {
        unsigned needs;
        unsigned part;
        int (*open)(struct cli_ctx *c, struct kb_error *err);
} steps[] = {
        { CLI_STORE | CLI_CREATE, STORE_PART_STORE, need_store },
        { CLI_LOCK, STORE_PART_STORE, need_lock },
        { CLI_KSTORE, STORE_PART_STORE, need_kstore },
        { CLI_SIGNALS, STORE_PART_STORE, need_signals },
        { CLI_DB | CLI_DB_CREATE, STORE_PART_DB, need_db },
};

int cli_setup_only(struct cli_ctx *c, unsigned needs, struct kb_error *err) {
        for (size_t i = 0; i < G_N_ELEMENTS(steps); i++) {
                int r;

                if (!(steps[i].needs & needs) || (c->opened & (1u << i)))
                        continue;
                r = steps[i].open(c, err);
                if (r < 0)
                        return r;
                c->opened |= 1u << i;
        }
        return 0;
}

int cli_setup(struct cli_ctx *c, struct kb_error *err) {
        return cli_setup_only(c, c->needs, err);
}

/* store_session_open for the floors below cli/: the steps of the parts
 * asked for, as far as the verb declared them. The session is the
 * context's first member. */
static int session_open(struct store_session *s, unsigned parts, struct kb_error *err) {
        struct cli_ctx *c = (struct cli_ctx *)(void *)s;
        unsigned needs = 0;

        for (size_t i = 0; i < G_N_ELEMENTS(steps); i++)
                if (steps[i].part & parts)
                        needs |= steps[i].needs;
        return cli_setup_only(c, c->needs & needs, err);
}

void cli_ctx_init(struct cli_ctx *c, const struct store_ctx *g, const char *verb, unsigned needs) {
        *c = (struct cli_ctx){ .s = { .open = session_open }, .g = g, .verb = verb, .needs = needs };
        /* A table of operations, no connection yet: the pump connects to
         * each host when it reaches it, after checking its request. */
        if (needs & CLI_HOSTS)
                c->hosts = &run_host_libvirt;
}

void cli_ctx_clear(struct cli_ctx *c) {
        c->s.db = db_close(c->s.db);
        c->s.ks = kstore_free(c->s.ks);
        c->lock = lock_release(c->lock);
        c->opened = 0;
}
