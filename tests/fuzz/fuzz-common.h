/* Shared helpers of the libFuzzer targets: the input split into parts,
 * the kernel command line edits every editor is driven with, and a
 * scratch directory. Each target includes this once. */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "edit-cmdline.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Inputs made of several files separate them with this line, so seeds
 * stay readable text. */
#define FUZZ_SEP "\n%%%%\n"

/* Split data at FUZZ_SEP into at most max parts (the last takes the
 * rest). Parts are NUL-terminated copies; lens[i] keeps embedded NULs. */
static inline size_t fuzz_split(const uint8_t *data, size_t size, char **parts, size_t *lens, size_t max) {
        const char *p = (const char *)data, *end = p + size;
        size_t n = 0;
        while (n < max) {
                const char *sep = n + 1 < max ? memmem(p, end - p, FUZZ_SEP, strlen(FUZZ_SEP)) : NULL;
                size_t len = sep ? (size_t)(sep - p) : (size_t)(end - p);
                parts[n] = xmalloc(len + 1);
                memcpy(parts[n], p, len);
                parts[n][len] = 0;
                lens[n] = len;
                n++;
                if (!sep)
                        break;
                p = sep + strlen(FUZZ_SEP);
        }
        return n;
}

static inline void fuzz_parts_free(char **parts, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(parts[i]);
}

/* Edits of the kinds plan makes: set (value and bare flag), add of a
 * repeatable word, removal by key and by exact word. */
static const ht_cmdline_op fuzz_ops_set[] = {
        {HT_CMDLINE_SET, "transparent_hugepage", "never"},
        {HT_CMDLINE_SET, "hugepagesz", "2M"},
        {HT_CMDLINE_SET, "nosmt", NULL},
};
static const ht_cmdline_op fuzz_ops_add_remove[] = {
        {HT_CMDLINE_ADD, "console", "ttyS0,115200"},
        {HT_CMDLINE_REMOVE, "quiet", NULL},
        {HT_CMDLINE_REMOVE, "crashkernel", "auto"},
};
static const ht_cmdline_op fuzz_ops_hv[] = {
        {HT_CMDLINE_SET, "dom0_mem", "4096M"},
        {HT_CMDLINE_REMOVE, "rhgb", NULL},
};

typedef struct {
        const ht_cmdline_op *ops;
        size_t n;
} fuzz_op_set;

static const fuzz_op_set fuzz_op_sets[] = {
        {fuzz_ops_set, ELEMENTSOF(fuzz_ops_set)},
        {fuzz_ops_add_remove, ELEMENTSOF(fuzz_ops_add_remove)},
        {fuzz_ops_hv, ELEMENTSOF(fuzz_ops_hv)},
};

static inline int fuzz_rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(p);
}

/* Empty directory dir (not dir itself). */
static inline void fuzz_clear_dir(const char *dir) {
        DIR *d = opendir(dir);
        if (!d)
                abort();
        struct dirent *de;
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, "..")) {
                        _cleanup_free_ char *p = xasprintf("%s/%s", dir, de->d_name);
                        nftw(p, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
                }
        closedir(d);
}

static inline void fuzz_write(const char *dir, const char *name, const char *data, size_t len) {
        _cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
        FILE *f = fopen(p, "we");
        if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
                abort();
}

/* Where the fuzz target finds the source tree (fixture hosts, shipped
 * profiles): $top_srcdir, else the tree it was built from. */
static inline const char *fuzz_srcdir(void) {
        const char *s = getenv("top_srcdir");
        return s ? s : FUZZ_SRCDIR;
}

/* An invariant broke: say which, then crash so libFuzzer keeps the input. */
#define FUZZ_ASSERT(cond)                                                                  \
        do {                                                                               \
                if (!(cond)) {                                                             \
                        fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
                        abort();                                                           \
                }                                                                          \
        } while (0)
