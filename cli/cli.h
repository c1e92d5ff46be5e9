/* cli/cli: what every verb (cli_<verb>.c) shares: the store it works on
 * (store/store.h, from the global options) and the one-line error printer.
 * main.c holds the verb table. */
#pragma once

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

/* Print "kbench: <message>" on stderr; returns 1 (the failure exit code). */
int cli_error(const struct kb_error *err);
int cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
