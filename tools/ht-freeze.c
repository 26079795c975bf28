/* ht-freeze: parse the shipped profiles and rules with hosttune's own
 * loader (libconfig) and write builtin-data.c: each file's name, its bytes
 * and its parsed form (profile-builtin.h), and the tree of each of their
 * expressions (expr.h), so that evaluating them parses nothing. Run by the
 * build; a shipped file that does not parse fails the build (an expression
 * that does not parse is left out: evaluating it reports the error).
 *
 *   ht-freeze FILE.profile|FILE.rules... > builtin-data.c
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "profile-builtin.h"
#include "profile-model.h"
#include "util.h"

/* The expression texts of all the files, each once. */
static char **exprs;

static void add_expr(const char *text, size_t len, void *userdata) {
        char *t = xstrndup(text, len);
        if (strv_contains(exprs, t))
                free(t);
        else
                strv_push_take(&exprs, t);
}

typedef struct {
        uint64_t key;
        uint32_t text, len, nodes, n_nodes, kids, n_kids, root;
        int id;
        ht_expr *e;
} frozen;

static int frozen_cmp(const void *a, const void *b) {
        const frozen *x = a, *y = b;
        if (x->key != y->key)
                return x->key < y->key ? -1 : 1;
        return x->id - y->id;
}

/* The table, sorted by key, as it is written. */
static frozen *table;
static size_t n_table;

/* Where a text is in the pool (ht_builtin_put_pool): the forms point
 * there. */
static bool pool_find(const char *text, size_t len, uint32_t *ret_text) {
        uint64_t key = ht_builtin_expr_key(text, len);
        for (size_t i = 0; i < n_table; i++)
                if (table[i].key == key && table[i].len == len && memcmp(exprs[table[i].id], text, len) == 0) {
                        *ret_text = table[i].text;
                        return true;
                }
        return false;
}

/* All the trees in three pools (nodes, kids, chars: the texts and the
 * nodes' strings) and the table sorted by key, of integers only: the
 * frozen trees are .rodata with nothing for the loader to relocate.
 * Each text in the chars pool has its index in the table in the 4 bytes
 * before it. */
static void put_exprs(void) {
        size_t n = strv_length(exprs), m = 0;
        frozen *t = xcalloc(n ? n : 1, sizeof(*t));
        char *nodes_c = NULL, *kids_c = NULL, *chars_c = NULL;
        size_t nodes_len = 0, kids_len = 0, chars_len = 0;
        FILE *nodes = open_memstream(&nodes_c, &nodes_len), *kids = open_memstream(&kids_c, &kids_len),
             *chars = open_memstream(&chars_c, &chars_len);
        if (!nodes || !kids || !chars) {
                fprintf(stderr, "ht-freeze: %s\n", strerror(errno));
                exit(1);
        }
        for (size_t i = 0; i < n; i++) {
                ht_expr *e = NULL;
                if (ht_expr_compile(exprs[i], &e) < 0)
                        continue;
                size_t len = strlen(exprs[i]);
                t[m++] = (frozen){ .key = ht_builtin_expr_key(exprs[i], len), .len = (uint32_t)len, .id = (int)i,
                                   .e = e };
        }
        qsort(t, m, sizeof(*t), frozen_cmp);
        uint32_t n_nodes = 0, n_kids = 0, n_chars = 0;
        for (size_t i = 0; i < m; i++) {
                ht_expr *e = t[i].e;
                unsigned char ix[4] = {(unsigned char)i, (unsigned char)(i >> 8), (unsigned char)(i >> 16),
                                       (unsigned char)(i >> 24)};
                for (size_t k = 0; k < 4; k++, n_chars++)
                        fprintf(chars, "%s0x%02x,", n_chars % 16 ? "" : "\n        ", ix[k]);
                t[i].text = ht_expr_write_c_chars(chars, &n_chars, exprs[t[i].id], t[i].len);
                t[i].nodes = n_nodes;
                t[i].n_nodes = e->n_nodes;
                t[i].kids = n_kids;
                t[i].n_kids = e->n_kids;
                t[i].root = e->root;
                ht_expr_write_c(nodes, kids, chars, &n_chars, e);
                n_nodes += e->n_nodes;
                n_kids += e->n_kids;
                ht_expr_free(e);
                t[i].e = NULL;
        }
        if (fclose(nodes) || fclose(kids) || fclose(chars)) {
                fprintf(stderr, "ht-freeze: %s\n", strerror(errno));
                exit(1);
        }
        /* an empty array is not C: a zero in each, counted nowhere */
        printf("\nconst ht_expr_node ht_builtin_expr_nodes[] = {\n%s%s};\n", nodes_c, n_nodes ? "" : "        {0},\n");
        printf("const uint32_t ht_builtin_expr_kids[] = {%s%s\n};\n", kids_c, n_kids ? "" : "0,");
        printf("const char ht_builtin_expr_chars[] = {%s%s\n};\n", chars_c, n_chars ? "" : "0,");
        printf("const size_t ht_builtin_expr_n_chars = %" PRIu32 ";\n", n_chars);
        free(nodes_c);
        free(kids_c);
        free(chars_c);
        printf("\nconst ht_builtin_expr ht_builtin_exprs[] = {\n");
        for (size_t i = 0; i < m; i++)
                printf("        {UINT64_C(%" PRIu64 "), %" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32
                       ", %" PRIu32 ", %" PRIu32 "},\n",
                       t[i].key, t[i].text, t[i].len, t[i].nodes, t[i].n_nodes, t[i].kids, t[i].n_kids, t[i].root);
        if (!m)
                printf("        {0, 0, 0, 0, 0, 0, 0, 0},\n");
        printf("};\nconst size_t ht_builtin_n_exprs = %zu;\n", m);
        table = t;
        n_table = m;
}

static void put_bytes(const char *name, const unsigned char *p, size_t n) {
        printf("static const unsigned char %s[] = {", name);
        for (size_t i = 0; i < n; i++)
                printf("%s0x%02x,", i % 16 ? "" : "\n        ", p[i]);
        printf("\n};\n");
}

int main(int argc, char **argv) {
        /* the backends a program that loads profiles knows (backend.h) */
        ht_backend_registry_use(ht_backends);
        if (argc < 2) {
                fprintf(stderr, "usage: ht-freeze FILE.profile|FILE.rules...\n");
                return 2;
        }
        /* The build tree is not root-owned when the build runs as root;
         * these are the sources being built, not a host's files. */
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
        printf("/* Generated by ht-freeze from the shipped profiles and rules: do not edit. */\n"
               "#include \"config.h\"\n\n#include <stdint.h>\n\n#include \"profile-builtin.h\"\n\n");
        /* first every file's expressions, for the table and the pool the
         * forms point into; then the forms */
        ht_pfile **pfiles = xcalloc(argc, sizeof(*pfiles));
        ht_rfile **rfiles = xcalloc(argc, sizeof(*rfiles));
        char **texts = xcalloc(argc, sizeof(*texts));
        size_t *text_lens = xcalloc(argc, sizeof(*text_lens));
        for (int i = 1; i < argc; i++) {
                const char *path = argv[i];
                const char *base = strrchr(path, '/');
                base = base ? base + 1 : path;
                if (base[strspn(base, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")]) {
                        fprintf(stderr, "ht-freeze: %s: a file name to quote in C\n", path);
                        return 1;
                }
                _cleanup_free_ char *error = NULL;
                _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
                int r = fd < 0 ? -errno : ht_read_fd(fd, HT_PROFILE_MAX_SIZE, &texts[i], &text_lens[i]);
                if (r < 0) {
                        fprintf(stderr, "ht-freeze: %s: %s\n", path, strerror(-r));
                        return 1;
                }
                if (endswith(base, ".profile")) {
                        _cleanup_free_ char *name = xstrndup(base, strlen(base) - strlen(".profile"));
                        r = ht_pfile_load(path, name, &pfiles[i], &error);
                        if (r >= 0)
                                ht_builtin_pfile_exprs(pfiles[i], add_expr, NULL);
                } else if (endswith(base, ".rules")) {
                        r = ht_rfile_load(path, &rfiles[i], &error);
                        if (r >= 0)
                                ht_builtin_rfile_exprs(rfiles[i], add_expr, NULL);
                } else {
                        fprintf(stderr, "ht-freeze: %s: neither a .profile nor a .rules file\n", path);
                        return 1;
                }
                if (r < 0) {
                        fprintf(stderr, "ht-freeze: %s\n", error ? error : strerror(-r));
                        return 1;
                }
        }
        put_exprs();
        ht_builtin_put_pool(pool_find);
        for (int i = 1; i < argc; i++) {
                strbuf blob = {0};
                bool ok = pfiles[i] ? ht_builtin_put_pfile(&blob, pfiles[i]) : ht_builtin_put_rfile(&blob, rfiles[i]);
                if (!ok) {
                        fprintf(stderr, "ht-freeze: %s: a borrowed file pointer is not the file's path\n", argv[i]);
                        strbuf_done(&blob);
                        return 1;
                }
                char id[32];
                snprintf(id, sizeof id, "text_%d", i);
                put_bytes(id, (const unsigned char *)texts[i], text_lens[i]);
                snprintf(id, sizeof id, "blob_%d", i);
                put_bytes(id, (const unsigned char *)blob.data, blob.len);
                strbuf_done(&blob);
                ht_pfile_free(pfiles[i]);
                ht_rfile_free(rfiles[i]);
                free(texts[i]);
        }
        free(pfiles);
        free(rfiles);
        free(texts);
        free(text_lens);
        printf("\nconst ht_builtin_file ht_builtin_files[] = {\n");
        for (int i = 1; i < argc; i++) {
                const char *base = strrchr(argv[i], '/');
                base = base ? base + 1 : argv[i];
                printf("        {\"%s\", text_%d, sizeof(text_%d), blob_%d, sizeof(blob_%d)},\n", base, i,
                       i, i, i);
        }
        printf("};\nconst size_t ht_builtin_n_files = %d;\n", argc - 1);
        free(table);
        strv_free(exprs);
        return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
