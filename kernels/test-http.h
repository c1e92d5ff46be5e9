/* kernels/test-http: the loopback HTTP server of the tests that download
 * (the url source's, the nightly sources'): tests/nightly/http_server.py,
 * bound to 127.0.0.1 on a free port, serving a directory and logging every
 * request as one JSON line. Test-only (libkernels-test); aborts the test
 * on failure. */
#pragma once

#include <jansson.h>
#include <stddef.h>

/* Start the server over root, logging to log, and wait (20 s at most) for
 * the port it prints. The script is found under $KBENCH_SOURCE_ROOT (meson
 * sets it). The server is stopped at exit, before the scratch directory of
 * common/test-scratch.h (made earlier) is removed. One server per binary:
 * a second call fails the test. Returns the port, 1..65535. */
int test_http_start(const char *root, const char *log);

/* The requests log holds for path, as JSON objects in order (none when log
 * cannot be read). Returns a new array (caller json_decref). */
json_t *test_http_requests(const char *log, const char *path);

/* The status sent for request i of reqs (0 when there is no such request),
 * and the value of its header h (NULL when it had none). */
long test_http_status(json_t *reqs, size_t i);
const char *test_http_header(json_t *reqs, size_t i, const char *h);
