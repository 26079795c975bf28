#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <cmocka.h>

#include "context.h"
#include "fileattr.h"
#include "fileio.h"
#include "tmptree.h"
#include "util.h"

typedef struct {
        char *dir;
        ht_context *c;
} fixture;

static int setup(void **state) {
        fixture *f = xcalloc(1, sizeof(*f));
        f->dir = tt_mkdtemp("fileio");
        tt_mkdir(f->dir, "etc");
        tt_mkdir(f->dir, "usr");
        tt_mkdir(f->dir, "proc");
        tt_mkdir(f->dir, "proc/sys");
        tt_mkdir(f->dir, "proc/sys/vm");
        tt_put(f->dir, "etc/keep.conf", "old contents\n", 0640);
        tt_put(f->dir, "etc/target", "link target\n", 0644);
        tt_symlink(f->dir, "target", "etc/link");
        tt_symlink(f->dir, "../../../../../../../..", "etc/esc");
        tt_symlink(f->dir, "/usr", "etc/to-usr");
        tt_symlink(f->dir, "/nowhere", "etc/dangling");
        tt_put(f->dir, "etc/plainfile", "x", 0644);
        tt_put(f->dir, "proc/sys/vm/swappiness", "60\n", 0644);
        assert_int_equal(ht_context_new(f->dir, &f->c), 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        fixture *f = *state;
        ht_context_free(f->c);
        tt_rm_rf(f->dir);
        free(f->dir);
        free(f);
        return 0;
}

static struct stat st_of(fixture *f, const char *rel) {
        char *p = xasprintf("%s/%s", f->dir, rel);
        struct stat st;
        assert_int_equal(lstat(p, &st), 0);
        free(p);
        return st;
}

static void assert_file(fixture *f, const char *rel, const char *content) {
        char *s = tt_get(f->dir, rel);
        assert_non_null(s);
        assert_string_equal(s, content);
        free(s);
}

static void test_write_keeps_mode_and_owner(void **state) {
        fixture *f = *state;
        bool root = geteuid() == 0;
        if (root) {
                char *p = xasprintf("%s/etc/keep.conf", f->dir);
                assert_int_equal(chown(p, 1234, 5678), 0);
                free(p);
        }
        struct stat before = st_of(f, "etc/keep.conf");
        const char *data = "new contents\n";
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/keep.conf", data, strlen(data), 0644, 0, 0), 0);
        assert_file(f, "etc/keep.conf", data);
        struct stat after = st_of(f, "etc/keep.conf");
        assert_int_equal(after.st_mode & 07777, 0640);
        assert_int_equal(after.st_uid, before.st_uid);
        assert_int_equal(after.st_gid, before.st_gid);
        assert_int_not_equal(after.st_ino, before.st_ino); /* replaced, not rewritten */
        if (root)
                assert_int_equal(after.st_uid, 1234);
}

static void test_write_new_file_creates_parents(void **state) {
        fixture *f = *state;
        uid_t uid = geteuid() == 0 ? 0 : HT_UID_ANY;
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/systemd/system/x.service.d/50-ht.conf",
                                              "[Service]\n", 10, 0644, uid, 0), 0);
        assert_file(f, "etc/systemd/system/x.service.d/50-ht.conf", "[Service]\n");
        struct stat st = st_of(f, "etc/systemd/system/x.service.d/50-ht.conf");
        assert_int_equal(st.st_mode & 07777, 0644);
        st = st_of(f, "etc/systemd/system");
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0755);
        /* an empty file is a file too */
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/empty", "", 0, 0600, HT_UID_ANY, HT_GID_ANY), 0);
        assert_file(f, "etc/empty", "");
        assert_int_equal(st_of(f, "etc/empty").st_mode & 07777, 0600);
}

static void test_write_refuses_links_and_specials(void **state) {
        fixture *f = *state;
        char *before = tt_tree(f->dir);
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/link", "evil", 4, 0644, HT_UID_ANY, HT_GID_ANY), -ELOOP);
        assert_int_equal(ht_write_file_atomic(f->c, "/etc", "evil", 4, 0644, HT_UID_ANY, HT_GID_ANY), -EISDIR);
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/esc/passwd", "evil", 4, 0644, HT_UID_ANY, HT_GID_ANY), -EXDEV);
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/../x", "evil", 4, 0644, HT_UID_ANY, HT_GID_ANY), -EINVAL);
        /* nothing is created through a dangling link */
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/dangling/x", "evil", 4, 0644, HT_UID_ANY, HT_GID_ANY), -ELOOP);
        /* a parent that is a file: error, and no temp file or dir left */
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/plainfile/child", "x", 1, 0644, HT_UID_ANY, HT_GID_ANY), -ENOTDIR);
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/plainfile/a/b", "x", 1, 0644, HT_UID_ANY, HT_GID_ANY), -ENOTDIR);
        char *after = tt_tree(f->dir);
        assert_string_equal(before, after);
        free(before);
        free(after);
        assert_file(f, "etc/target", "link target\n");
}

static void test_write_through_dir_link_inside_root(void **state) {
        fixture *f = *state;
        /* an intermediate link to a directory inside the root is followed
         * the way the context follows it (a chroot would) */
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/to-usr/lib/x.conf", "y\n", 2, 0644, HT_UID_ANY, HT_GID_ANY), 0);
        assert_file(f, "usr/lib/x.conf", "y\n");
}

static void test_write_error_leaves_no_temp(void **state) {
        fixture *f = *state;
        char *before = tt_tree(f->dir);
        /* make write(2) fail half-way through with EFBIG */
        struct rlimit old, small = {.rlim_cur = 4096};
        assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
        small.rlim_max = old.rlim_max;
        void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
        char *big = xmalloc(100000);
        memset(big, 'z', 100000);
        int r = ht_write_file_atomic(f->c, "/etc/keep.conf", big, 100000, 0644, HT_UID_ANY, HT_GID_ANY);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
        signal(SIGXFSZ, prev);
        free(big);
        assert_int_equal(r, -EFBIG);
        char *after = tt_tree(f->dir);
        assert_string_equal(before, after);
        free(before);
        free(after);
}

static void test_snapshot_restore_existing(void **state) {
        fixture *f = *state;
        /* binary content with NULs and no trailing newline */
        static const char bin[] = {'a', 0, 'b', '\n', 0, (char)0xff, 'c'};
        char *p = xasprintf("%s/etc/bin", f->dir);
        int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, bin, sizeof(bin)), sizeof(bin));
        close(fd);
        if (geteuid() == 0)
                assert_int_equal(chown(p, 42, 43), 0);
        char *before = tt_tree(f->dir);

        ht_file_snapshot *s;
        assert_int_equal(ht_file_snapshot_take(f->c, "/etc/bin", &s), 0);
        assert_true(s->existed);
        assert_int_equal(s->len, sizeof(bin));
        assert_memory_equal(s->content, bin, sizeof(bin));
        assert_int_equal(s->mode, 0600);

        /* change content, mode and owner behind its back */
        assert_int_equal(ht_write_file_exact(f->c, "/etc/bin", "changed", 7, 0777,
                                             geteuid() == 0 ? 7 : HT_UID_ANY, HT_GID_ANY), 0);
        char *mid = tt_tree(f->dir);
        assert_string_not_equal(before, mid);
        assert_int_equal(ht_file_restore(f->c, s), 0);
        char *after = tt_tree(f->dir);
        assert_string_equal(before, after);

        /* removed in between: restored too */
        assert_int_equal(unlink(p), 0);
        assert_int_equal(ht_file_restore(f->c, s), 0);
        free(after);
        after = tt_tree(f->dir);
        assert_string_equal(before, after);

        ht_file_snapshot_free(s);
        free(p);
        free(before);
        free(mid);
        free(after);
}

static void test_snapshot_restore_absent(void **state) {
        fixture *f = *state;
        char *before = tt_tree(f->dir);
        ht_file_snapshot *s;
        assert_int_equal(ht_file_snapshot_take(f->c, "/etc/new/deeper/file.conf", &s), 0);
        assert_false(s->existed);
        assert_null(s->content);
        assert_int_equal(strv_length(s->missing_dirs), 2);
        assert_string_equal(s->missing_dirs[0], "/etc/new");
        assert_string_equal(s->missing_dirs[1], "/etc/new/deeper");
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/new/deeper/file.conf", "x", 1, 0644, HT_UID_ANY, HT_GID_ANY), 0);
        assert_true(tt_exists(f->dir, "etc/new/deeper/file.conf"));
        assert_int_equal(ht_file_restore(f->c, s), 0);
        char *after = tt_tree(f->dir);
        assert_string_equal(before, after);
        /* restoring again is harmless */
        assert_int_equal(ht_file_restore(f->c, s), 0);
        ht_file_snapshot_free(s);

        /* a directory someone else filled meanwhile stays */
        assert_int_equal(ht_file_snapshot_take(f->c, "/etc/new2/file.conf", &s), 0);
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/new2/file.conf", "x", 1, 0644, HT_UID_ANY, HT_GID_ANY), 0);
        tt_put(f->dir, "etc/new2/other", "theirs", 0644);
        assert_int_equal(ht_file_restore(f->c, s), 0);
        assert_false(tt_exists(f->dir, "etc/new2/file.conf"));
        assert_true(tt_exists(f->dir, "etc/new2/other"));
        ht_file_snapshot_free(s);
        free(before);
        free(after);
}

static void test_snapshot_refuses(void **state) {
        fixture *f = *state;
        ht_file_snapshot *s = NULL;
        assert_int_equal(ht_file_snapshot_take(f->c, "/etc/link", &s), -ELOOP);
        assert_int_equal(ht_file_snapshot_take(f->c, "/etc", &s), -EISDIR);
        char *p = xasprintf("%s/etc/fifo", f->dir);
        assert_int_equal(mkfifo(p, 0600), 0);
        assert_int_equal(ht_file_snapshot_take(f->c, "/etc/fifo", &s), -EINVAL);
        assert_int_equal(ht_file_snapshot_take(f->c, "/etc/plainfile/x", &s), -ENOTDIR);
        assert_int_equal(ht_file_snapshot_take(f->c, "relative", &s), -EINVAL);
        assert_null(s);
        unlink(p);
        free(p);
}

static void test_remove_file(void **state) {
        fixture *f = *state;
        tt_put(f->dir, "etc/gone", "bye", 0644);
        assert_int_equal(ht_remove_file(f->c, "/etc/gone"), 0);
        assert_false(tt_exists(f->dir, "etc/gone"));
        assert_int_equal(ht_remove_file(f->c, "/etc/gone"), 0);
        assert_int_equal(ht_remove_file(f->c, "/etc/missing-dir/gone"), 0);
        assert_int_equal(ht_remove_file(f->c, "/etc/link"), -ELOOP);
        assert_true(tt_exists(f->dir, "etc/link"));
        assert_int_equal(ht_remove_file(f->c, "/etc"), -EISDIR);
}

static void test_cleanup_temp_files(void **state) {
        fixture *f = *state;
        tt_put(f->dir, "etc/.#keep.conf.0123456789abcdef", "stale", 0600);
        tt_put(f->dir, "etc/.#keep.conf.notrandom", "other", 0600);
        tt_put(f->dir, "etc/.#other.0123456789abcdef", "other", 0600);
        assert_int_equal(ht_cleanup_temp_files(f->c, "/etc/keep.conf"), 1);
        assert_false(tt_exists(f->dir, "etc/.#keep.conf.0123456789abcdef"));
        assert_true(tt_exists(f->dir, "etc/.#keep.conf.notrandom"));
        assert_true(tt_exists(f->dir, "etc/.#other.0123456789abcdef"));
        assert_int_equal(ht_cleanup_temp_files(f->c, "/nonexistent/x"), 0);
}

static void test_kernel_value(void **state) {
        fixture *f = *state;
        char *rb = NULL;
        assert_int_equal(ht_write_kernel_value(f->c, "/proc/sys/vm/swappiness", "10", &rb), 0);
        assert_string_equal(rb, "10");
        free(rb);
        assert_file(f, "proc/sys/vm/swappiness", "10\n");
        /* a shorter value replaces a longer one completely */
        tt_put(f->dir, "proc/sys/vm/swappiness", "1000000\n", 0644);
        assert_int_equal(ht_write_kernel_value(f->c, "/proc/sys/vm/swappiness", "5", NULL), 0);
        assert_file(f, "proc/sys/vm/swappiness", "5\n");
        /* tabs are fine (kernel.sem), newlines are injection */
        assert_int_equal(ht_write_kernel_value(f->c, "/proc/sys/vm/swappiness", "1\t2", &rb), 0);
        assert_string_equal(rb, "1\t2");
        free(rb);
        /* a fixture's sysctl of integer fields prints them as the kernel's
         * proc_dointvec does, tab-separated, however they were written */
        assert_int_equal(ht_write_kernel_value(f->c, "/proc/sys/vm/swappiness", " 9000  65500", &rb), 0);
        assert_string_equal(rb, "9000\t65500");
        free(rb);
        assert_int_equal(ht_write_kernel_value(f->c, "/proc/sys/vm/swappiness", "a  b", &rb), 0);
        assert_string_equal(rb, "a  b");
        free(rb);
        rb = NULL;
        assert_int_equal(ht_write_kernel_value(f->c, "/proc/sys/vm/swappiness", "1\nvm.x=2", &rb), -EINVAL);
        assert_null(rb);
        /* never creates, never follows a link, never a directory */
        assert_int_equal(ht_write_kernel_value(f->c, "/proc/sys/vm/nosuch", "1", NULL), -ENOENT);
        assert_false(tt_exists(f->dir, "proc/sys/vm/nosuch"));
        assert_int_equal(ht_write_kernel_value(f->c, "/etc/link", "1", NULL), -ELOOP);
        assert_int_equal(ht_write_kernel_value(f->c, "/proc/sys/vm", "1", NULL), -EISDIR);
        assert_file(f, "etc/target", "link target\n");
}

/* A fixture's stand-in for a kernel choice file behaves as the kernel's:
 * one of its words is taken and shown marked; the three words it shows,
 * or a word it does not offer, are refused and leave it as it was. */
static void test_kernel_choice(void **state) {
        fixture *f = *state;
        const char *thp = "/sys/kernel/mm/transparent_hugepage/enabled";
        tt_mkdir(f->dir, "sys");
        tt_mkdir(f->dir, "sys/kernel");
        tt_mkdir(f->dir, "sys/kernel/mm");
        tt_mkdir(f->dir, "sys/kernel/mm/transparent_hugepage");
        tt_put(f->dir, "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n", 0644);
        char *rb = NULL;
        assert_int_equal(ht_write_kernel_value(f->c, thp, "never", &rb), 0);
        assert_string_equal(rb, "always madvise [never]");
        free(rb);
        assert_int_equal(ht_write_kernel_value(f->c, thp, "always [madvise] never", NULL), -EINVAL);
        assert_int_equal(ht_write_kernel_value(f->c, thp, "sometimes", NULL), -EINVAL);
        assert_int_equal(ht_write_kernel_value(f->c, thp, "", NULL), -EINVAL);
        assert_file(f, "sys/kernel/mm/transparent_hugepage/enabled", "always madvise [never]\n");
        /* what rollback writes back: the word the list had marked */
        char *w = ht_kernel_value_to_restore("always [madvise] never");
        assert_string_equal(w, "madvise");
        assert_int_equal(ht_write_kernel_value(f->c, thp, w, NULL), 0);
        free(w);
        assert_file(f, "sys/kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");
}

/* The form the journal keeps and rollback writes back: what the kernel
 * takes on write, whatever it printed. */
static void test_kernel_value_to_restore(void **state) {
        (void)state;
        static const struct {
                const char *raw, *want;
        } cases[] = {
                /* choice lists: the marked word (mm/huge_memory.c, mm/shmem.c, block/elevator.c) */
                {"always [madvise] never", "madvise"},
                {"[always] madvise never", "always"},
                {"always defer defer+madvise [madvise] never", "madvise"},
                {"always defer [defer+madvise] madvise never", "defer+madvise"},
                {"always within_size advise [never] deny force", "never"},
                {"[mq-deadline] kyber bfq none", "mq-deadline"},
                {"mq-deadline kyber [bfq] none", "bfq"},
                {"[none] mq-deadline", "none"},
                {"always inherit [madvise] never", "madvise"},
                {"[never]", "never"},
                {"always\t[madvise]\tnever", "madvise"},
                /* integer fields: one space between them (kernel.sem, ip_local_port_range, tcp_rmem) */
                {"32000\t1024000000\t500\t32000", "32000 1024000000 500 32000"},
                {"32768\t60999", "32768 60999"},
                {"4096\t131072\t6291456", "4096 131072 6291456"},
                {"4\t4\t1\t7", "4 4 1 7"},
                {"  250   32000 ", "250 32000"},
                {"-1\t5", "-1 5"},
                {"60", "60"},
                {"18446744073692774399", "18446744073692774399"},
                /* anything else exactly as read: a string's blanks are its own */
                {"|/usr/lib/systemd/systemd-coredump %P %u  %g", "|/usr/lib/systemd/systemd-coredump %P %u  %g"},
                {"core", "core"},
                {"1 2 x", "1 2 x"},
                {"", ""},
                /* not a choice list: more than one mark, or a mark around blanks or nothing */
                {"[a] [b]", "[a] [b]"},
                {"[a b]", "[a b]"},
                {"a [] b", "a [] b"},
                {"a [b]c", "a [b]c"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *w = ht_kernel_value_to_restore(cases[i].raw);
                if (strcmp(w, cases[i].want) != 0)
                        fail_msg("'%s': got '%s', want '%s'", cases[i].raw, w, cases[i].want);
                free(w);
        }
}

static void test_read_file_at(void **state) {
        fixture *f = *state;
        int dfd = open(f->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        assert_true(dfd >= 0);
        char *s;
        size_t len;
        int etc = openat(dfd, "etc", O_PATH | O_DIRECTORY | O_CLOEXEC);
        assert_int_equal(ht_read_file_at(etc, "target", 100, &s, &len), 0);
        assert_string_equal(s, "link target\n");
        assert_int_equal(len, 12);
        free(s);
        assert_int_equal(ht_read_file_at(etc, "link", 100, &s, &len), -ELOOP);
        assert_int_equal(ht_read_file_at(etc, "target", 5, &s, &len), -EFBIG);
        assert_int_equal(ht_write_file_atomic_at(etc, "sub/x", "", 0, 0644, HT_UID_ANY, HT_GID_ANY), -EINVAL);
        close(etc);
        close(dfd);
}

/* Profiles and rules by path (issue 34): opened in their directory's fd,
 * which is opened and checked once; a directory replaced under the same
 * name is opened anew, a link in it still read (and where it leads
 * checked), a FIFO refused without a hang. */
static void test_read_trusted_path(void **state) {
        fixture *f = *state;
        /* the checks on, whatever the suite's environment says */
        char *insecure = getenv("HOSTTUNE_INSECURE_PROFILES") ? xstrdup(getenv("HOSTTUNE_INSECURE_PROFILES")) : NULL;
        unsetenv("HOSTTUNE_INSECURE_PROFILES");
        tt_mkdir(f->dir, "p");
        tt_put(f->dir, "p/a.profile", "a = 1;\n", 0644);
        tt_put(f->dir, "etc/b.profile", "b = 2;\n", 0644);
        tt_symlink(f->dir, "../etc/b.profile", "p/b.profile");
        char *p = xasprintf("%s/p/a.profile", f->dir), *pb = xasprintf("%s/p/b.profile", f->dir);
        char *pf = xasprintf("%s/p/fifo.profile", f->dir), *pn = xasprintf("%s/p/none.profile", f->dir);
        assert_int_equal(mkfifo(pf, 0644), 0);
        char *s = NULL, *err = NULL;
        size_t len;
        assert_int_equal(ht_read_trusted_path(p, 1024, &s, &len, &err), 0);
        assert_string_equal(s, "a = 1;\n");
        free(s);
        assert_int_equal(ht_read_trusted_path(pb, 1024, &s, &len, &err), 0);
        assert_string_equal(s, "b = 2;\n");
        free(s);
        assert_int_equal(ht_read_trusted_path(pf, 1024, &s, &len, &err), -EINVAL);
        assert_non_null(strstr(err, "not a regular file"));
        free(err);
        err = NULL;
        assert_int_equal(ht_read_trusted_path(pn, 1024, &s, &len, &err), -ENOENT);
        assert_non_null(strstr(err, pn));
        free(err);
        err = NULL;
        /* the directory moved away and another made in its place */
        char *from = xasprintf("%s/p", f->dir), *to = xasprintf("%s/p-old", f->dir);
        assert_int_equal(rename(from, to), 0);
        tt_mkdir(f->dir, "p");
        tt_put(f->dir, "p/new.profile", "new = 3;\n", 0644);
        char *pnew = xasprintf("%s/p/new.profile", f->dir);
        assert_int_equal(ht_read_trusted_path(pnew, 1024, &s, &len, &err), 0);
        assert_string_equal(s, "new = 3;\n");
        free(s);
        /* removed and made again: the name is looked up anew */
        tt_rm_rf(from);
        tt_mkdir(f->dir, "p");
        tt_put(f->dir, "p/a.profile", "a = 4;\n", 0644);
        assert_int_equal(ht_read_trusted_path(p, 1024, &s, &len, &err), 0);
        assert_string_equal(s, "a = 4;\n");
        free(s);
        /* a directory others may write: refused, naming it */
        tt_mkdir(f->dir, "q");
        tt_put(f->dir, "q/a.profile", "a = 5;\n", 0644);
        char *q = xasprintf("%s/q", f->dir), *pq = xasprintf("%s/q/a.profile", f->dir);
        assert_int_equal(chmod(q, 0777), 0);
        assert_true(ht_read_trusted_path(pq, 1024, &s, &len, &err) < 0);
        assert_non_null(strstr(err, "writable by group or others"));
        free(err);
        free(q);
        free(pq);
        free(pnew);
        free(from);
        free(to);
        free(p);
        free(pb);
        free(pf);
        free(pn);
        if (insecure)
                setenv("HOSTTUNE_INSECURE_PROFILES", insecure, 1);
        free(insecure);
}

/* The directories above a checked profile directory are kept as passed
 * (issue 34: the rules directory beside the profiles' one stats /tmp and
 * / once): a chain that reaches one stops there, but the directory
 * searched is always held to its own, stricter rule, and a directory not
 * seen before on the way is checked. */
static void test_trusted_chain_memo(void **state) {
        fixture *f = *state;
        char *insecure = getenv("HOSTTUNE_INSECURE_PROFILES") ? xstrdup(getenv("HOSTTUNE_INSECURE_PROFILES")) : NULL;
        unsetenv("HOSTTUNE_INSECURE_PROFILES");
        tt_mkdir(f->dir, "t");
        tt_mkdir(f->dir, "t/ok");
        tt_mkdir(f->dir, "t/ok/x");
        tt_put(f->dir, "t/ok/x/a.profile", "a = 1;\n", 0644);
        tt_put(f->dir, "t/ok/a.profile", "a = 2;\n", 0644);
        tt_mkdir(f->dir, "t/m");
        tt_mkdir(f->dir, "t/m/n");
        tt_put(f->dir, "t/m/n/a.profile", "a = 3;\n", 0644);
        tt_mkdir(f->dir, "t/s");
        tt_mkdir(f->dir, "t/s/n");
        tt_put(f->dir, "t/s/n/a.profile", "a = 4;\n", 0644);
        char *px = xasprintf("%s/t/ok/x/a.profile", f->dir), *pok = xasprintf("%s/t/ok/a.profile", f->dir);
        char *pm = xasprintf("%s/t/m/n/a.profile", f->dir), *ps = xasprintf("%s/t/s/n/a.profile", f->dir);
        char *ok = xasprintf("%s/t/ok", f->dir), *m = xasprintf("%s/t/m", f->dir), *sd = xasprintf("%s/t/s", f->dir);
        char *s = NULL, *err = NULL;
        size_t len;
        assert_int_equal(ht_read_trusted_path(px, 1024, &s, &len, &err), 0);
        free(s);
        /* t/ok passed as a directory above x; searched itself, others
         * writing it is refused all the same */
        assert_int_equal(chmod(ok, 0777), 0);
        assert_true(ht_read_trusted_path(pok, 1024, &s, &len, &err) < 0);
        assert_non_null(strstr(err, "writable by group or others"));
        free(err);
        err = NULL;
        /* a directory on the way not seen before: checked (t above it known) */
        assert_int_equal(chmod(m, 0777), 0);
        assert_true(ht_read_trusted_path(pm, 1024, &s, &len, &err) < 0);
        assert_non_null(strstr(err, "writable by group or others"));
        free(err);
        err = NULL;
        /* sticky above the directory searched: allowed, as before */
        assert_int_equal(chmod(sd, 01777), 0);
        assert_int_equal(ht_read_trusted_path(ps, 1024, &s, &len, &err), 0);
        assert_string_equal(s, "a = 4;\n");
        free(s);
        free(px);
        free(pok);
        free(pm);
        free(ps);
        free(ok);
        free(m);
        free(sd);
        if (insecure)
                setenv("HOSTTUNE_INSECURE_PROFILES", insecure, 1);
        free(insecure);
}

/* A search directory a listing opened is handed over, not opened again
 * (issue 34), and checked at its first file as one opened by
 * ht_read_trusted_path itself: others writing it is refused all the
 * same; one that passes is read through the listing's fd. */
static void test_trusted_dir_offer(void **state) {
        fixture *f = *state;
        char *insecure = getenv("HOSTTUNE_INSECURE_PROFILES") ? xstrdup(getenv("HOSTTUNE_INSECURE_PROFILES")) : NULL;
        unsetenv("HOSTTUNE_INSECURE_PROFILES");
        tt_mkdir(f->dir, "lw");
        tt_put(f->dir, "lw/a.rules", "a = 1;\n", 0644);
        tt_mkdir(f->dir, "lok");
        tt_put(f->dir, "lok/a.rules", "a = 2;\n", 0644);
        char *lw = xasprintf("%s/lw", f->dir), *lok = xasprintf("%s/lok", f->dir);
        char *pw = xasprintf("%s/lw/a.rules", f->dir), *pok = xasprintf("%s/lok/a.rules", f->dir);
        assert_int_equal(chmod(lw, 0777), 0);
        int fd = open(lw, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(fd >= 0);
        ht_trusted_dir_offer(lw, fd);
        assert_false(ht_trusted_dir_kept(lw)); /* not checked yet */
        char *s = NULL, *err = NULL;
        size_t len;
        assert_true(ht_read_trusted_path(pw, 1024, &s, &len, &err) < 0);
        assert_non_null(strstr(err, "writable by group or others"));
        free(err);
        err = NULL;
        fd = open(lok, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(fd >= 0);
        ht_trusted_dir_offer(lok, fd);
        assert_int_equal(ht_read_trusted_path(pok, 1024, &s, &len, &err), 0);
        assert_string_equal(s, "a = 2;\n");
        free(s);
        assert_true(ht_trusted_dir_kept(lok));
        free(lw);
        free(lok);
        free(pw);
        free(pok);
        if (insecure)
                setenv("HOSTTUNE_INSECURE_PROFILES", insecure, 1);
        free(insecure);
}

/* Files other users control (issue 32): never a FIFO, device or file
 * over the bound, never what those users could not read themselves. */
static void test_read_file_untrusted(void **state) {
        fixture *f = *state;
        char *s = NULL, *why = NULL;
        size_t len;
        tt_mkdir(f->dir, "u01");
        tt_put(f->dir, "u01/init.ora", "*.sga_target=1G\n", 0640);
        char *p = xasprintf("%s/u01/fifo.ora", f->dir);
        assert_int_equal(mkfifo(p, 0644), 0);
        free(p);
        /* a FIFO: refused at once (no writer would ever come) */
        assert_int_equal(ht_read_file_untrusted(f->c, "/u01/fifo.ora", 1000, NULL, &s, &len, &why), -EINVAL);
        assert_string_equal(why, "a FIFO, not a regular file");
        free(why);
        /* a link to it, and to a directory */
        tt_symlink(f->dir, "fifo.ora", "u01/link.ora");
        assert_int_equal(ht_read_file_untrusted(f->c, "/u01/link.ora", 1000, NULL, &s, &len, &why), -EINVAL);
        free(why);
        assert_int_equal(ht_read_file_untrusted(f->c, "/etc", 1000, NULL, &s, &len, &why), -EISDIR);
        free(why);
        /* the size bound, by fstat */
        assert_int_equal(ht_read_file_untrusted(f->c, "/u01/init.ora", 4, NULL, &s, &len, &why), -EFBIG);
        assert_string_equal(why, "larger than 4 bytes (16)");
        free(why);
        assert_int_equal(ht_read_file_untrusted(f->c, "/u01/missing", 4, NULL, &s, &len, &why), -ENOENT);
        free(why);
        /* a regular file; nobody else controls it (all ours) */
        ht_controllers ctl = {0};
        assert_int_equal(ht_read_file_untrusted(f->c, "/u01/init.ora", 1000, &ctl, &s, &len, &why), 0);
        assert_string_equal(s, "*.sga_target=1G\n");
        assert_int_equal(len, 16);
        assert_int_equal(ctl.n, 0);
        assert_false(ctl.anyone);
        free(s);
        /* named by another user (uid 54321): they could not read a 0640
         * file of ours, so neither does hosttune for them */
        ctl = (ht_controllers){.n = 1, .uid = {54321}, .gid = {54321}};
        assert_int_equal(ht_read_file_untrusted(f->c, "/u01/init.ora", 1000, &ctl, &s, &len, &why), -EACCES);
        assert_non_null(strstr(why, "uid 54321"));
        free(why);
        /* readable by others: read */
        tt_put(f->dir, "u01/public.ora", "x=1\n", 0644);
        assert_int_equal(ht_read_file_untrusted(f->c, "/u01/public.ora", 1000, &ctl, &s, &len, &why), 0);
        free(s);
        /* a directory writable by others on the way: anyone controls it */
        p = xasprintf("%s/u01", f->dir);
        assert_int_equal(chmod(p, 0777), 0);
        ctl = (ht_controllers){0};
        assert_int_equal(ht_read_file_untrusted(f->c, "/u01/init.ora", 1000, &ctl, &s, &len, &why), -EACCES);
        free(why);
        ctl = (ht_controllers){0};
        assert_int_equal(ht_read_file_untrusted(f->c, "/u01/public.ora", 1000, &ctl, &s, &len, &why), 0);
        assert_true(ctl.anyone);
        free(s);
        assert_int_equal(chmod(p, 0755), 0);
        free(p);
}

/* The controllers' rule on its own: owner, others' read bit, the group
 * of what the controller owns. */
static void test_controllers(void **state) {
        (void)state;
        ht_controllers w = {0};
        struct stat dir = {.st_uid = 54321, .st_gid = 54322, .st_mode = S_IFDIR | 0755};
        ht_controllers_add(&w, &dir);
        ht_controllers_add(&w, &dir);
        assert_int_equal(w.n, 1);
        struct stat own = {.st_uid = 54321, .st_gid = 0, .st_mode = S_IFREG | 0600};
        struct stat shadow = {.st_uid = 0, .st_gid = 42, .st_mode = S_IFREG | 0640};
        struct stat grp = {.st_uid = 0, .st_gid = 54322, .st_mode = S_IFREG | 0640};
        struct stat pub = {.st_uid = 0, .st_gid = 0, .st_mode = S_IFREG | 0644};
        uid_t who = 0;
        assert_true(ht_controllers_can_read(&w, &own, NULL));
        assert_false(ht_controllers_can_read(&w, &shadow, &who));
        assert_int_equal(who, 54321);
        assert_true(ht_controllers_can_read(&w, &grp, NULL));
        assert_true(ht_controllers_can_read(&w, &pub, NULL));
        struct stat root_dir = {.st_uid = 0, .st_gid = 0, .st_mode = S_IFDIR | 0755};
        ht_controllers none = {0};
        ht_controllers_add(&none, &root_dir);
        assert_int_equal(none.n, 0);
        assert_true(ht_controllers_can_read(&none, &shadow, NULL));
        struct stat tmp = {.st_uid = 0, .st_gid = 0, .st_mode = S_IFDIR | 01777};
        ht_controllers_add(&none, &tmp);
        assert_true(none.anyone);
        assert_false(ht_controllers_can_read(&none, &own, &who));
        assert_int_equal(who, (uid_t)-1);
        assert_true(ht_controllers_can_read(&none, &pub, NULL));
        /* more owners than tracked: the strictest rule */
        ht_controllers many = {0};
        for (uid_t u = 1000; u < 1000 + HT_CONTROLLERS_MAX + 1; u++) {
                struct stat d = {.st_uid = u, .st_gid = u, .st_mode = S_IFDIR | 0755};
                ht_controllers_add(&many, &d);
        }
        assert_true(many.anyone);
}

static bool fd_open(int fd) { return fcntl(fd, F_GETFD) >= 0; }

/* Group commit's batch: more fds than it holds (it runs early), each
 * flushed and closed; an fd that cannot be fsynced (a pipe: EINVAL) is
 * the batch's error, and the others are flushed and closed all the same. */
static void test_fsync_batch(void **state) {
        fixture *f = *state;
        char *p = xasprintf("%s/etc/keep.conf", f->dir);
        ht_fsync_batch b = {0};
        int fds[HT_FSYNC_BATCH_MAX + 36];
        size_t n = sizeof(fds) / sizeof(fds[0]);
        for (size_t i = 0; i < n; i++) {
                fds[i] = open(p, O_RDONLY | O_CLOEXEC);
                assert_true(fds[i] >= 0);
                assert_int_equal(ht_fsync_batch_add(&b, fds[i]), 0);
        }
        assert_int_equal(b.n, n - HT_FSYNC_BATCH_MAX);  /* the first 64 ran when the 65th came */
        assert_int_equal(ht_fsync_batch_run(&b), 0);
        assert_int_equal(b.n, 0);
        for (size_t i = 0; i < n; i++)
                assert_false(fd_open(fds[i]));
        assert_int_equal(ht_fsync_batch_run(&b), 0);    /* empty */

        int pfd[2];
        assert_int_equal(pipe(pfd), 0);
        int a = open(p, O_RDONLY | O_CLOEXEC);
        assert_int_equal(ht_fsync_batch_add(&b, a), 0);
        assert_int_equal(ht_fsync_batch_add(&b, pfd[0]), 0);
        assert_int_equal(ht_fsync_batch_add_dir(&b, AT_FDCWD), 0);
        assert_int_equal(ht_fsync_batch_run(&b), -EINVAL);
        assert_false(fd_open(a));
        assert_false(fd_open(pfd[0]));
        close(pfd[1]);
        ht_fsync_batch_done(&b);
        free(p);
}

static bool has_temp(fixture *f, const char *rel_dir, const char *prefix) {
        char *d = xasprintf("%s/%s", f->dir, rel_dir);
        DIR *dir = opendir(d);
        bool found = false;
        for (struct dirent *e; dir && (e = readdir(dir));)
                found = found || strncmp(e->d_name, prefix, strlen(prefix)) == 0;
        if (dir)
                closedir(dir);
        free(d);
        return found;
}

/* An atomic replace in two steps: nothing changes at the file until its
 * install, and nothing in its directory (the temp file has no name yet);
 * the mode of an existing file is kept; new directories are
 * made; the directories' fsyncs wait in dirs; a staged file not installed
 * leaves no temp behind. */
static void test_staged_files(void **state) {
        fixture *f = *state;
        ht_fsync_batch data = {0}, dirs = {0};
        ht_staged_file a = {0}, b = {0}, c = {0};
        assert_int_equal(ht_stage_file(f->c, "/etc/keep.conf", "A\n", 2, 0644, 0, 0, &data, &dirs, &a), 0);
        assert_int_equal(ht_stage_file(f->c, "/etc/new.d/sub/x.conf", "B\n", 2, 0600, 0, 0, &data, &dirs, &b), 0);
        assert_int_equal(ht_stage_file(f->c, "/etc/plainfile", "C\n", 2, 0644, 0, 0, &data, &dirs, &c), 0);
        assert_int_equal(data.n, 3);
        assert_int_equal(dirs.n, 2);    /* the entries of etc/new.d and new.d/sub */
        assert_file(f, "etc/keep.conf", "old contents\n");
        /* unnamed until installed (O_TMPFILE): a crash now leaves nothing
         * in the directory, whatever record named the file */
        assert_false(has_temp(f, "etc", ".#"));
        assert_int_equal(ht_fsync_batch_run(&data), 0);
        assert_int_equal(ht_staged_file_install(f->c, &a, &dirs), 0);
        assert_int_equal(ht_staged_file_install(f->c, &b, &dirs), 0);
        assert_int_equal(dirs.n, 4);
        assert_file(f, "etc/keep.conf", "A\n");
        assert_int_equal(st_of(f, "etc/keep.conf").st_mode & 07777, 0640);
        assert_file(f, "etc/new.d/sub/x.conf", "B\n");
        assert_int_equal(st_of(f, "etc/new.d/sub/x.conf").st_mode & 07777, 0600);
        assert_int_equal(ht_staged_file_install(f->c, &a, &dirs), -EINVAL);     /* once */
        assert_int_equal(ht_fsync_batch_run(&dirs), 0);
        ht_staged_file_done(&a);
        ht_staged_file_done(&b);
        ht_staged_file_done(&c);        /* never installed: its temp goes */
        assert_file(f, "etc/plainfile", "x");
        assert_false(has_temp(f, "etc", ".#"));
        assert_false(has_temp(f, "etc/new.d/sub", ".#"));
        ht_fsync_batch_done(&data);
        ht_fsync_batch_done(&dirs);
}

/* The xattr value of rel, or NULL. */
static char *xattr_of(fixture *f, const char *rel, const char *name) {
        char *p = xasprintf("%s/%s", f->dir, rel);
        char buf[256];
        ssize_t n = lgetxattr(p, name, buf, sizeof(buf) - 1);
        free(p);
        if (n < 0)
                return NULL;
        buf[n] = '\0';
        return xstrdup(buf);
}

static void assert_xattr(fixture *f, const char *rel, const char *name, const char *want) {
        char *v = xattr_of(f, rel, name);
        if (!want) {
                assert_null(v);
                return;
        }
        assert_non_null(v);
        assert_string_equal(v, want);
        free(v);
}

/* A replace by rename is a new inode: the old file's ACL, SELinux label
 * and user attributes must be put on it, by every way a file is
 * replaced (an apply's staged file, a plain write, a restore). */
static void test_write_keeps_xattrs(void **state) {
        fixture *f = *state;
        char *p = xasprintf("%s/etc/keep.conf", f->dir);
        if (setxattr(p, "user.ht", "kept", 4, 0) < 0) {
                free(p);
                skip();         /* a filesystem without user xattrs */
        }
        bool root = geteuid() == 0;
        /* user:4321:r-- on top of 0640 (the ACL's binary form: version 2,
         * then tag, perm, id entries) */
        static const unsigned char acl[] = {
                2, 0, 0, 0,
                1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff,     /* user::rw- */
                2, 0, 4, 0, 0xe1, 0x10, 0, 0,           /* user:4321:r-- */
                4, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,     /* group::r-- */
                0x10, 0, 4, 0, 0xff, 0xff, 0xff, 0xff,  /* mask::r-- */
                0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,  /* other::--- */
        };
        bool have_acl = setxattr(p, "system.posix_acl_access", acl, sizeof(acl), 0) == 0;
        if (root) {
                assert_int_equal(setxattr(p, "security.selinux", "system_u:object_r:etc_t:s0", 26, 0), 0);
                assert_int_equal(setxattr(p, "security.ima", "\x03\x02", 2, 0), 0);
        }
        char acl_before[sizeof(acl)];
        ssize_t acl_len = have_acl ? getxattr(p, "system.posix_acl_access", acl_before, sizeof(acl_before)) : 0;

        for (int way = 0; way < 3; way++) {
                char data[32];
                snprintf(data, sizeof(data), "way %d\n", way);
                if (way == 0) {
                        ht_fsync_batch b = {0}, dirs = {0};
                        ht_staged_file s = {0};
                        assert_int_equal(ht_stage_file(f->c, "/etc/keep.conf", data, strlen(data), 0644, 0, 0, &b,
                                                       &dirs, &s), 0);
                        assert_int_equal(ht_fsync_batch_run(&b), 0);
                        assert_int_equal(ht_staged_file_install(f->c, &s, &dirs), 0);
                        ht_staged_file_done(&s);
                        ht_fsync_batch_done(&b);
                        ht_fsync_batch_done(&dirs);
                } else if (way == 1)
                        assert_int_equal(ht_write_file_atomic(f->c, "/etc/keep.conf", data, strlen(data), 0644,
                                                              HT_UID_ANY, HT_GID_ANY), 0);
                else
                        assert_int_equal(ht_write_file_exact(f->c, "/etc/keep.conf", data, strlen(data), 0640,
                                                             geteuid(), getegid()), 0);
                assert_file(f, "etc/keep.conf", data);
                assert_int_equal(st_of(f, "etc/keep.conf").st_mode & 07777, 0640);
                assert_xattr(f, "etc/keep.conf", "user.ht", "kept");
                if (have_acl) {
                        char acl_after[sizeof(acl)];
                        assert_int_equal(getxattr(p, "system.posix_acl_access", acl_after, sizeof(acl_after)),
                                         acl_len);
                        assert_memory_equal(acl_after, acl_before, (size_t)acl_len);
                }
                if (root) {
                        assert_xattr(f, "etc/keep.conf", "security.selinux", "system_u:object_r:etc_t:s0");
                        /* the old content's hash is not the new one's */
                        assert_xattr(f, "etc/keep.conf", "security.ima", NULL);
                }
        }
        free(p);
}

/* A file with other hard links: replacing one name would leave the
 * others with the old content. Refused, nothing changed; a restore
 * (exact) puts back what it finds. */
static void test_write_refuses_hard_links(void **state) {
        fixture *f = *state;
        char *p = xasprintf("%s/etc/keep.conf", f->dir), *q = xasprintf("%s/etc/keep.bak", f->dir);
        assert_int_equal(link(p, q), 0);
        char *before = tt_tree(f->dir);
        ht_fsync_batch b = {0}, dirs = {0};
        ht_staged_file s = {0};
        assert_int_equal(ht_stage_file(f->c, "/etc/keep.conf", "x\n", 2, 0644, 0, 0, &b, &dirs, &s), -EMLINK);
        assert_int_equal(ht_write_file_atomic(f->c, "/etc/keep.conf", "x\n", 2, 0644, HT_UID_ANY, HT_GID_ANY),
                         -EMLINK);
        char *after = tt_tree(f->dir);
        assert_string_equal(before, after);
        assert_int_equal(st_of(f, "etc/keep.conf").st_nlink, 2);
        assert_int_equal(ht_write_file_exact(f->c, "/etc/keep.conf", "x\n", 2, 0640, geteuid(), getegid()), 0);
        assert_file(f, "etc/keep.conf", "x\n");
        ht_fsync_batch_done(&b);
        ht_fsync_batch_done(&dirs);
        free(before);
        free(after);
        free(p);
        free(q);
}

/* chattr +i or +a: the rename over the file fails with EPERM, so the
 * write is refused before anything (an apply's stage, before any file
 * of it is renamed), and the hint names the flag, not the directories. */
static void test_write_refuses_locked_files(void **state) {
        fixture *f = *state;
        if (geteuid() != 0)
                skip();
        static const struct {
                int flag;
                const char *word;
        } cases[] = {{FS_IMMUTABLE_FL, "immutable"}, {FS_APPEND_FL, "append-only"}};
        char *p = xasprintf("%s/etc/keep.conf", f->dir);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int fd = open(p, O_RDONLY | O_CLOEXEC);
                assert_true(fd >= 0);
                /* the kernel reads an int; the ioctl's number (and so
                 * valgrind) says a long */
                union {
                        int i;
                        long l;
                } flags = {.l = 0};
                flags.i = cases[i].flag;
                if (ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0) {
                        close(fd);
                        free(p);
                        skip(); /* a filesystem without the flags (tmpfs before 6.0) */
                }
                char *before = tt_tree(f->dir);
                ht_fsync_batch b = {0}, dirs = {0};
                ht_staged_file s = {0};
                assert_int_equal(ht_stage_file(f->c, "/etc/keep.conf", "x\n", 2, 0644, 0, 0, &b, &dirs, &s), -EPERM);
                char *after = tt_tree(f->dir);
                assert_string_equal(before, after);
                char *hint = ht_locked_file_hint(f->c, "/etc/keep.conf");
                assert_non_null(hint);
                assert_non_null(strstr(hint, cases[i].word));
                assert_non_null(strstr(hint, "keep.conf"));
                free(hint);
                flags.i = 0;
                assert_int_equal(ioctl(fd, FS_IOC_SETFLAGS, &flags), 0);
                close(fd);
                /* unlocked: no hint, and the write goes through */
                assert_null(ht_locked_file_hint(f->c, "/etc/keep.conf"));
                assert_int_equal(ht_write_file_atomic(f->c, "/etc/keep.conf", "x\n", 2, 0644, 0, 0), 0);
                ht_fsync_batch_done(&b);
                ht_fsync_batch_done(&dirs);
                free(before);
                free(after);
        }
        free(p);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_write_keeps_mode_and_owner, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_new_file_creates_parents, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_refuses_links_and_specials, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_through_dir_link_inside_root, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_error_leaves_no_temp, setup, teardown),
                cmocka_unit_test_setup_teardown(test_snapshot_restore_existing, setup, teardown),
                cmocka_unit_test_setup_teardown(test_snapshot_restore_absent, setup, teardown),
                cmocka_unit_test_setup_teardown(test_snapshot_refuses, setup, teardown),
                cmocka_unit_test_setup_teardown(test_remove_file, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cleanup_temp_files, setup, teardown),
                cmocka_unit_test_setup_teardown(test_kernel_value, setup, teardown),
                cmocka_unit_test_setup_teardown(test_kernel_choice, setup, teardown),
                cmocka_unit_test(test_kernel_value_to_restore),
                cmocka_unit_test_setup_teardown(test_read_file_at, setup, teardown),
                cmocka_unit_test_setup_teardown(test_read_file_untrusted, setup, teardown),
                cmocka_unit_test_setup_teardown(test_read_trusted_path, setup, teardown),
                cmocka_unit_test_setup_teardown(test_trusted_chain_memo, setup, teardown),
                cmocka_unit_test_setup_teardown(test_trusted_dir_offer, setup, teardown),
                cmocka_unit_test(test_controllers),
                cmocka_unit_test_setup_teardown(test_fsync_batch, setup, teardown),
                cmocka_unit_test_setup_teardown(test_staged_files, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_keeps_xattrs, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_refuses_hard_links, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_refuses_locked_files, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
