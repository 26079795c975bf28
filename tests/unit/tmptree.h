/* Helpers for tests that build throwaway trees under /tmp and compare
 * them whole (names, types, modes, owners, contents, link targets). */
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "sha256.h"
#include "util.h"

/* A fresh directory, on tmpfs (/dev/shm) when there is one: the journal
 * tests fsync thousands of times, which costs nothing there and half a
 * minute on a disk. */
static inline char *tt_mkdtemp(const char *tag) {
        const char *bases[] = {getenv("HT_TEST_TMPDIR"), "/dev/shm", "/tmp"};
        for (size_t i = 0; i < ELEMENTSOF(bases); i++) {
                if (isempty(bases[i]) || access(bases[i], W_OK) < 0)
                        continue;
                char *t = xasprintf("%s/ht-%s-XXXXXX", bases[i], tag);
                if (mkdtemp(t))
                        return t;
                free(t);
        }
        abort();
}

static inline void tt_rm_rf(const char *dir) {
        pid_t pid = fork();
        if (pid == 0) {
                char *argv[] = {(char *)"rm", (char *)"-rf", (char *)dir, NULL};
                execvp(argv[0], argv);
                _exit(127);
        }
        int st;
        waitpid(pid, &st, 0);
}

static inline void tt_put(const char *dir, const char *rel, const char *content, mode_t mode) {
        char *p = xasprintf("%s/%s", dir, rel);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        if (fd < 0)
                abort();
        size_t len = strlen(content);
        if (write(fd, content, len) != (ssize_t)len)
                abort();
        fchmod(fd, mode);
        close(fd);
        free(p);
}

static inline void tt_mkdir(const char *dir, const char *rel) {
        char *p = xasprintf("%s/%s", dir, rel);
        if (mkdir(p, 0755) < 0)
                abort();
        free(p);
}

static inline void tt_symlink(const char *dir, const char *target, const char *rel) {
        char *p = xasprintf("%s/%s", dir, rel);
        if (symlink(target, p) < 0)
                abort();
        free(p);
}

/* Contents of dir/rel, or NULL when it cannot be read. */
static inline char *tt_get(const char *dir, const char *rel) {
        char *p = xasprintf("%s/%s", dir, rel);
        FILE *f = fopen(p, "re");
        free(p);
        if (!f)
                return NULL;
        strbuf b = {0};
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
                strbuf_appendn(&b, buf, n);
        fclose(f);
        char *s = strbuf_steal(&b);
        return s ? s : xstrdup("");
}

static inline bool tt_exists(const char *dir, const char *rel) {
        char *p = xasprintf("%s/%s", dir, rel);
        struct stat st;
        bool r = lstat(p, &st) == 0;
        free(p);
        return r;
}

static inline void tt_walk(const char *top, const char *rel, strbuf *out) {
        char *p = xasprintf("%s%s%s", top, *rel ? "/" : "", rel);
        DIR *d = opendir(p);
        if (!d)
                abort();
        char **names = NULL;
        struct dirent *de;
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        strv_push(&names, de->d_name);
        closedir(d);
        free(p);
        size_t n = strv_length(names);
        if (n)
                qsort(names, n, sizeof(char *), strv_sort_cmp);
        for (size_t i = 0; i < n; i++) {
                char *r = xasprintf("%s%s%s", rel, *rel ? "/" : "", names[i]);
                char *full = xasprintf("%s/%s", top, r);
                struct stat st;
                if (lstat(full, &st) < 0)
                        abort();
                strbuf_appendf(out, "%s %o %u:%u", r, (unsigned)st.st_mode, (unsigned)st.st_uid,
                               (unsigned)st.st_gid);
                if (S_ISREG(st.st_mode)) {
                        char *s = tt_get(top, r);
                        char hex[HT_SHA256_HEX_SIZE];
                        ht_sha256_hex(s, (size_t)st.st_size, hex);
                        strbuf_appendf(out, " %lld %s\n", (long long)st.st_size, hex);
                        free(s);
                } else if (S_ISLNK(st.st_mode)) {
                        char target[4096];
                        ssize_t len = readlink(full, target, sizeof(target) - 1);
                        target[len < 0 ? 0 : len] = 0;
                        strbuf_appendf(out, " -> %s\n", target);
                } else if (S_ISDIR(st.st_mode)) {
                        strbuf_append(out, "/\n");
                        tt_walk(top, r, out);
                } else
                        strbuf_append(out, " special\n");
                free(r);
                free(full);
        }
        strv_free(names);
}

/* One line per entry, sorted: a whole-tree fingerprint. */
static inline char *tt_tree(const char *top) {
        strbuf b = {0};
        tt_walk(top, "", &b);
        char *s = strbuf_steal(&b);
        return s ? s : xstrdup("");
}
