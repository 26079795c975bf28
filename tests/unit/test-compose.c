/* Composition by meaning (src/profile/compose.c, issue 37) on branch
 * resolutions built by hand: a summed setting, bounds that meet and an
 * empty range, requires beats prefers, two requires that exclude each
 * other, lowest, and the order only where nothing is declared (said). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compose.h"
#include "util.h"

static char *label(const ht_setting *s) { return xasprintf("sysctl %s", s->key); }
static const char *backend_name(ht_backend_id id) { return id == HT_BK_SYSCTL ? "sysctl" : "other"; }
static const ht_compose_ops ops = {.label = label, .backend_name = backend_name};

static ht_resolved *branch(void) { return xcalloc(1, sizeof(ht_resolved)); }

static void param(ht_resolved *r, const char *name, const char *value, const char *source) {
        r->params = xrealloc(r->params, (r->n_params + 1) * sizeof(*r->params));
        r->params[r->n_params++] = (ht_param){.name = ht_arena_strdup(&r->arena, name),
                                              .value = ht_arena_strdup(&r->arena, value),
                                              .source = ht_arena_strdup(&r->arena, source)};
}

static void setting(ht_resolved *r, const char *key, const char *value, ht_bound b, const char *source) {
        r->settings = xrealloc(r->settings, (r->n_settings + 1) * sizeof(*r->settings));
        r->settings[r->n_settings++] = (ht_setting){.backend = HT_BK_SYSCTL,
                                                    .key = ht_arena_strdup(&r->arena, key),
                                                    .value = ht_arena_strdup(&r->arena, value), .bound = b,
                                                    .source = ht_arena_strdup(&r->arena, source)};
}

static void branch_free(ht_resolved *r) {
        free(r->params);
        free(r->settings);
        ht_arena_done(&r->arena); /* the strings of both */
        strv_free(r->warnings);
        strv_free(r->errors);
        for (size_t i = 0; i < r->skipped.n; i++) {
                free(r->skipped.items[i].setting);
                free(r->skipped.items[i].reason);
                free(r->skipped.items[i].source);
                free(r->skipped.items[i].set_by);
                free(r->skipped.items[i].condition);
        }
        free(r->skipped.items);
        json_object_put(r->composed);
        free(r);
}

static const char *value_of(const ht_resolved *r, const char *key) {
        for (size_t i = 0; i < r->n_settings; i++)
                if (streq(r->settings[i].key, key))
                        return r->settings[i].value;
        return NULL;
}

/* compose a and b (named "a", "b", in that inherit order) into res */
static int compose2(ht_resolved *res, ht_resolved *a, ht_resolved *b, char **ret_error) {
        ht_resolved *subs[] = {a, b};
        char *names[] = {(char *)"a", (char *)"b", NULL};
        json_object *facts = json_tokener_parse("{\"memory\": {\"total_kb\": 1048576}}");
        int k = ht_compose(res, subs, names, 2, facts, &ops, ret_error);
        json_object_put(facts);
        return k;
}

static void test_sum_and_cap(void **state) {
        (void)state;
        ht_resolved *a = branch(), *b = branch(), *res = branch();
        param(a, "summed", "sysctl.vm.nr_hugepages", "rules:1");
        param(b, "summed", "sysctl.vm.nr_hugepages", "rules:1");
        param(a, "hugepages_max_percent", "70", "a.profile:9");
        param(b, "hugepages_max_percent", "90", "rules:2");
        param(a, "hugepage_size_kb", "2048", "rules:3");
        param(b, "hugepage_size_kb", "2048", "rules:3");
        setting(a, "vm.nr_hugepages", "200", HT_BOUND_EXACT, "rule x");
        setting(b, "vm.nr_hugepages", "100", HT_BOUND_EXACT, "rule x");
        char *err = NULL;
        assert_int_equal(compose2(res, a, b, &err), 0);
        assert_string_equal(value_of(res, "vm.nr_hugepages"), "300");
        /* 300 pages of 2 MB are 600 MB, within a's 70 % of 1 GB (716.8 MB) */
        assert_null(res->errors);
        branch_free(res);
        res = branch();
        a->settings[0].value = ht_arena_strdup(&a->arena, "300"); /* the arena owns both */
        assert_int_equal(compose2(res, a, b, &err), 0);
        /* 400 pages, 800 MB: over a's 70 %, though within b's 90 % */
        assert_non_null(res->errors);
        assert_non_null(strstr(res->errors[0], "a.profile:9"));
        branch_free(res);
        branch_free(a);
        branch_free(b);
}

static void test_bounds(void **state) {
        (void)state;
        ht_resolved *a = branch(), *b = branch(), *res = branch();
        setting(a, "vm.max_map_count", "300000", HT_BOUND_AT_LEAST, "a.profile:3");
        setting(b, "vm.max_map_count", "400000", HT_BOUND_AT_MOST, "b.profile:4");
        setting(a, "kernel.sem", "250 32000 100 128", HT_BOUND_AT_LEAST, "a.profile:5");
        setting(b, "kernel.sem", "500 16000 100 256", HT_BOUND_AT_LEAST, "b.profile:6");
        char *err = NULL;
        assert_int_equal(compose2(res, a, b, &err), 0);
        assert_string_equal(value_of(res, "vm.max_map_count"), "300000..400000");
        assert_string_equal(value_of(res, "kernel.sem"), "500 32000 100 256");
        branch_free(res);
        res = branch();
        b->settings[0].value = ht_arena_strdup(&b->arena, "200000");
        assert_int_equal(compose2(res, a, b, &err), -EINVAL);
        assert_non_null(strstr(err, "a.profile:3"));
        assert_non_null(strstr(err, "b.profile:4"));
        free(err);
        branch_free(res);
        branch_free(a);
        branch_free(b);
}

static void test_choices(void **state) {
        (void)state;
        ht_resolved *a = branch(), *b = branch(), *res = branch();
        param(a, "thp", "never", "a.profile:1");
        param(a, "requires", "thp", "a.profile:2");
        param(b, "thp", "madvise", "b.profile:1");
        param(b, "prefers", "thp", "b.profile:2");
        param(a, "lowest", "sysctl.vm.swappiness", "a.profile:3");
        param(b, "lowest", "sysctl.vm.swappiness", "b.profile:3");
        setting(a, "thp", "never", HT_BOUND_EXACT, "rule thp-sysfs (r:1)");
        setting(b, "thp", "madvise", HT_BOUND_EXACT, "rule thp-sysfs (r:1)");
        setting(a, "vm.swappiness", "10", HT_BOUND_EXACT, "a.profile:7");
        setting(b, "vm.swappiness", "1", HT_BOUND_EXACT, "b.profile:7");
        setting(a, "vm.dirty_ratio", "10", HT_BOUND_EXACT, "a.profile:8");
        setting(b, "vm.dirty_ratio", "25", HT_BOUND_EXACT, "b.profile:8");
        char *err = NULL;
        assert_int_equal(compose2(res, a, b, &err), 0);
        assert_string_equal(value_of(res, "thp"), "never");      /* requires beats prefers */
        assert_string_equal(value_of(res, "vm.swappiness"), "1"); /* lowest */
        assert_string_equal(value_of(res, "vm.dirty_ratio"), "25"); /* order: b is later */
        assert_non_null(res->warnings);
        assert_non_null(strstr(res->warnings[0], "order decides: sysctl vm.dirty_ratio"));
        /* the same the other way round, but for the order-decided one */
        branch_free(res);
        res = branch();
        ht_resolved *subs[] = {b, a};
        char *names[] = {(char *)"b", (char *)"a", NULL};
        json_object *facts = json_object_new_object();
        assert_int_equal(ht_compose(res, subs, names, 2, facts, &ops, &err), 0);
        json_object_put(facts);
        assert_string_equal(value_of(res, "thp"), "never");
        assert_string_equal(value_of(res, "vm.swappiness"), "1");
        assert_string_equal(value_of(res, "vm.dirty_ratio"), "10");
        branch_free(res);
        /* two requires that exclude each other: an error naming both */
        res = branch();
        b->params[1].name = ht_arena_strdup(&b->arena, "requires"); /* the arena owns both */
        assert_int_equal(compose2(res, a, b, &err), -EINVAL);
        assert_non_null(strstr(err, "a.profile:2"));
        assert_non_null(strstr(err, "b.profile:2"));
        free(err);
        branch_free(res);
        branch_free(a);
        branch_free(b);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sum_and_cap),
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_choices),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
