/* One hosttune run at a time: an flock(2) on the lock file
 * (/run/hosttune.lock, or inside --root). The holder writes its pid into
 * the file so the one refused can say who holds it. The lock dies with
 * the process (crash included); the file itself is never removed, since
 * unlinking a lock file races with the next locker. */
#pragma once

#include "context.h"

typedef struct ht_lock ht_lock;

/* Take the lock at lock_path (a real path; the file is created 0644 and
 * its parent directory 0755 when missing, never through a symlink). When
 * another process holds it: -EBUSY at once, and *ret_error says
 * "another hosttune (pid N) is running; lock PATH". */
int ht_lock_acquire(const char *lock_path, ht_lock **ret, char **ret_error);
/* The same, but wait up to timeout_ms for the holder to finish first. */
int ht_lock_acquire_wait(const char *lock_path, unsigned timeout_ms, ht_lock **ret, char **ret_error);
/* The context's lock (ht_context.lock_host resolved under the root, its
 * directories made as any host directory; or lock_path in an explicit
 * --state-dir). A link out of the root is -EXDEV, said in *ret_error. */
int ht_lock_acquire_ctx(const ht_context *c, ht_lock **ret, char **ret_error);
/* The same, waiting up to timeout_ms for the holder to finish first. */
int ht_lock_acquire_ctx_wait(const ht_context *c, unsigned timeout_ms, ht_lock **ret, char **ret_error);
/* Release and free; NULL is fine. */
void ht_lock_release(ht_lock *l);
static inline void ht_lock_releasep(ht_lock **l) { ht_lock_release(*l); }
