/* store/lock: one kbench at a time per store. The lock is flock(2) on
 * <store>/lock, which holds the owner's pid and verb, so that a second
 * `kbench run` can say who holds it instead of libvirt's "Failed to acquire
 * pid file". flock dies with its process, even under SIGKILL, so a stale
 * lock file is never a stale lock. */
#pragma once

#include "common/error.h"

struct store_lock;

/* Take the lock of the store at home (a directory that exists: the lock
 * creates no store), without waiting. <home>/lock is created when missing;
 * a symbolic link or anything but a regular file there is refused, never
 * followed.
 * Returns 0 and *ret (release with lock_release), -EBUSY with err naming
 * the holder ("store DIR is in use by kbench run, pid N, since ..."), or
 * another -errno with err naming the file. */
int lock_store(const char *home, const char *verb, struct store_lock **ret, struct kb_error *err);

/* Release the lock and free l. Accepts NULL, returns NULL. */
struct store_lock *lock_release(struct store_lock *l);
