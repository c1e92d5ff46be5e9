/* cli/cli: what every verb (cli_<verb>.c) shares: the store it works on
 * (store/store.h, from the global options) and the one-line error printer.
 * main.c holds the verb table. */
#pragma once

#include <glib.h>

#include "common/error.h"
#include "store/store.h"

struct run_host_backend;

/* What a verb needs before it works, declared in its row of the verb
 * table (main.c's verbs[], cli_kernel.c's subcommands[]), as git's
 * RUN_SETUP; cli_setup provides it. */
enum cli_needs {
        CLI_STORE = 1 << 0,        /* the store's directory, which must exist */
        CLI_CREATE = 1 << 1,       /* the store's directory, made when missing (a verb that puts a kernel in) */
        CLI_LOCK = 1 << 2,         /* the store lock, held until the verb returns */
        CLI_KSTORE = 1 << 3,       /* the kernel store */
        CLI_DB = 1 << 4,           /* the results database, which must exist (--db may lie outside the store) */
        CLI_DB_CREATE = 1 << 5,    /* the results database, created when missing (a verb that adds results) */
        CLI_SIGNALS = 1 << 6,      /* SIGINT and SIGTERM ask the verb's pump to stop (cell_interrupted): the
                                      running cell ends as interrupted and the run stays resumable */
        CLI_HOSTS = 1 << 7,        /* the hosts its runs boot guests on: libvirt (run/hosts.h's backend), which
                                      the pump connects through once it has checked its request and
                                      reaches the hosts, so a usage error is never a connection error */
};

/* A verb's context: the store it works on (from the global options) and
 * what cli_setup opened for it. */
struct cli_ctx {
        struct store_session s;    /* first member: the floors' store_session_open comes back here */
        const struct store_ctx *g;
        const char *verb;          /* the lock's owner as a second kbench names it ("kernel build") */
        unsigned needs;            /* enum cli_needs, from the verb's row */
        struct store_lock *lock;   /* held when needs has CLI_LOCK and the setup is done */
        const struct run_host_backend *hosts; /* with CLI_HOSTS: how the verb's pump reaches its hosts
                                              (run/hosts.h), given to it in its drive; else NULL */
        unsigned opened;           /* the setup's steps done, a bit each (setup.c) */
};

/* A context for verb with its row's needs; nothing is opened yet. */
void cli_ctx_init(struct cli_ctx *c, const struct store_ctx *g, const char *verb, unsigned needs);
/* Close what cli_setup opened and release the lock. */
void cli_ctx_clear(struct cli_ctx *c);

/* Open what c->needs declares: the store's directory (made with
 * CLI_CREATE), the lock, the kernel store, the database, in that order;
 * what is open stays open (a second call returns 0). A verb calls it once
 * its request is checked, so a usage error is not hidden behind a missing
 * store; a pump (run, bisect, nightly) gets c->s and asks for its parts
 * with store_session_open, which comes here.
 * Returns 0, or -errno with err saying why in one line. */
int cli_setup(struct cli_ctx *c, struct kb_error *err);

/* cli_setup's steps for the needs given only: for kbench doctor, which
 * looks at each part of the store in turn, a failure being a finding. */
int cli_setup_only(struct cli_ctx *c, unsigned needs, struct kb_error *err);

/* Each verb: parses its own options (GOptionContext, so --help works) from
 * argv[0] = verb name onwards, then calls cli_setup. Returns the process
 * exit code: 0 ok, 1 failure, 2 usage error. */
int cli_kernel(int argc, char **argv, struct cli_ctx *c);
int cli_run(int argc, char **argv, struct cli_ctx *c);
int cli_show(int argc, char **argv, struct cli_ctx *c);
int cli_compare(int argc, char **argv, struct cli_ctx *c);
int cli_doctor(int argc, char **argv, struct cli_ctx *c);
int cli_vmstat(int argc, char **argv, struct cli_ctx *c);
int cli_publish(int argc, char **argv, struct cli_ctx *c);
int cli_nightly(int argc, char **argv, struct cli_ctx *c);
int cli_bisect(int argc, char **argv, struct cli_ctx *c);
int cli_workloads(int argc, char **argv, struct cli_ctx *c);
int cli_metrics(int argc, char **argv, struct cli_ctx *c);

/* Parse a verb's options: entries lists the GOptionEntry arrays of ctx
 * (each NULL-terminated; the list too), verb names it in messages ("run",
 * "kernel add"). Before GOption, the rules every verb's options share: an
 * option that takes one value is given once (a second -c would silently
 * win), no value is an empty string, and a text value is UTF-8. Returns 0,
 * or 2 (the usage exit code) after one error line. */
int cli_parse(GOptionContext *ctx, const GOptionEntry *const *entries, const char *verb, int *argc, char ***argv);

/* A verb's command line as its help shows it: the usage line's operands
 * ("SRC - build a kernel from source into the store"), the text above the
 * options and the text below them (either may be NULL). */
struct cli_usage {
        const char *verb;          /* "kernel build": its error lines and help say it */
        const char *params;
        const char *summary;
        const char *description;
};

/* Options --help lists apart under their own heading, shown by
 * --help-NAME (bisect's run options: --help-run). */
struct cli_group {
        const char *name, *title, *help;
        const GOptionEntry *entries;
};

/* The opening every verb shares: its options' context made from u, the
 * tables (a NULL-ended list of NULL-ended tables) and group (or NULL),
 * then cli_parse over all of them. Returns 0, or 2 (the usage exit code)
 * after one error line. */
int cli_options_of(const struct cli_usage *u, const GOptionEntry *const *tables, const struct cli_group *group,
                   int *argc, char ***argv);
/* cli_options_of with one table and no group. */
int cli_options(const struct cli_usage *u, const GOptionEntry *entries, int *argc, char ***argv);

/* An option as kbench's command line spells it, named as its table names
 * it: "fs" is --fs. For a pump's errors about the settings it was given
 * (runner_drive.option_name); the string lives as long as the process. */
const char *cli_flag_name(const char *option);

/* `kbench VERB --complete-options` (hidden, alone after the verb): the
 * verb's options as cli_parse knows them, one a line, "--name=" for one
 * that takes a value, for the shell completion. */
#define CLI_COMPLETE_OPTIONS "--complete-options"

/* `kbench --complete WHAT [ARG...]` (hidden): what the store holds, one a
 * line, for the shell completion: "runs" (ids, newest first), "cells RUN"
 * (cell keys), "logs RUN CELL" (the cell's log streams, and vmstat),
 * "metrics" (the metric names stored). Prints nothing on an error (no
 * store yet). Returns the exit code: 0, 1 (an error), 2 (usage). */
int cli_complete(int argc, char **argv, struct cli_ctx *c);

/* Help is read in a terminal of 100 columns: every line of every --help
 * fits (tests/cli/help.py). */
#define CLI_HELP_COLUMNS 100

/* Append line (no newline) to out, broken at blanks into lines of at most
 * width columns; the continuation lines are indented to where its text
 * begins (an option line's description). A word wider than a line stays
 * whole. */
void cli_wrap(GString *out, const char *line, size_t width);

/* A value the user gave, quoted in a message and cut at 64 bytes: a file
 * pasted as a value must not become a 100 KB error line.
 * cli_errorf("--x " CLI_Q " is bad", CLI_QARG(value)) */
#define CLI_Q "'" ERROR_VAL "'"
#define CLI_QARG(s) ERROR_VALARG(s)

/* The end of every verb (main.c calls it, and cli_parse before it exits
 * on --help): stdout flushed and checked, so output lost to a full disk
 * or a closed file is an error. Returns code, or 1 when a write to stdout
 * failed, after one line "VERB: cannot write the output: REASON" unless
 * an error line was already printed. */
int cli_stdout_done(const char *verb, int code);

/* Print "kbench: <message>" on stderr; returns 1 (the failure exit code). */
int cli_error(const struct kb_error *err);
int cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The formats a verb's view prints in (--format=NAME; --json is
 * --format=json). */
enum cli_format { CLI_FORMAT_TEXT, CLI_FORMAT_MARKDOWN, CLI_FORMAT_JSON, CLI_FORMAT_CSV };
#define CLI_FORMAT_BIT(f) (1u << (f))

/* The format a verb was asked for: format (--format's value, or NULL)
 * among allowed (a mask, 1 << CLI_FORMAT_*), json its short form.
 * Returns 0 with *ret (text when neither is given), or 2 after one line
 * naming the formats the verb has. */
int cli_format(const char *verb, const char *format, gboolean json, unsigned allowed, enum cli_format *ret);

/* The columns the reader's text should fit in: $COLUMNS when it is a
 * number from 20 on, else the terminal's width when stdout is one, else
 * fallback. */
int cli_width(int fallback);
