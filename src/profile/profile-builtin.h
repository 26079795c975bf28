/* Built-in copies of the shipped profiles and rules, parsed when hosttune
 * was built (tools/ht-freeze.c writes them into builtin-data.c).
 *
 * A profile or rules file on the search path whose file name and bytes are
 * those of a shipped file is taken from its built-in copy instead of being
 * parsed again: libconfig would turn the same bytes into the same
 * structures, and parsing them is the biggest part of what `plan` costs
 * (BENCHMARKS.md). Every other file goes through libconfig, as does every
 * file when HOSTTUNE_NO_BUILTIN_PROFILES=1. The file is still opened,
 * trust-checked and read first: only the parse is skipped. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile-model.h"
#include "util.h"

typedef struct ht_builtin_file {
        const char *name;            /* file name: "oracle.profile" */
        const unsigned char *text;   /* the shipped bytes */
        size_t text_len;
        const unsigned char *blob;   /* the parsed form (profile-builtin.c) */
        size_t blob_len;
} ht_builtin_file;

/* An expression of the shipped files, parsed when hosttune was built:
 * evaluating one of these texts runs the tree, with no lexing or parsing
 * (expr.h). key is ht_builtin_expr_key() of the text; the table is sorted
 * by it. Integers only, as are the pools it indexes: the frozen trees hold
 * no pointer for the loader to relocate at every start (issue 34);
 * ht_builtin_expr_view() makes the ht_expr of one. */
typedef struct ht_builtin_expr {
        uint64_t key;
        uint32_t text, len;       /* the text: its offset in ht_builtin_expr_chars, its length */
        uint32_t nodes, n_nodes;  /* the tree's nodes: ht_builtin_expr_nodes[nodes..] */
        uint32_t kids, n_kids;    /* its kids: ht_builtin_expr_kids[kids..] */
        uint32_t root;
} ht_builtin_expr;

/* The table: builtin-data.c in hosttune, an empty one from libhosttune.a
 * (src/profile/builtin-none.c) in ht-freeze, the unit tests and the fuzzers. */
extern const ht_builtin_file ht_builtin_files[];
extern const size_t ht_builtin_n_files;
extern const ht_builtin_expr ht_builtin_exprs[];
extern const size_t ht_builtin_n_exprs;
/* The pools of all the frozen trees: their nodes, their kids (node
 * indexes within each tree) and their strings and texts, NUL-ended. */
extern const ht_expr_node ht_builtin_expr_nodes[];
extern const uint32_t ht_builtin_expr_kids[];
extern const char ht_builtin_expr_chars[];
/* The chars pool's length. Each expression's text there has its
 * index in ht_builtin_exprs in the 4 bytes before it (least significant
 * first): a file's form points an expression at its text in the pool,
 * so evaluating it finds its tree without a search (ht_builtin_expr_at). */
extern const size_t ht_builtin_expr_n_chars;

/* The tree of a table entry, viewed in the pools; and its text. */
void ht_builtin_expr_view(const ht_builtin_expr *b, ht_expr *ret);
static inline const char *ht_builtin_expr_text(const ht_builtin_expr *b) {
        return ht_builtin_expr_chars + b->text;
}

/* A cheap key of an expression's text (its length and a few of its
 * bytes): the lookup compares the whole text after it. */
uint64_t ht_builtin_expr_key(const char *text, size_t len);
/* The frozen tree of the text/len into *ret (a view: nothing to free),
 * or false (then parse it). The caller checks HOSTTUNE_NO_BUILTIN_PROFILES
 * (once, not for each expression). */
bool ht_builtin_expr_find(const char *text, size_t len, ht_expr *ret);
/* The table entry of the text/len, or NULL: the search of
 * ht_builtin_expr_find. */
const ht_builtin_expr *ht_builtin_expr_lookup(const char *text, size_t len);
/* The frozen tree of a text the built-in form points into the pool
 * (a shipped file's expression, each condition and EXPR spec): read
 * beside it, no search. false for any other pointer (a template's
 * ${EXPR}, a user's file): then ht_builtin_expr_find. */
bool ht_builtin_expr_at(const char *text, size_t len, ht_expr *ret);
/* ht-freeze, writing the forms before the table is linked: where an
 * expression's text is in the pool it writes (false: not there). By
 * default the forms point into the table this program has. */
void ht_builtin_put_pool(bool (*find)(const char *text, size_t len, uint32_t *ret_text));
/* Call fn on the text of every expression in a file (specs, conditions,
 * each ${EXPR} of a template), as the resolver evaluates them. */
void ht_builtin_pfile_exprs(const ht_pfile *p, void (*fn)(const char *text, size_t len, void *userdata),
                            void *userdata);
void ht_builtin_rfile_exprs(const ht_rfile *f, void (*fn)(const char *text, size_t len, void *userdata),
                            void *userdata);

/* The parsed form of a file the loader parsed; false if a borrowed file
 * pointer is not the file's own path (the form could not restore it). */
bool ht_builtin_put_pfile(strbuf *b, const ht_pfile *p);
bool ht_builtin_put_rfile(strbuf *b, const ht_rfile *f);

/* Rebuild a file from its parsed form, with path (and name) of the file
 * read. NULL if the form is damaged. Its strings but the name, path and
 * parents point into blob (the file is borrowed: a malloc and a free
 * fewer for each of some 3000 strings a plan loads), which must outlive
 * the file struct. */
ht_pfile *ht_builtin_get_pfile(const unsigned char *blob, size_t len, const char *path,
                               const char *name);
ht_rfile *ht_builtin_get_rfile(const unsigned char *blob, size_t len, const char *path);

/* The built-in copy of the file at path whose bytes are buf/len, or NULL. */
const ht_builtin_file *ht_builtin_find(const char *path, const char *buf, size_t len);

/* The file at path (name, bytes buf/len) rebuilt from its built-in copy;
 * NULL when it has none: parse it. */
ht_pfile *ht_builtin_pfile(const char *path, const char *name, const char *buf, size_t len);
ht_rfile *ht_builtin_rfile(const char *path, const char *buf, size_t len);
