/* libFuzzer target for the expression evaluator: any input must give a
 * value or an error message, never a crash, a leak or undefined behaviour,
 * and the results must keep the invariants callers rely on. The tree
 * (ht_expr_eval_ex) and the evaluating parser (ht_expr_eval_text) must
 * agree: the same value or error message, the same names looked up in the
 * same order (issue 34). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "expr.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_lookup(void *userdata, const char *name, ht_value *ret) {
        if (userdata)
                strbuf_appendf(userdata, "%s\n", name);
        if (streq(name, "sga_max_size"))
                *ret = ht_value_int(INT64_C(18) << 30);
        else if (streq(name, "big"))
                *ret = ht_value_int(INT64_MAX);
        else if (streq(name, "small"))
                *ret = ht_value_int(INT64_MIN);
        else if (streq(name, "facts.hugepages.default_size_kb"))
                *ret = ht_value_int(2048);
        else if (streq(name, "facts.kernel.release"))
                *ret = ht_value_str("5.10.134-16.al8.x86_64");
        else if (streq(name, "facts.xen"))
                *ret = ht_value_bool(true);
        else if (streq(name, "facts.unknown"))
                *ret = ht_value_null();
        else if (streq(name, "broken"))
                return -EIO;
        else
                return -ENOENT;
        return 0;
}

static char **fuzz_candidates(void *userdata) {
        char **l = NULL;
        if (userdata)
                strbuf_append(userdata, "?\n");
        strv_push(&l, "sga_max_size");
        strv_push(&l, "facts.hugepages.default_size_kb");
        strv_push(&l, "facts.kernel.release");
        return l;
}

static int64_t gcd64(int64_t a, int64_t b) {
        uint64_t x = a < 0 ? -(uint64_t)a : (uint64_t)a, y = (uint64_t)b;
        while (y) {
                uint64_t t = x % y;
                x = y;
                y = t;
        }
        return (int64_t)x;
}

/* One evaluation's outcome as text, with the names it looked up. */
static char *outcome(int r, const ht_value *v, const char *err, strbuf *log) {
        char *s;
        if (r < 0)
                s = xasprintf("%d %s\n%s", r, err ? err : "-", log->data ? log->data : "");
        else if (v->type == HT_VAL_STR)
                s = xasprintf("str %s\n%s", v->str, log->data ? log->data : "");
        else
                s = xasprintf("%d %lld/%lld\n%s", (int)v->type, (long long)v->num, (long long)v->den,
                              log->data ? log->data : "");
        strbuf_done(log);
        return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *src = xstrndup((const char *)data, size);
        strbuf log = {0}, text_log = {0};
        const ht_expr_env env = { .lookup = fuzz_lookup, .userdata = &log, .candidates = fuzz_candidates };
        const ht_expr_env text_env = { .lookup = fuzz_lookup, .userdata = &text_log,
                                       .candidates = fuzz_candidates };
        ht_value v = ht_value_null(), tv = ht_value_null();
        char *err = NULL, *text_err = NULL;

        int r = ht_expr_eval_ex(src, &env, &v, &err);
        int tr = ht_expr_eval_text(src, &text_env, &tv, &text_err);
        char *o = outcome(r, &v, err, &log), *to = outcome(tr, &tv, text_err, &text_log);
        if (strcmp(o, to) != 0)
                abort();
        free(o);
        free(to);
        free(text_err);
        ht_value_done(&tv);
        if (r < 0) {
                /* every failure explains itself */
                if (!err || !(startswith(err, "column ") || startswith(err, "expression too long")))
                        abort();
        } else {
                if (err)
                        abort();
                if (v.type == HT_VAL_INT && (v.den <= 0 || gcd64(v.num, v.den) != 1))
                        abort();
                char *s = NULL;
                r = ht_value_to_string(&v, &s);
                bool fraction = v.type == HT_VAL_INT && v.den != 1;
                if ((r == -EDOM) != fraction || (r == -ENODATA) != (v.type == HT_VAL_NULL))
                        abort();
                free(s);
        }
        free(err);
        ht_value_done(&v);

        /* the other entry points take the same untrusted text */
        v = ht_value_parse_literal(src);
        ht_value_done(&v);
        size_t half = strlen(src) / 2;
        char *b = src + half;
        int c1 = ht_version_compare(b, src), c2 = ht_version_compare(src, b);
        if ((c1 > 0) != (c2 < 0) || (c1 == 0) != (c2 == 0))
                abort();

        free(src);
        return 0;
}
