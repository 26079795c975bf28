/* Expressions as trees (issue 34): every expression of every shipped
 * profile and rules file has a tree built into hosttune, the same tree
 * ht_expr_compile() makes now; evaluating a tree gives what the evaluating
 * parser gives from the text (value, error message, and the names looked
 * up, in order: an untaken branch looks nothing up), for those
 * expressions under many made-up hosts, and for made-up expressions, good
 * and bad, in the fuzz-style differential test. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend.h"
#include "expr.h"
#include "profile-builtin.h"
#include "profile-model.h"

/* --- made-up hosts -------------------------------------------------- */

typedef struct {
        unsigned world;   /* which made-up host */
        strbuf log;       /* the names looked up, in order */
} host;

static uint64_t hash(const char *s, unsigned seed) {
        uint64_t h = 1469598103934665603u ^ seed;
        for (; *s; s++)
                h = (h ^ (unsigned char)*s) * 1099511628211u;
        return h ^ (h >> 31);
}

static const int64_t ints[] = {
        0, 1, 2, 3, -1, 7, 2048, 4096, INT64_C(1) << 30, INT64_C(18) << 30, INT64_MAX, INT64_MIN,
};
static const char *const strs[] = {
        "", "mysql", "oracle", "5.10.112-11.al8", "4.18.0-348.el8.x86_64", "always [madvise] never",
        "kvm", "xen", "pse avx2 hypervisor", "mysqld.service", "42", "2M",
};

/* World 0: nothing is known; 1: everything is null; 2: integers; 3:
 * strings; 4: booleans; 5 and up: a mix, a name's type and value drawn
 * from its hash, with fractions, unknown names and lookup errors. */
static int host_lookup(void *userdata, const char *name, ht_value *ret) {
        host *h = userdata;
        strbuf_appendf(&h->log, "%s\n", name);
        uint64_t x = hash(name, h->world);
        unsigned kind = h->world < 5 ? h->world : (unsigned)(x % 9);
        x >>= 8;
        switch (kind) {
        case 0:
                return -ENOENT;
        case 1:
                *ret = ht_value_null();
                return 0;
        case 2:
        case 5:
                *ret = ht_value_int(ints[x % ELEMENTSOF(ints)]);
                return 0;
        case 3:
        case 6:
                *ret = ht_value_str(strs[x % ELEMENTSOF(strs)]);
                return 0;
        case 4:
        case 7:
                *ret = ht_value_bool(x & 1);
                return 0;
        default:
                if (x % 4 == 0)
                        return -EIO;
                if (x % 4 == 1) {
                        *ret = (ht_value){ .type = HT_VAL_INT, .num = 7, .den = 2 };
                        return 0;
                }
                *ret = ht_value_int((int64_t)(x % 100));
                return 0;
        }
}

static char **host_candidates(void *userdata) {
        host *h = userdata;
        strbuf_append(&h->log, "?candidates\n");
        char **l = NULL;
        strv_push(&l, "facts.memory.total_kb");
        strv_push(&l, "sga_max_size");
        return l;
}

#define N_WORLDS 12

/* What one evaluation gave, as text. */
static char *outcome(int r, const ht_value *v, const char *err, const host *h) {
        _cleanup_free_ char *val = NULL;
        if (r >= 0)
                val = v->type == HT_VAL_STR ? xasprintf("string '%s'", v->str)
                                            : xasprintf("%s %" PRId64 "/%" PRId64, ht_value_type_name(v->type),
                                                        v->num, v->den);
        return xasprintf("r=%d value=%s error=%s looked up:\n%s", r, val ? val : "-", err ? err : "-",
                         h->log.data ? h->log.data : "");
}

/* src/len evaluated from the text and with e (or, e NULL, by
 * ht_expr_eval_ex): the same outcome in every world. Returns the number of
 * worlds where it failed, for the caller to see both kinds are there. */
static unsigned same_both_ways(const char *src, size_t len, const ht_expr *e, unsigned *n_ok) {
        unsigned failed = 0;
        _cleanup_free_ char *text = xstrndup(src, len);
        for (unsigned w = 0; w < N_WORLDS; w++) {
                host a = { .world = w }, b = { .world = w };
                ht_expr_env ea = { host_lookup, &a, host_candidates }, eb = { host_lookup, &b, host_candidates };
                ht_value va = ht_value_null(), vb = ht_value_null();
                char *erra = NULL, *errb = NULL;
                int ra = ht_expr_eval_text(text, &ea, &va, &erra);
                int rb = e ? ht_expr_run(e, src, len, &eb, &vb, &errb) : ht_expr_eval_ex(text, &eb, &vb, &errb);
                _cleanup_free_ char *oa = outcome(ra, &va, erra, &a), *ob = outcome(rb, &vb, errb, &b);
                if (!streq(oa, ob))
                        fail_msg("'%s' in world %u:\nfrom the text: %s\nfrom the tree: %s", text, w, oa, ob);
                if (ra < 0)
                        failed++;
                else
                        (*n_ok)++;
                ht_value_done(&va);
                ht_value_done(&vb);
                free(erra);
                free(errb);
                strbuf_done(&a.log);
                strbuf_done(&b.log);
        }
        return failed;
}

/* --- the shipped files ---------------------------------------------- */

typedef struct {
        size_t n, frozen;
} counts;

static void check_shipped_expr(const char *text, size_t len, void *userdata) {
        counts *c = userdata;
        c->n++;
        ht_expr frozen;
        if (!ht_builtin_expr_find(text, len, &frozen))
                fail_msg("no built-in tree for '%.*s'", (int)len, text);
        c->frozen++;
        /* the tree built in is the one the text parses to now */
        _cleanup_free_ char *t = xstrndup(text, len);
        ht_expr *e = NULL;
        assert_int_equal(ht_expr_compile(t, &e), 0);
        assert_true(ht_expr_equal(&frozen, e));
        assert_false(frozen.owned);
        ht_expr_free(e);
}

static void for_each_shipped_expr(void (*fn)(const char *, size_t, void *), void *userdata) {
        for (size_t i = 0; i < ht_builtin_n_files; i++) {
                const ht_builtin_file *f = &ht_builtin_files[i];
                if (endswith(f->name, ".profile")) {
                        ht_pfile *p = ht_builtin_get_pfile(f->blob, f->blob_len, "/p", "p");
                        assert_non_null(p);
                        ht_builtin_pfile_exprs(p, fn, userdata);
                        ht_pfile_free(p);
                } else {
                        ht_rfile *r = ht_builtin_get_rfile(f->blob, f->blob_len, "/r");
                        assert_non_null(r);
                        ht_builtin_rfile_exprs(r, fn, userdata);
                        ht_rfile_free(r);
                }
        }
}

static void test_every_shipped_expr_is_built_in(void **state) {
        counts c = {0};
        for_each_shipped_expr(check_shipped_expr, &c);
        /* the shipped files have a hundred or so, conditions and templates
         * among them */
        assert_true(c.n > 100);
        assert_int_equal(c.frozen, c.n);
        assert_true(ht_builtin_n_exprs > 100);
        /* a text that is no shipped expression has no tree */
        ht_expr found, first;
        assert_false(ht_builtin_expr_find("1 + 1", 5, &found));
        const ht_builtin_expr *b = &ht_builtin_exprs[0];
        ht_builtin_expr_view(b, &first);
        assert_true(ht_builtin_expr_find(ht_builtin_expr_text(b), b->len, &found));
        assert_ptr_equal(found.nodes, first.nodes);
        assert_false(ht_builtin_expr_find(ht_builtin_expr_text(b), b->len - 1, &found));
}

static void test_shipped_exprs_evaluate_the_same(void **state) {
        unsigned failed = 0, ok = 0;
        for (size_t i = 0; i < ht_builtin_n_exprs; i++) {
                const ht_builtin_expr *b = &ht_builtin_exprs[i];
                ht_expr e;
                ht_builtin_expr_view(b, &e);
                failed += same_both_ways(ht_builtin_expr_text(b), b->len, &e, &ok);
        }
        /* both values and errors were compared */
        assert_true(ok > 100);
        assert_true(failed > 100);
}

/* A template's ${EXPR} is evaluated in place: its text is not NUL-ended
 * there, and messages quote only it. */
static void test_run_on_a_slice(void **state) {
        const char *tmpl = "pages ${facts.nope + 1} and more";
        ht_expr *e = NULL;
        assert_int_equal(ht_expr_compile("facts.nope + 1", &e), 0);
        host h = { .world = 1 };
        ht_expr_env env = { host_lookup, &h, host_candidates };
        ht_value v = ht_value_null();
        _cleanup_free_ char *err = NULL;
        assert_int_equal(ht_expr_run(e, tmpl + 8, 14, &env, &v, &err), -ENODATA);
        assert_string_equal(err, "column 1: 'facts.nope' is unknown on this host\n    facts.nope + 1\n    ^");
        ht_expr_free(e);
        strbuf_done(&h.log);
}

/* --- made-up expressions ---------------------------------------------- */

static uint64_t rng = 88172645463325252u;

static unsigned pick(unsigned n) {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return (unsigned)(rng % n);
}

static void gen(strbuf *b, unsigned depth) {
        static const char *const names[] = {
                "a", "b", "facts.memory.total_kb", "facts.kernel.release", "sga_max_size", "x.y",
                "setting.sysctl.vm.swappiness", "gid.oracle_user", "facts.container",
        };
        static const char *const atoms[] = {
                "0", "1", "2", "18G", "4KiB", "9223372036854775807", "true", "false", "null", "\"\"",
                "\"mysql\"", "\"5.10\"", "\"a\\\"b\"", "\"(\"", "\"^x\"",
        };
        static const char *const binops[] = {
                " + ", " - ", " * ", " / ", " == ", " != ", " < ", " <= ", " > ", " >= ", " && ", " || ",
        };
        static const char *const funcs[] = {
                "abs", "ceil", "floor", "min", "max", "kb", "pages", "int", "str", "contains",
                "startswith", "version_ge", "version_lt", "matches", "nope",
        };
        unsigned k = depth == 0 ? pick(2) : pick(9);
        switch (k) {
        case 0:
                strbuf_append(b, names[pick(ELEMENTSOF(names))]);
                break;
        case 1:
                strbuf_append(b, atoms[pick(ELEMENTSOF(atoms))]);
                break;
        case 2:
        case 3:
                gen(b, depth - 1);
                strbuf_append(b, binops[pick(ELEMENTSOF(binops))]);
                gen(b, depth - 1);
                break;
        case 4:
                strbuf_append(b, pick(2) ? "-" : "!");
                gen(b, depth - 1);
                break;
        case 5:
                strbuf_append(b, "(");
                gen(b, depth - 1);
                strbuf_append(b, ")");
                break;
        case 6: {
                strbuf_appendf(b, "%s(", funcs[pick(ELEMENTSOF(funcs))]);
                unsigned n = pick(4);
                for (unsigned i = 0; i < n; i++) {
                        if (i)
                                strbuf_append(b, ", ");
                        gen(b, depth - 1);
                }
                strbuf_append(b, ")");
                break;
        }
        case 7:
                strbuf_append(b, "if(");
                gen(b, depth - 1);
                strbuf_append(b, ", ");
                gen(b, depth - 1);
                strbuf_append(b, ", ");
                gen(b, depth - 1);
                strbuf_append(b, ")");
                break;
        default:
                strbuf_appendf(b, "defined(%s)", pick(4) ? names[pick(ELEMENTSOF(names))] : "1");
                break;
        }
}

/* Made-up expressions, some broken on purpose (a byte dropped, doubled or
 * replaced): evaluated by ht_expr_eval_ex (the tree, or the text where it
 * does not parse) and by the evaluating parser, the same outcome. */
static void test_fuzz_differential(void **state) {
        static const char junk[] = "()+-*/!&|=<>,.\"\\ 9x_";
        unsigned failed = 0, ok = 0, trees = 0;
        /* a quarter under check-valgrind, where this is most of the time */
        unsigned n_exprs = getenv("HT_VALGRIND_LOGS") ? 1500 : 6000;
        for (unsigned i = 0; i < n_exprs; i++) {
                strbuf b = {0};
                gen(&b, 1 + pick(5));
                char *s = strbuf_steal(&b);
                size_t n = strlen(s);
                if (n > 1 && pick(3) == 0) {
                        size_t at = pick((unsigned)n);
                        switch (pick(3)) {
                        case 0: memmove(s + at, s + at + 1, n - at); break;
                        case 1: s[at] = junk[pick(sizeof junk - 1)]; break;
                        default: s[pick((unsigned)(at + 1))] = s[at]; break;
                        }
                }
                ht_expr *e = NULL;
                if (ht_expr_compile(s, &e) == 0)
                        trees++;
                ht_expr_free(e);
                failed += same_both_ways(s, strlen(s), NULL, &ok);
                free(s);
        }
        /* each kind was met */
        fprintf(stderr, "# %u expressions: %u parse, %u evaluations gave a value, %u an error\n", n_exprs, trees,
                ok, failed);
        assert_true(trees > n_exprs / 4);
        assert_true(ok > n_exprs / 2);
        assert_true(failed > n_exprs / 2);
}

/* The trees' own limits: a long chain is a flat node, not a deep one. */
static void test_long_chain(void **state) {
        strbuf b = {0};
        for (int i = 0; i < 30000; i++)
                strbuf_append(&b, i ? "+1" : "1");
        ht_expr *e = NULL;
        assert_int_equal(ht_expr_compile(b.data, &e), 0);
        ht_value v = ht_value_null();
        assert_int_equal(ht_expr_run(e, b.data, b.len, NULL, &v, NULL), 0);
        assert_int_equal(v.num, 30000);
        ht_expr_free(e);
        strbuf_done(&b);
}

int main(void) {
        ht_backend_registry_use(ht_backends);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_shipped_expr_is_built_in),
                cmocka_unit_test(test_shipped_exprs_evaluate_the_same),
                cmocka_unit_test(test_run_on_a_slice),
                cmocka_unit_test(test_fuzz_differential),
                cmocka_unit_test(test_long_chain),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
