/* Issue 34: the resolver looks each name up once (profile-eval.c: the
 * parameters' hash index, the facts' memo). The guard against a stale
 * value: a parameter whose spec changes after its value was used
 * (--set, a later declaration), a name declared after it was unknown,
 * a fact read again after the facts room read more into the tree, a
 * setting read again after it was replaced, changed or dropped;
 * and a memo hit still names the host file the fact came from. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend.h"
#include "context.h"
#include "resolver-internal.h"
#include "util.h"

static int64_t eval_int(ht_resolver *r, const char *text) {
        ht_value v = {0};
        _cleanup_free_ char *e = NULL;
        int k = ht_resolver_eval_expr(r, text, "test", 1, "expr", &v, &e);
        if (k < 0)
                fail_msg("%s: %s", text, e ? e : "error");
        assert_int_equal(v.type, HT_VAL_INT);
        int64_t n = v.num;
        ht_value_done(&v);
        return n;
}

static void declare(ht_resolver *r, const char *name, ht_spec_kind kind, const char *text, int64_t lit) {
        ht_param_decl d = {.name = (char *)name, .file = "test.profile", .line = 1};
        d.spec.kind = kind;
        if (kind == HT_SPEC_LIT)
                d.spec.lit = ht_value_int(lit);
        else
                d.spec.text = (char *)text;
        ht_param_declare(r, &d);
}

/* b = a + 1 is used, then --set a=5: b is 6, not the 2 it was. */
static void test_set_after_use(void **state) {
        (void)state;
        ht_resolver r = {0};
        declare(&r, "a", HT_SPEC_LIT, NULL, 1);
        declare(&r, "b", HT_SPEC_EXPR, "a + 1", 0);
        assert_int_equal(eval_int(&r, "b"), 2);
        assert_int_equal(eval_int(&r, "b * 10"), 20);
        _cleanup_free_ char *e = NULL;
        assert_int_equal(ht_set_param(&r, "a=5", &e), 0);
        assert_int_equal(eval_int(&r, "a"), 5);
        assert_int_equal(eval_int(&r, "b"), 6);
        ht_resolver_done(&r);
}

/* A parameter declared again (a child profile's default) after use. */
static void test_declared_again_after_use(void **state) {
        (void)state;
        ht_resolver r = {0};
        declare(&r, "a", HT_SPEC_LIT, NULL, 1);
        declare(&r, "c", HT_SPEC_EXPR, "a * 3", 0);
        assert_int_equal(eval_int(&r, "c"), 3);
        declare(&r, "a", HT_SPEC_LIT, NULL, 7);
        assert_int_equal(eval_int(&r, "a"), 7);
        assert_int_equal(eval_int(&r, "c"), 21);
        ht_resolver_done(&r);
}

/* Unknown, then declared: an unknown name is not remembered as such;
 * and many parameters (the index grows) are all found. */
static void test_defined_later(void **state) {
        (void)state;
        ht_resolver r = {0};
        ht_value v = {0};
        _cleanup_free_ char *e = NULL;
        assert_int_equal(ht_resolver_eval_expr(&r, "later + 1", "test", 3, "expr", &v, &e), -ENOENT);
        assert_non_null(strstr(e, "test:3: expr: column 1: unknown name 'later'"));
        declare(&r, "later", HT_SPEC_LIT, NULL, 41);
        assert_int_equal(eval_int(&r, "later + 1"), 42);
        for (int i = 0; i < 300; i++) {
                _cleanup_free_ char *n = xasprintf("p%d", i);
                declare(&r, n, HT_SPEC_LIT, NULL, i);
        }
        for (int i = 0; i < 300; i++) {
                _cleanup_free_ char *t = xasprintf("p%d + later", i);
                assert_int_equal(eval_int(&r, t), i + 41);
        }
        ht_resolver_done(&r);
}

/* A fact read, then the tree changed by the facts room reading more (a
 * workload's part, which may replace what was read): read again. */
static void test_fact_after_more_read(void **state) {
        (void)state;
        const char *top = getenv("top_srcdir");
        _cleanup_free_ char *root = xasprintf("%s/tests/hosts/debian12-kvm", top ? top : ".");
        ht_context *c = NULL;
        assert_int_equal(ht_context_new(root, &c), 0);
        json_object *facts = json_object_new_object(), *mem = json_object_new_object();
        json_object_object_add(mem, "total_kb", json_object_new_int64(1));
        json_object_object_add(facts, "memory", mem);
        ht_resolver r = {.c = c, .facts = facts};
        assert_int_equal(eval_int(&r, "facts.memory.total_kb"), 1);
        json_object_object_add(mem, "total_kb", json_object_new_int64(2));
        /* nothing read since: the memo answers (which the test below
         * needs, else it would prove nothing) */
        assert_int_equal(eval_int(&r, "facts.memory.total_kb"), 1);
        ht_value v = {0};
        _cleanup_free_ char *e = NULL;
        /* the MySQL part of the workload facts, read now */
        assert_int_equal(ht_resolver_eval_expr(&r, "defined(facts.workload.mysql.running)", "test", 1, "expr",
                                               &v, &e), 0);
        ht_value_done(&v);
        assert_int_equal(eval_int(&r, "facts.memory.total_kb"), 2);
        ht_resolver_done(&r);
        json_object_put(facts);
        ht_context_free(c);
}

/* The host file a fact came from (its NAME_from) is named for each
 * parameter that uses it, the first read's and the memo's alike. */
static void test_from_on_memo_hit(void **state) {
        (void)state;
        json_object *facts = json_object_new_object(), *g = json_object_new_object();
        json_object_object_add(g, "size", json_object_new_int64(5));
        json_object_object_add(g, "size_from", json_object_new_string("/etc/x.conf"));
        json_object_object_add(facts, "x", g);
        ht_resolver r = {.facts = facts};
        declare(&r, "one", HT_SPEC_EXPR, "facts.x.size", 0);
        declare(&r, "two", HT_SPEC_EXPR, "facts.x.size * 2", 0);
        assert_int_equal(eval_int(&r, "one + two"), 15);
        const char *one = ht_param_find(&r, "one")->from, *two = ht_param_find(&r, "two")->from;
        assert_non_null(one);
        assert_non_null(two);
        assert_string_equal(one, "/etc/x.conf");
        assert_string_equal(two, "/etc/x.conf");
        ht_resolver_done(&r);
        json_object_put(facts);
}

static void eval_is(ht_resolver *r, const char *text, const char *want) {
        ht_value v = {0};
        _cleanup_free_ char *e = NULL;
        if (ht_resolver_eval_expr(r, text, "test", 1, "expr", &v, &e) < 0)
                fail_msg("%s: %s", text, e ? e : "error");
        _cleanup_free_ char *got = v.type == HT_VAL_NULL ? xstrdup("null") : ht_value_format(&v);
        ht_value_done(&v);
        assert_string_equal(got, want);
}

/* setting.sysctl.KEY read, then the setting replaced by a rule, changed
 * through ht_resolver_setting (as a rule's flags are), dropped, pinned
 * by --set sysctl., pinned again: each read gives the value now. */
static void test_setting_after_change(void **state) {
        (void)state;
        ht_backend_registry_use(ht_backends);
        ht_backend_id sysctl = ht_backend_by_name("sysctl")->id;
        ht_resolver r = {0};
        _cleanup_free_ char *e = NULL;
        ht_setting s = {.backend = sysctl, .key = ht_resolver_strdup(&r, "vm.swappiness"),
                        .value = ht_resolver_strdup(&r, "10")};
        assert_int_equal(ht_resolver_add_entry(&r, &s, 0, NULL, "a.profile", 1, false, &e), 0);
        eval_is(&r, "setting.sysctl.vm.swappiness", "10");
        eval_is(&r, "setting.sysctl.vm.swappiness * 2", "20");
        ht_setting s2 = {.backend = sysctl, .key = ht_resolver_strdup(&r, "vm.swappiness"),
                         .value = ht_resolver_strdup(&r, "20")};
        assert_int_equal(ht_resolver_add(&r, &s2, -1, "r", "x.rules", 2, &e), 0);
        eval_is(&r, "setting.sysctl.vm.swappiness", "20");
        const ht_setting like = {.backend = sysctl, .key = (char *)"vm.swappiness"};
        ht_resolver_setting(&r, &like, NULL)->value = ht_resolver_strdup(&r, "30");
        eval_is(&r, "setting.sysctl.vm.swappiness", "30");
        /* removed (ht_resolver_drop's own step, without the hand-out) */
        ht_resolver_remove(&r, ht_resolver_find(&r, &like));
        eval_is(&r, "setting.sysctl.vm.swappiness", "null");
        ht_set_pin_sysctl(&r, "vm.swappiness", "40");
        eval_is(&r, "setting.sysctl.vm.swappiness", "40");
        ht_set_pin_sysctl(&r, "vm.swappiness", "50");
        eval_is(&r, "setting.sysctl.vm.swappiness", "50");
        ht_resolver_done(&r);
}

/* The sources and values made without printf read as printf's. */
static void test_made_by_hand(void **state) {
        (void)state;
        ht_resolver r = {0};
        static const int64_t ns[] = {0, 1, -1, 9, 10, 4294967296, INT64_MAX, INT64_MIN};
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
                _cleanup_free_ char *want = xasprintf("%" PRId64, ns[i]);
                assert_string_equal(ht_resolver_int(&r, ns[i]), want);
        }
        assert_string_equal(ht_resolver_file_line(&r, "", "", "", "/p/a.profile", 0, ""), "/p/a.profile:0");
        assert_string_equal(ht_resolver_file_line(&r, "rule ", "x", " (", "/r/b.rules", 4294967295u, ")"),
                            "rule x (/r/b.rules:4294967295)");
        declare(&r, "a", HT_SPEC_LIT, NULL, 1);
        assert_string_equal(ht_param_source(&r, ht_param_find(&r, "a")), "test.profile:1");
        _cleanup_free_ char *e = NULL;
        assert_int_equal(ht_set_param(&r, "a=2", &e), 0);
        assert_string_equal(ht_param_source(&r, ht_param_find(&r, "a")), "--set");
        ht_resolver_done(&r);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_set_after_use),
                cmocka_unit_test(test_declared_again_after_use),
                cmocka_unit_test(test_defined_later),
                cmocka_unit_test(test_fact_after_more_read),
                cmocka_unit_test(test_from_on_memo_hit),
                cmocka_unit_test(test_made_by_hand),
                cmocka_unit_test(test_setting_after_change),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
