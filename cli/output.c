/* output.c: how a verb's output is shaped, the same for every verb that
 * prints a view: the one spelling of its format (--format, with --json as
 * its short form) and the width its text fits in (the reader's terminal). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/parse.h"

static const char *const format_names[] = {
        [CLI_FORMAT_TEXT] = "text", [CLI_FORMAT_MARKDOWN] = "markdown", [CLI_FORMAT_JSON] = "json",
        [CLI_FORMAT_CSV] = "csv",
};

int cli_format(const char *verb, const char *format, gboolean json, unsigned allowed, enum cli_format *ret) {
        g_autoptr(GString) names = g_string_new(NULL);

        if (format && json)
                return cli_errorf("%s: --json is --format=json: give one of them", verb) + 1;
        *ret = json ? CLI_FORMAT_JSON : CLI_FORMAT_TEXT;
        if (!format)
                return 0;
        for (size_t i = 0; i < G_N_ELEMENTS(format_names); i++) {
                if (!(allowed & (1u << i)))
                        continue;
                if (strcmp(format, format_names[i]) == 0) {
                        *ret = (enum cli_format)i;
                        return 0;
                }
                g_string_append_printf(names, "%s%s", names->len ? ", " : "", format_names[i]);
        }
        return cli_errorf("%s: --format " CLI_Q " is not one of %s", verb, CLI_QARG(format), names->str) + 1;
}

int cli_width(int fallback) {
        const char *env = getenv("COLUMNS");
        struct winsize ws;
        int64_t n;

        /* COLUMNS as the shell exports it wins; a terminal says its own. */
        if (env && parse_i64(env, &n) == 0 && n >= 20 && n <= 10000)
                return (int)n;
        if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
                return ws.ws_col;
        return fallback;
}
