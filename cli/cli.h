/* cli/cli: what every verb (cli_<verb>.c) shares: the store it works on
 * (store/store.h, from the global options) and the one-line error printer.
 * main.c holds the verb table. */
#pragma once

#include <glib.h>

#include "common/error.h"
#include "store/store.h"

/* Each verb: parses its own options (GOptionContext, so --help works) from
 * argv[0] = verb name onwards. Returns the process exit code: 0 ok, 1 failure,
 * 2 usage error. */
int cli_kernel(int argc, char **argv, const struct store_ctx *g);
int cli_run(int argc, char **argv, const struct store_ctx *g);
int cli_show(int argc, char **argv, const struct store_ctx *g);
int cli_compare(int argc, char **argv, const struct store_ctx *g);
int cli_doctor(int argc, char **argv, const struct store_ctx *g);
int cli_vmstat(int argc, char **argv, const struct store_ctx *g);
int cli_publish(int argc, char **argv, const struct store_ctx *g);
int cli_nightly(int argc, char **argv, const struct store_ctx *g);
int cli_bisect(int argc, char **argv, const struct store_ctx *g);
int cli_workloads(int argc, char **argv, const struct store_ctx *g);

/* Parse a verb's options: entries lists the GOptionEntry arrays of ctx
 * (each NULL-terminated; the list too), verb names it in messages ("run",
 * "kernel add"). Before GOption, the rules every verb's options share: an
 * option that takes one value is given once (a second -c would silently
 * win), no value is an empty string, and a text value is UTF-8. Returns 0,
 * or 2 (the usage exit code) after one error line. */
int cli_parse(GOptionContext *ctx, const GOptionEntry *const *entries, const char *verb, int *argc, char ***argv);

/* `kbench VERB --complete-options` (hidden, alone after the verb): the
 * verb's options as cli_parse knows them, one a line, "--name=" for one
 * that takes a value, for the shell completion. */
#define CLI_COMPLETE_OPTIONS "--complete-options"

/* `kbench --complete WHAT [ARG...]` (hidden): what the store holds, one a
 * line, for the shell completion: "runs" (ids, newest first), "cells RUN"
 * (cell keys), "logs RUN CELL" (the cell's log streams, and vmstat),
 * "metrics" (the metric names stored). Prints nothing on an error (no
 * store yet). Returns the exit code: 0, 1 (an error), 2 (usage). */
int cli_complete(int argc, char **argv, const struct store_ctx *g);

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

/* Print "kbench: <message>" on stderr; returns 1 (the failure exit code). */
int cli_error(const struct kb_error *err);
int cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
