#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "accounts.h"
#include "context.h"
#include "edit-grub.h"
#include "fileio.h"
#include "format-grub-defaults.h"
#include "util.h"

static char tmpl[] = "/tmp/ht-ctx-XXXXXX";

static void put(const char *rel, const char *content) {
        char *p = xasprintf("%s/%s", tmpl, rel);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fputs(content, f);
        fclose(f);
        free(p);
}

static void mk(const char *rel) {
        char *p = xasprintf("%s/%s", tmpl, rel);
        assert_int_equal(mkdir(p, 0755), 0);
        free(p);
}

static void ln(const char *target, const char *rel) {
        char *p = xasprintf("%s/%s", tmpl, rel);
        assert_int_equal(symlink(target, p), 0);
        free(p);
}

static int setup(void **state) {
        if (!mkdtemp(tmpl))
                return -1;
        mk("etc");
        mk("usr");
        mk("usr/lib");
        mk("outside-dir");
        put("usr/lib/os-release", "ID=debian\n");
        ln("../usr/lib/os-release", "etc/os-release");   /* relative, inside */
        ln("/usr/lib/os-release", "etc/abs-link");       /* absolute: root's own / */
        ln("../../../../../../etc/passwd", "etc/escape"); /* climbs out */
        ln("../usr/lib", "etc/libdir");                  /* a directory link mid-path */
        ln("/usr", "etc/abs-usr");                       /* absolute, mid-path */
        mk("usr/deep");
        /* absolute (so walked even where openat2 is), climbing back with ".." */
        ln("/usr/deep/../lib/./os-release", "etc/abs-dotdot");
        ln("/usr/deep/../lib", "etc/abs-dotdot-dir");
        ln("/usr/deep/..", "etc/abs-up");                /* ends on ".." */
        ln("loop2", "etc/loop1");
        ln("loop1", "etc/loop2");
        ht_context *c;
        assert_int_equal(ht_context_new(tmpl, &c), 0);
        *state = c;
        return 0;
}

static int teardown(void **state) {
        ht_context_free(*state);
        char *cmd[] = {"rm", "-rf", tmpl, NULL};
        pid_t pid = fork();
        if (pid == 0) {
                execvp(cmd[0], cmd);
                _exit(127);
        }
        int st;
        waitpid(pid, &st, 0);
        return 0;
}

static void test_read_through_links(void **state) {
        ht_context *c = *state;
        char *s;
        assert_int_equal(ht_read_file(c, "/etc/os-release", 4096, &s, NULL), 0);
        assert_string_equal(s, "ID=debian\n");
        free(s);
        assert_int_equal(ht_read_line(c, "/etc/abs-link", &s), 0);
        assert_string_equal(s, "ID=debian");
        free(s);
}

/* Sizes around the read buffer's first size and its doublings, the
 * maximum, and a directory (read() says EISDIR; there is no fstat). */
static void test_read_sizes(void **state) {
        ht_context *c = *state;
        static const size_t sizes[] = {0, 1, 1022, 1023, 1024, 1025, 2047, 2048, 4095, 4096, 65537, 300000};
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                _cleanup_free_ char *want = xmalloc(sizes[i] + 1);
                for (size_t k = 0; k < sizes[i]; k++)
                        want[k] = (char)('a' + k % 26);
                want[sizes[i]] = 0;
                int fd = ht_open(c, "/etc/sized", O_WRONLY | O_CREAT | O_TRUNC, 0644);
                assert_true(fd >= 0);
                assert_int_equal(write(fd, want, sizes[i]), (ssize_t)sizes[i]);
                close(fd);
                char *got;
                size_t len;
                assert_int_equal(ht_read_file(c, "/etc/sized", 1 << 20, &got, &len), 0);
                assert_int_equal(len, sizes[i]);
                assert_string_equal(got, want);
                free(got);
                if (sizes[i] > 0)
                        assert_int_equal(ht_read_file(c, "/etc/sized", sizes[i] - 1, &got, &len), -EFBIG);
        }
        char *s = NULL;
        assert_int_equal(ht_read_file(c, "/etc", 4096, &s, NULL), -EISDIR);
        assert_null(s);
}

static void test_refuse_escape(void **state) {
        ht_context *c = *state;
        char *s = NULL;
        assert_int_equal(ht_read_file(c, "/etc/escape", 4096, &s, NULL), -EXDEV);
        assert_null(s);
        assert_int_equal(ht_read_file(c, "/etc/../etc/os-release", 4096, &s, NULL), -EINVAL);
        assert_int_equal(ht_read_file(c, "etc/os-release", 4096, &s, NULL), -EINVAL);
        assert_int_equal(ht_read_file(c, "/etc/loop1", 4096, &s, NULL), -ELOOP);
        assert_int_equal(ht_read_file(c, "/etc/missing", 4096, &s, NULL), -ENOENT);
}

static void test_create_does_not_follow(void **state) {
        ht_context *c = *state;
        /* writing to a symlinked name must fail rather than write through it */
        int fd = ht_open(c, "/etc/os-release", O_WRONLY | O_CREAT, 0644);
        assert_true(fd == -ELOOP);
        fd = ht_open(c, "/etc/new-file", O_WRONLY | O_CREAT | O_EXCL, 0644);
        assert_true(fd >= 0);
        close(fd);
        assert_true(ht_exists(c, "/etc/new-file"));
}

/* openat2(RESOLVE_BENEATH) answers most opens; what it refuses (absolute
 * links, escapes) falls back to the component walk: both must agree. */
static void test_links_mid_path(void **state) {
        ht_context *c = *state;
        char *s;
        assert_int_equal(ht_read_file(c, "/etc/libdir/os-release", 4096, &s, NULL), 0);
        assert_string_equal(s, "ID=debian\n");
        free(s);
        assert_int_equal(ht_read_file(c, "/etc/abs-usr/lib/os-release", 4096, &s, NULL), 0);
        assert_string_equal(s, "ID=debian\n");
        free(s);
        assert_int_equal(ht_read_file(c, "/etc/libdir/missing", 4096, &s, NULL), -ENOENT);
        assert_int_equal(ht_read_file(c, "/usr/lib/os-release/x", 4096, &s, NULL), -ENOTDIR);
        assert_int_equal(ht_read_file(c, "/etc/escape/x", 4096, &s, NULL), -EXDEV);
        /* ".." in a link's target re-opens the directories walked */
        assert_int_equal(ht_read_file(c, "/etc/abs-dotdot", 4096, &s, NULL), 0);
        assert_string_equal(s, "ID=debian\n");
        free(s);
        assert_int_equal(ht_read_file(c, "/etc/abs-dotdot-dir/os-release", 4096, &s, NULL), 0);
        assert_string_equal(s, "ID=debian\n");
        free(s);
        struct stat st;
        assert_int_equal(ht_stat(c, "/etc/abs-dotdot-dir", &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(ht_read_file(c, "/etc/abs-up/lib/os-release", 4096, &s, NULL), 0);
        assert_string_equal(s, "ID=debian\n");
        free(s);
        assert_int_equal(ht_stat(c, "/etc/abs-up", &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        char **l;
        assert_int_equal(ht_list_dir(c, "/etc/abs-usr/lib", NULL, &l), 0);
        assert_int_equal(strv_length(l), 1);
        strv_free(l);
}

static void test_stat_and_lstat(void **state) {
        ht_context *c = *state;
        struct stat st;
        assert_int_equal(ht_stat(c, "/etc/os-release", &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(ht_lstat(c, "/etc/os-release", &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        assert_int_equal(ht_stat(c, "/etc/abs-link", &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(ht_lstat(c, "/etc/abs-link", &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        assert_int_equal(ht_stat(c, "/etc/libdir", &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(ht_stat(c, "/", &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(ht_stat(c, "/etc/escape", &st), -EXDEV);
        assert_int_equal(ht_stat(c, "/etc/nothing", &st), -ENOENT);
        assert_int_equal(ht_stat(c, "/etc/../etc", &st), -EINVAL);
        assert_false(ht_exists(c, "/etc/loop1"));
}

static void test_list_dir(void **state) {
        ht_context *c = *state;
        char **l;
        assert_int_equal(ht_list_dir(c, "/usr/lib", NULL, &l), 0);
        assert_int_equal(strv_length(l), 1);
        assert_string_equal(l[0], "os-release");
        strv_free(l);
        assert_int_equal(ht_list_dir(c, "/nonexistent", NULL, &l), 0);
        assert_int_equal(strv_length(l), 0);
        strv_free(l);
}

static char *read_or_null(ht_context *c, const char *path) {
        char *s = NULL;
        return ht_read_file(c, path, 4096, &s, NULL) == 0 ? s : NULL;
}

/* The per-plan cache (issue 34): a second read is served from memory,
 * but never after a write through the context, and not after end. */
static void test_read_cache(void **state) {
        ht_context *c = *state;
        char *s;
        put("etc/cached", "one\n");
        ht_context_cache_begin(c);
        s = read_or_null(c, "/etc/cached");
        assert_string_equal(s, "one\n");
        free(s);
        /* changed behind the context's back: the plan's reading stands */
        put("etc/cached", "two\n");
        s = read_or_null(c, "/etc/cached");
        assert_string_equal(s, "one\n");
        free(s);
        assert_int_equal(ht_read_file(c, "/etc/cached", 2, &s, NULL), -EFBIG);
        assert_int_equal(ht_read_line(c, "/etc/cached", &s), 0);
        assert_string_equal(s, "one");
        free(s);
        /* a write through the context drops what was kept */
        assert_int_equal(ht_write_file_atomic(c, "/etc/cached", "three\n", 6, 0644, HT_UID_ANY, HT_GID_ANY), 0);
        s = read_or_null(c, "/etc/cached");
        assert_string_equal(s, "three\n");
        free(s);
        /* so does an open for writing, and a kernel value's write */
        int fd = ht_open(c, "/etc/cached", O_WRONLY | O_TRUNC, 0);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "four\n", 5), 5);
        close(fd);
        s = read_or_null(c, "/etc/cached");
        assert_string_equal(s, "four\n");
        free(s);
        char *back = NULL;
        assert_int_equal(ht_write_kernel_value(c, "/etc/cached", "5", &back), 0);
        assert_string_equal(back, "5");
        free(back);
        assert_int_equal(ht_remove_file(c, "/etc/cached"), 0);
        assert_null(read_or_null(c, "/etc/cached"));
        /* after end, every read is the file's */
        put("etc/cached", "six\n");
        s = read_or_null(c, "/etc/cached");
        assert_string_equal(s, "six\n");
        free(s);
        ht_context_cache_end(c);
        put("etc/cached", "seven\n");
        s = read_or_null(c, "/etc/cached");
        assert_string_equal(s, "seven\n");
        free(s);
}

/* A directory's listing is kept for the plan like a file: the same list
 * twice, from one read; a write through the context drops it. */
static void test_list_cache(void **state) {
        ht_context *c = *state;
        mk("etc/listed.d");
        put("etc/listed.d/b.conf", "b\n");
        put("etc/listed.d/a.conf", "a\n");
        put("etc/listed.d/notes", "n\n");
        ht_context_cache_begin(c);
        char **l = NULL;
        assert_int_equal(ht_list_dir(c, "/etc/listed.d", ".conf", &l), 0);
        assert_int_equal(strv_length(l), 2);
        assert_string_equal(l[0], "a.conf");
        assert_string_equal(l[1], "b.conf");
        strv_free(l);
        /* added behind the context's back: the plan's listing stands,
         * filtered anew for each caller */
        put("etc/listed.d/c.conf", "c\n");
        assert_int_equal(ht_list_dir(c, "/etc/listed.d", NULL, &l), 0);
        assert_int_equal(strv_length(l), 3);
        assert_string_equal(l[2], "notes");
        strv_free(l);
        /* a file of the same name as the listing is read, not the list */
        char *s = NULL;
        assert_int_equal(ht_read_file(c, "/etc/listed.d", 4096, &s, NULL), -EISDIR);
        /* a write through the context drops it */
        assert_int_equal(ht_write_file_atomic(c, "/etc/listed.d/d.conf", "d\n", 2, 0644, HT_UID_ANY, HT_GID_ANY),
                         0);
        assert_int_equal(ht_list_dir(c, "/etc/listed.d", ".conf", &l), 0);
        assert_int_equal(strv_length(l), 4);
        assert_string_equal(l[2], "c.conf");
        assert_string_equal(l[3], "d.conf");
        strv_free(l);
        /* a missing directory is an empty list, kept or not */
        assert_int_equal(ht_list_dir(c, "/etc/none.d", NULL, &l), 0);
        assert_null(l[0]);
        strv_free(l);
        ht_context_cache_end(c);
}

/* The value of name after content, evaluated through the kept parse. */
static char *grub_value(ht_context *c, const char *content, const char *name) {
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        char *err = NULL;
        assert_int_equal(ht_grub_eval_host(c, HT_GRUB_DEFAULTS, env, 0, content, strlen(content), &err), 0);
        const ht_grub_var *v = ht_grub_env_get(env, name);
        return v && v->value ? xstrdup(v->value) : NULL;
}

/* Beside the bytes the cache keeps what they parse to (issue 34): the
 * boot facts and the cmdline backend parse /etc/default/grub once, the
 * facts and the limits backend /etc/passwd once; a write through the
 * context drops the parse with the bytes, and an editor's text, or a
 * read with no cache, is parsed anew. */
static void test_parse_cache(void **state) {
        ht_context *c = *state;
        mk("etc/default");
        put("etc/default/grub", "GRUB_CMDLINE_LINUX=\"quiet\"\n");
        put("etc/passwd", "root:x:0:0::/root:/bin/sh\noracle:x:54321:54321::/home/oracle:/bin/bash\n");
        put("etc/group", "root:x:0:\ndba:x:54322:oracle\n");
        ht_context_cache_begin(c);

        char *text = read_or_null(c, HT_GRUB_DEFAULTS), *err = NULL;
        const ht_grub_file *f1 = NULL, *f2 = NULL;
        unsigned long n = ht_grub_parse_count();
        assert_int_equal(ht_grub_parse_host(c, HT_GRUB_DEFAULTS, text, strlen(text), &f1, &err), 0);
        assert_int_equal(ht_grub_parse_count(), n + 1);
        free(text);
        /* the second reader (a fresh copy of the bytes) gets the kept parse */
        text = read_or_null(c, HT_GRUB_DEFAULTS);
        assert_int_equal(ht_grub_parse_host(c, HT_GRUB_DEFAULTS, text, strlen(text), &f2, &err), 0);
        assert_ptr_equal(f1, f2);
        char *v = grub_value(c, text, "GRUB_CMDLINE_LINUX");
        assert_string_equal(v, "quiet");
        free(v);
        assert_int_equal(ht_grub_parse_count(), n + 1);
        /* an editor reads the kept parse and leaves it as it was */
        char *out = NULL;
        size_t out_len = 0;
        ht_cmdline_op op = {.kind = HT_CMDLINE_ADD, .key = "nosmt"};
        const ht_grub_file *fo = NULL;
        assert_int_equal(ht_grub_edit_parsed(f2, text, strlen(text), "GRUB_CMDLINE_LINUX", NULL, &op, 1, &out,
                                             &out_len, &fo, &err), 0);
        assert_string_equal(out, "GRUB_CMDLINE_LINUX=\"quiet nosmt\"\n");
        assert_int_equal(f1->n_assignments, 1);
        assert_int_equal(f1->assignments[0].value_end, strlen(text) - 1);
        ht_grub_file_free(f2);
        /* only the result is parsed (its check), and handed out */
        assert_int_equal(ht_grub_parse_count(), n + 2);
        assert_non_null(fo);
        assert_int_equal(fo->n_assignments, 1);
        assert_int_equal(fo->assignments[0].value_end, out_len - 1);
        ht_grub_file_free(fo);
        /* the edited text is not the file's: parsed, never kept */
        n = ht_grub_parse_count();
        v = grub_value(c, out, "GRUB_CMDLINE_LINUX");
        assert_string_equal(v, "quiet nosmt");
        free(v);
        assert_int_equal(ht_grub_parse_count(), n + 1);
        v = grub_value(c, text, "GRUB_CMDLINE_LINUX");
        assert_string_equal(v, "quiet");
        free(v);
        assert_int_equal(ht_grub_parse_count(), n + 1);
        free(text);
        /* a write through the context drops it; the reader's reference
         * stays good */
        assert_int_equal(ht_write_file_atomic(c, HT_GRUB_DEFAULTS, out, out_len, 0644, HT_UID_ANY, HT_GID_ANY), 0);
        free(out);
        assert_int_equal(f1->n_assignments, 1);
        assert_string_equal(f1->assignments[0].name, "GRUB_CMDLINE_LINUX");
        ht_grub_file_free(f1);
        text = read_or_null(c, HT_GRUB_DEFAULTS);
        v = grub_value(c, text, "GRUB_CMDLINE_LINUX");
        assert_string_equal(v, "quiet nosmt");
        free(v);
        assert_int_equal(ht_grub_parse_count(), n + 2);
        v = grub_value(c, text, "GRUB_CMDLINE_LINUX");
        free(v);
        free(text);
        assert_int_equal(ht_grub_parse_count(), n + 2);

        /* /etc/passwd and /etc/group: one parse each for every reader */
        const ht_passwd *p1 = NULL, *p2 = NULL;
        n = ht_accounts_parse_count();
        assert_int_equal(ht_passwd_read(c, &p1), 0);
        uint32_t uid = 0, gid = 0;
        assert_int_equal(ht_account_user(c, "oracle", &uid, &gid), 0);
        assert_int_equal(uid, 54321);
        assert_int_equal(ht_passwd_read(c, &p2), 0);
        assert_ptr_equal(p1, p2);
        ht_passwd_unref(p2);
        assert_int_equal(ht_account_group(c, "dba", &gid), 0);
        assert_int_equal(gid, 54322);
        char *name = ht_account_group_name(c, 54322);
        assert_string_equal(name, "dba");
        free(name);
        assert_int_equal(ht_accounts_parse_count(), n + 2);
        /* a changed passwd through the context is parsed anew */
        const char *pw = "oracle:x:1000:1000::/home/oracle:/bin/bash\n";
        assert_int_equal(ht_write_file_atomic(c, "/etc/passwd", pw, strlen(pw), 0644, HT_UID_ANY, HT_GID_ANY), 0);
        assert_string_equal(p1->users[1].name, "oracle");
        ht_passwd_unref(p1);
        assert_int_equal(ht_account_user(c, "oracle", &uid, &gid), 0);
        assert_int_equal(uid, 1000);
        assert_int_equal(ht_accounts_parse_count(), n + 3);
        assert_int_equal(ht_account_user(c, "oracle", &uid, &gid), 0);
        assert_int_equal(ht_accounts_parse_count(), n + 3);

        /* with no cache, each reader parses */
        ht_context_cache_end(c);
        assert_int_equal(ht_account_user(c, "oracle", &uid, &gid), 0);
        assert_int_equal(ht_account_user(c, "oracle", &uid, &gid), 0);
        assert_int_equal(ht_accounts_parse_count(), n + 5);
        n = ht_grub_parse_count();
        text = read_or_null(c, HT_GRUB_DEFAULTS);
        free(grub_value(c, text, "GRUB_CMDLINE_LINUX"));
        free(grub_value(c, text, "GRUB_CMDLINE_LINUX"));
        free(text);
        assert_int_equal(ht_grub_parse_count(), n + 2);
}

static void test_readlink_and_below(void **state) {
        ht_context *c = *state;
        char *s = NULL;
        assert_int_equal(ht_readlink(c, "/etc/os-release", &s), 0);
        assert_string_equal(s, "../usr/lib/os-release");
        free(s);
        assert_int_equal(ht_readlink(c, "/usr/lib/os-release", &s), -EINVAL);
        assert_int_equal(ht_readlink(c, "/etc/none", &s), -ENOENT);
        /* through a link mid-path (etc/libdir -> ../usr/lib) */
        assert_int_equal(ht_readlink(c, "/etc/libdir/os-release", &s), -EINVAL);

        int dfd = ht_open_dir(c, "/etc/libdir");
        assert_true(dfd >= 0);
        assert_int_equal(ht_read_line_below(c, dfd, "/etc/libdir", "os-release", &s), 0);
        assert_string_equal(s, "ID=debian");
        free(s);
        close(dfd);
        /* a link that climbs above the directory: read through the root */
        dfd = ht_open_dir(c, "/etc");
        assert_true(dfd >= 0);
        assert_int_equal(ht_read_line_below(c, dfd, "/etc", "libdir/os-release", &s), 0);
        assert_string_equal(s, "ID=debian");
        free(s);
        /* and one that leaves the root stays refused */
        assert_int_equal(ht_read_line_below(c, dfd, "/etc", "escape", &s), -EXDEV);
        close(dfd);
        assert_int_equal(ht_open_dir(c, "/usr/lib/os-release"), -ENOTDIR);
}

/* The kernel's files through a context on "/": a procfs seq_file larger
 * than a page reads short before its end (one page of records a read),
 * so no short read may end it; a sysfs attribute reads whole. */
static void test_read_kernel_files(void **state) {
        (void)state;
        ht_context *c;
        assert_int_equal(ht_context_new("/", &c), 0);
        FILE *f = fopen("/proc/zoneinfo", "r");
        if (f) {
                char buf[4096];
                size_t want = 0, n;
                while ((n = fread(buf, 1, sizeof buf, f)) > 0)
                        want += n;
                fclose(f);
                char *s = NULL;
                size_t len = 0;
                assert_int_equal(ht_read_file(c, "/proc/zoneinfo", 1 << 20, &s, &len), 0);
                /* counters move between the reads; the zones do not */
                if (want > 4096)
                        assert_true(len > 4096);
                assert_true(len > 0 && s[len - 1] == '\n');
                free(s);
        }
        char *v = NULL;
        if (ht_read_line(c, "/sys/kernel/mm/transparent_hugepage/enabled", &v) == 0) {
                assert_non_null(strchr(v, '['));
                assert_non_null(strchr(v, ']'));
                free(v);
        }
        ht_context_free(c);
}

static void test_path_check(void **state) {
        assert_int_equal(ht_path_check("/proc/sys/vm/swappiness"), 0);
        assert_int_equal(ht_path_check("/proc/sys/vm/../../etc"), -EINVAL);
        assert_int_equal(ht_path_check("/etc/a\nb"), -EINVAL);
        assert_int_equal(ht_path_check("relative"), -EINVAL);
        /* the one-pass check refuses what the passes it replaced did */
        assert_int_equal(ht_path_check("/etc/a\tb"), -EINVAL);
        assert_int_equal(ht_path_check("/etc/a\x7f"), -EINVAL);
        assert_int_equal(ht_path_check("/etc/.."), -EINVAL);
        assert_int_equal(ht_path_check("/../etc"), -EINVAL);
        assert_int_equal(ht_path_check("/"), 0);
        assert_int_equal(ht_path_check("//etc//./a..b/...//"), 0);
        assert_int_equal(ht_path_check("/..x/x../."), 0);
        char name[NAME_MAX + 2];
        memset(name, 'n', sizeof name - 1);
        name[sizeof name - 1] = 0;
        char *p = xasprintf("/etc/%s/..", name);
        assert_int_equal(ht_path_check(p), -ENAMETOOLONG); /* the first bad name decides */
        free(p);
        p = xasprintf("/etc/../%s", name);
        assert_int_equal(ht_path_check(p), -EINVAL);
        free(p);
        name[NAME_MAX] = 0;
        p = xasprintf("/etc/%s", name);
        assert_int_equal(ht_path_check(p), 0);
        free(p);
        char *longp = xmalloc(PATH_MAX + 1);
        for (size_t i = 0; i < PATH_MAX; i += 2)
                memcpy(longp + i, "/a", 2);
        longp[PATH_MAX] = 0;
        assert_int_equal(ht_path_check(longp), -EINVAL);
        longp[PATH_MAX - 2] = 0;
        assert_int_equal(ht_path_check(longp), 0);
        free(longp);
}

/* While the cache is kept, /proc/sys keys are opened below one /proc/sys
 * fd opened through the root. It goes with the cache: after a write
 * through the context the root's /proc/sys is looked up afresh (here a
 * new directory in its place), never the one opened before. Links below
 * it are the root's walk's (inside the root followed, out of it refused). */
static void test_proc_sys_below(void **state) {
        ht_context *c = *state;
        char *s = NULL;
        mk("proc");
        mk("proc/sys");
        mk("proc/sys/vm");
        put("proc/sys/vm/swappiness", "60\n");
        put("etc/sysctl-target", "7\n");
        ln("../../../etc/sysctl-target", "proc/sys/vm/inside");
        ln("../../../../../../../etc/passwd", "proc/sys/vm/escape");
        ht_context_cache_begin(c);
        assert_int_equal(ht_read_line(c, "/proc/sys/vm/swappiness", &s), 0);
        assert_string_equal(s, "60");
        free(s);
        assert_int_equal(ht_read_line(c, "/proc/sys/vm/inside", &s), 0);
        assert_string_equal(s, "7");
        free(s);
        assert_int_equal(ht_read_line(c, "/proc/sys/vm/escape", &s), -EXDEV);
        assert_int_equal(ht_read_line(c, "/proc/sys/vm/none", &s), -ENOENT);
        assert_int_equal(ht_read_line(c, "/proc/sys/none/x", &s), -ENOENT);
        assert_int_equal(ht_read_line(c, "/proc/sys/vm/../vm/swappiness", &s), -EINVAL);

        char *old = xasprintf("%s/proc/sys", tmpl), *moved = xasprintf("%s/proc/sys-old", tmpl);
        assert_int_equal(rename(old, moved), 0);
        mk("proc/sys");
        mk("proc/sys/vm");
        put("proc/sys/vm/swappiness", "10\n");
        assert_int_equal(ht_write_file_atomic(c, "/etc/other", "x\n", 2, 0644, HT_UID_ANY, HT_GID_ANY), 0);
        assert_int_equal(ht_read_line(c, "/proc/sys/vm/swappiness", &s), 0);
        assert_string_equal(s, "10");
        free(s);
        ht_context_cache_end(c);
        /* no cache, no fd kept: through the root */
        put("proc/sys/vm/swappiness", "11\n");
        assert_int_equal(ht_read_line(c, "/proc/sys/vm/swappiness", &s), 0);
        assert_string_equal(s, "11");
        free(s);
        free(old);
        free(moved);
}

/* sd_booted under the root, asked once while the cache is kept (facts and
 * the sysctl backend), afresh after a write through the context. */
static void test_systemd_booted(void **state) {
        ht_context *c = *state;
        assert_false(ht_context_systemd_booted(c));
        ht_context_cache_begin(c);
        assert_false(ht_context_systemd_booted(c));
        mk("run");
        mk("run/systemd");
        mk("run/systemd/system");
        assert_false(ht_context_systemd_booted(c)); /* the plan's look stands */
        assert_int_equal(ht_write_file_atomic(c, "/etc/other", "y\n", 2, 0644, HT_UID_ANY, HT_GID_ANY), 0);
        assert_true(ht_context_systemd_booted(c));
        char *d = xasprintf("%s/run/systemd/system", tmpl);
        assert_int_equal(rmdir(d), 0);
        ln("/usr", "run/systemd/system"); /* a link is no boot by systemd */
        assert_true(ht_context_systemd_booted(c));
        ht_context_cache_end(c);
        assert_false(ht_context_systemd_booted(c));
        assert_int_equal(unlink(d), 0);
        mk("run/systemd/system");
        assert_true(ht_context_systemd_booted(c)); /* no cache: asked each time */
        free(d);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_read_through_links),
                cmocka_unit_test(test_read_sizes),
                cmocka_unit_test(test_refuse_escape),
                cmocka_unit_test(test_create_does_not_follow),
                cmocka_unit_test(test_links_mid_path),
                cmocka_unit_test(test_stat_and_lstat),
                cmocka_unit_test(test_list_dir),
                cmocka_unit_test(test_path_check),
                cmocka_unit_test(test_proc_sys_below),
                cmocka_unit_test(test_systemd_booted),
                cmocka_unit_test(test_read_cache),
                cmocka_unit_test(test_list_cache),
                cmocka_unit_test(test_parse_cache),
                cmocka_unit_test(test_readlink_and_below),
                cmocka_unit_test(test_read_kernel_files),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
