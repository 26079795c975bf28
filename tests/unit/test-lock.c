#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <cmocka.h>

#include "lock.h"
#include "tmptree.h"
#include "util.h"

static char *dir, *lock_path;

static int setup(void **state) {
        dir = tt_mkdtemp("lock");
        lock_path = xasprintf("%s/run/hosttune.lock", dir);
        return 0;
}

static int teardown(void **state) {
        tt_rm_rf(dir);
        free(dir);
        free(lock_path);
        return 0;
}

/* Run in a child: try the lock, report the result through the exit code
 * (0 taken, 1 busy with the right message, 2 other). */
static int child_try(bool wait, unsigned timeout_ms, pid_t holder) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                ht_lock *l = NULL;
                char *err = NULL;
                int r = wait ? ht_lock_acquire_wait(lock_path, timeout_ms, &l, &err)
                             : ht_lock_acquire(lock_path, &l, &err);
                if (r == 0) {
                        ht_lock_release(l);
                        _exit(0);
                }
                char *want = xasprintf("another hosttune (pid %ld) is running; lock %s", (long)holder, lock_path);
                _exit(r == -EBUSY && err && startswith(err, want) ? 1 : 2);
        }
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st));
        return WEXITSTATUS(st);
}

static void test_second_acquire_fails_naming_pid(void **state) {
        ht_lock *l = NULL;
        char *err = NULL;
        /* the parent directory is created */
        assert_int_equal(ht_lock_acquire(lock_path, &l, &err), 0);
        assert_null(err);
        char *s = tt_get(dir, "run/hosttune.lock");
        char *want = xasprintf("%ld\n", (long)getpid());
        assert_string_equal(s, want);
        free(s);
        free(want);

        assert_int_equal(child_try(false, 0, getpid()), 1);
        /* waiting a little does not help while we hold it */
        assert_int_equal(child_try(true, 100, getpid()), 1);

        ht_lock_release(l);
        assert_int_equal(child_try(false, 0, 0), 0);
        /* and we can take it again */
        assert_int_equal(ht_lock_acquire(lock_path, &l, &err), 0);
        ht_lock_release(l);
}

static void test_wait_until_released(void **state) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t holder = fork();
        assert_true(holder >= 0);
        if (holder == 0) {
                close(p[0]);
                ht_lock *l;
                char *err = NULL;
                if (ht_lock_acquire(lock_path, &l, &err) < 0)
                        _exit(3);
                (void)!write(p[1], "x", 1);
                struct timespec ts = {0, 200 * 1000000};
                nanosleep(&ts, NULL);
                ht_lock_release(l);
                _exit(0);
        }
        close(p[1]);
        char c;
        assert_int_equal(read(p[0], &c, 1), 1);
        close(p[0]);
        ht_lock *l = NULL;
        char *err = NULL;
        assert_int_equal(ht_lock_acquire(lock_path, &l, &err), -EBUSY);
        assert_non_null(err);
        char *want = xasprintf("another hosttune (pid %ld) is running", (long)holder);
        assert_true(startswith(err, want));
        free(want);
        free(err);
        err = NULL;
        assert_int_equal(ht_lock_acquire_wait(lock_path, 5000, &l, &err), 0);
        ht_lock_release(l);
        int st;
        assert_int_equal(waitpid(holder, &st, 0), holder);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_lock_dies_with_holder(void **state) {
        pid_t holder = fork();
        if (holder == 0) {
                ht_lock *l;
                char *err = NULL;
                if (ht_lock_acquire(lock_path, &l, &err) < 0)
                        _exit(3);
                raise(SIGKILL);
                _exit(4);
        }
        int st;
        assert_int_equal(waitpid(holder, &st, 0), holder);
        assert_true(WIFSIGNALED(st));
        /* the stale pid in the file does not matter: the lock is free */
        ht_lock *l = NULL;
        char *err = NULL;
        assert_int_equal(ht_lock_acquire(lock_path, &l, &err), 0);
        ht_lock_release(l);
}

static void test_refuses_symlink_and_bad_path(void **state) {
        tt_mkdir(dir, "run");
        tt_put(dir, "victim", "keep", 0644);
        char *target = xasprintf("%s/victim", dir);
        tt_symlink(dir, target, "run/hosttune.lock");
        ht_lock *l = NULL;
        char *err = NULL;
        assert_int_equal(ht_lock_acquire(lock_path, &l, &err), -ELOOP);
        assert_non_null(err);
        assert_non_null(strstr(err, lock_path));
        free(err);
        err = NULL;
        char *s = tt_get(dir, "victim");
        assert_string_equal(s, "keep");
        free(s);
        assert_int_equal(ht_lock_acquire("relative.lock", &l, &err), -EINVAL);
        free(err);
        err = NULL;
        /* a directory in its place */
        char *d = xasprintf("%s/dirlock", dir);
        assert_int_equal(mkdir(d, 0755), 0);
        assert_true(ht_lock_acquire(d, &l, &err) < 0);
        assert_null(l);
        free(err);
        free(d);
        free(target);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_second_acquire_fails_naming_pid, setup, teardown),
                cmocka_unit_test_setup_teardown(test_wait_until_released, setup, teardown),
                cmocka_unit_test_setup_teardown(test_lock_dies_with_holder, setup, teardown),
                cmocka_unit_test_setup_teardown(test_refuses_symlink_and_bad_path, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
