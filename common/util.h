/* Small helpers shared by every module: cleanup attributes so early returns
 * cannot leak, and array sizing. Free of host libraries so the static guest
 * agent can use it too. */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

static inline void freep(void *p) { free(*(void **)p); }
static inline void fclosep(FILE **f) { if (*f) fclose(*f); }
static inline void closep(int *fd) { if (*fd >= 0) { int e = errno; close(*fd); errno = e; } }

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_close_ _cleanup_(closep)

/* Hand ownership out of a cleanup variable: returns p and sets it to NULL. */
#define TAKE_PTR(p) ({ __typeof__(p) _t = (p); (p) = NULL; _t; })
#define TAKE_FD(fd) ({ int _t = (fd); (fd) = -1; _t; })

/* The flags of every JSON kbench prints for a reader or a script (jansson;
 * expand only where <jansson.h> is included): ASCII, and reals to 10
 * significant digits, so `kernel list --json`, `show --json` and `compare
 * --json` write 5.293487 alike, never 5.2934869999999998. What is stored
 * to be read back exactly (a pairing key's canonical text) keeps 17. */
#define KB_JSON_OUT (JSON_ENSURE_ASCII | JSON_REAL_PRECISION(10))
