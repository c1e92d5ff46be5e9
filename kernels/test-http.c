/* kernels/test-http: the loopback HTTP server the download tests start
 * (see test-http.h), started, waited for and stopped in one place rather
 * than in each test that needs it. */
#include <glib.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/test.h"
#include "kernels/test-http.h"

static GPid server = -1;
static int server_out = -1;   /* kept open: the server must never write into a closed pipe */

static void stop_server(void) {
        if (server > 0) {
                kill(server, SIGTERM);
                waitpid(server, NULL, 0);
        }
        if (server_out >= 0)
                close(server_out);
}

int test_http_start(const char *root, const char *log) {
        const char *src = getenv("KBENCH_SOURCE_ROOT");
        g_autofree char *script = NULL;
        char buf[32] = { 0 };
        size_t got = 0;
        GError *e = NULL;
        int port;

        if (server > 0)
                TEST_FAIL("test_http_start: a server is already running");
        if (!src)
                TEST_FAIL("KBENCH_SOURCE_ROOT is not set (meson sets it)");
        script = g_build_filename(src, "tests", "nightly", "http_server.py", NULL);
        char *argv[] = { "python3", script, (char *)root, (char *)log, NULL };
        if (!g_spawn_async_with_pipes(NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                      &server, NULL, &server_out, NULL, &e))
                TEST_FAIL("cannot start %s: %s", script, e->message);
        /* Registered after the scratch directory's handler, so it runs first. */
        atexit(stop_server);
        /* The port, one line, within 20 s. */
        while (!memchr(buf, '\n', got)) {
                struct pollfd pfd = { .fd = server_out, .events = POLLIN };
                ssize_t n;
                if (got + 1 >= sizeof(buf) || poll(&pfd, 1, 20000) != 1)
                        TEST_FAIL("the test server printed no port within 20 s");
                n = read(server_out, buf + got, sizeof(buf) - 1 - got);
                if (n <= 0)
                        TEST_FAIL("the test server exited before printing its port");
                got += (size_t)n;
        }
        port = atoi(buf);
        if (port <= 0 || port >= 65536)
                TEST_FAIL("the test server printed no port but \"%s\"", buf);
        return port;
}

json_t *test_http_requests(const char *log, const char *path) {
        g_autofree char *text = NULL;
        g_auto(GStrv) lines = NULL;
        json_t *a = json_array();

        if (!g_file_get_contents(log, &text, NULL, NULL))
                return a;
        lines = g_strsplit(text, "\n", -1);
        for (char **l = lines; *l; l++) {
                json_t *j = json_loads(*l, 0, NULL);
                if (j && g_strcmp0(json_string_value(json_object_get(j, "path")), path) == 0)
                        json_array_append_new(a, j);
                else
                        json_decref(j);
        }
        return a;
}

long test_http_status(json_t *reqs, size_t i) {
        return (long)json_integer_value(json_object_get(json_array_get(reqs, i), "status"));
}

const char *test_http_header(json_t *reqs, size_t i, const char *h) {
        return json_string_value(json_object_get(json_array_get(reqs, i), h));
}
