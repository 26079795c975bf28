/* Issue 34: a plan's facts tree builds a group only when a look-up names
 * it (ht_facts_to_json_lazy). The guard against the two trees drifting
 * apart: on every example host (each directory of tests/hosts), every name in the whole
 * tree, looked up first in a fresh lazy tree and again in one tree in
 * turn, gives the same value of the same type; names that do not exist
 * stay unknown; and the lazy tree, once built, prints byte for byte as
 * `facts --json` does. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "context.h"
#include "facts.h"
#include "util.h"

/* Every dotted name in o: each group, each value, and (with indexes)
 * each list element, as ht_facts_lookup names them. */
static void names_of(json_object *o, const char *prefix, bool indexes, char ***l) {
        if (json_object_is_type(o, json_type_object)) {
                json_object_object_foreach(o, k, v) {
                        _cleanup_free_ char *n = prefix ? xasprintf("%s.%s", prefix, k) : xstrdup(k);
                        strv_push(l, n);
                        names_of(v, n, indexes, l);
                }
        } else if (indexes && json_object_is_type(o, json_type_array)) {
                for (size_t i = 0; i < json_object_array_length(o); i++) {
                        _cleanup_free_ char *n = xasprintf("%s.%zu", prefix, i);
                        strv_push(l, n);
                        names_of(json_object_array_get_idx(o, i), n, indexes, l);
                }
        }
}

static const char *print(json_object *o) {
        return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
}

typedef json_object *lookup_fn(json_object *, const char *, bool *);

static void same(json_object *full, json_object *lazy, lookup_fn *lookup, const char *host, const char *name) {
        bool ef, el;
        json_object *vf = lookup(full, name, &ef), *vl = lookup(lazy, name, &el);
        if (ef != el || json_object_get_type(vf) != json_object_get_type(vl) || !json_object_equal(vf, vl))
                fail_msg("%s: facts.%s: whole tree %s %s, lazy tree %s %s", host, name, ef ? "has" : "lacks",
                         ef ? print(vf) : "", el ? "has" : "lacks", el ? print(vl) : "");
}

static void check_facts(const char *host, ht_facts *f, size_t *ret_names) {
        json_object *full = ht_facts_to_json(f);
        _cleanup_strv_free_ char **fields = NULL, **indexed = NULL;
        names_of(full, NULL, false, &fields);
        names_of(full, NULL, true, &indexed);
        static const char *const missing[] = {"", "nope", "memory.nope", "memory..total_kb", ".memory",
                                              "memory.", "kernel.release.x", "cpu.flags.nope", "image.x.y"};
        for (size_t i = 0; i < ELEMENTSOF(missing); i++)
                strv_push(&fields, missing[i]);

        /* each name as the first look-up of a plan */
        for (size_t i = 0; fields[i]; i++) {
                json_object *lazy = ht_facts_to_json_lazy(f);
                same(full, lazy, ht_facts_lookup_field, host, fields[i]);
                json_object_put(lazy);
        }
        for (size_t i = 0; indexed[i]; i++) {
                json_object *lazy = ht_facts_to_json_lazy(f);
                same(full, lazy, ht_facts_lookup, host, indexed[i]);
                json_object_put(lazy);
        }
        /* all in one tree, last name first: built groups stay right */
        json_object *lazy = ht_facts_to_json_lazy(f);
        for (size_t n = strv_length(fields); n > 0; n--)
                same(full, lazy, ht_facts_lookup_field, host, fields[n - 1]);
        assert_string_equal(print(lazy), print(full));
        json_object_put(lazy);

        /* the candidates of "did you mean" walk a whole tree */
        lazy = ht_facts_to_json_lazy(f);
        same(full, lazy, ht_facts_lookup_field, host, "thp.enabled");
        ht_facts_json_fill_all(lazy);
        assert_string_equal(print(lazy), print(full));
        json_object_put(lazy);
        *ret_names += strv_length(fields) + strv_length(indexed);
        json_object_put(full);
}

/* What the resolver's look-up does first (facts-demand.c): devices and
 * workloads read into the tree; the lazy tree comes out the same. */
static void check_demand(const char *host, const ht_context *c, ht_facts *f) {
        static const char *const names[] = {"block.devices", "cpu.cpufreq.driver", "cpu.count",
                                            "workload.oracle.sids", "workload.jvm.processes",
                                            "workload.processes", "image.offline"};
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                json_object *full = ht_facts_to_json(f), *lazy = ht_facts_to_json_lazy(f);
                ht_facts_demand df = {0}, dl = {0};
                _cleanup_strv_free_ char **wf = NULL, **wl = NULL;
                ht_facts_need(c, full, names[i], &df, &wf);
                ht_facts_need(c, lazy, names[i], &dl, &wl);
                same(full, lazy, ht_facts_lookup_field, host, names[i]);
                ht_facts_json_fill_all(lazy);
                if (!streq(print(lazy), print(full)))
                        fail_msg("%s: after facts.%s is read on demand the trees differ", host, names[i]);
                assert_int_equal(strv_length(wf), strv_length(wl));
                json_object_put(full);
                json_object_put(lazy);
        }
}

static void test_lazy_same_as_whole(void **state) {
        const char *top = getenv("top_srcdir");
        _cleanup_free_ char *hosts = xasprintf("%s/tests/hosts", top ? top : ".");
        /* the fixtures' plain files stand for a running kernel, as in
         * the integration tests */
        setenv("HOSTTUNE_TEST_LIVE_FIXTURES", "1", 1);
        DIR *d = opendir(hosts);
        assert_non_null(d);
        size_t n_hosts = 0, n_names = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                _cleanup_free_ char *root = xasprintf("%s/%s", hosts, de->d_name);
                ht_context *c = NULL;
                if (ht_context_new(root, &c) < 0)
                        continue; /* a file, not a host */
                static const ht_facts_scope scopes[] = {HT_FACTS_HOST, HT_FACTS_WITH_WORKLOAD};
                for (size_t s = 0; s < ELEMENTSOF(scopes); s++) {
                        ht_facts *f = NULL;
                        assert_int_equal(ht_facts_collect(c, scopes[s], &f), 0);
                        check_facts(de->d_name, f, &n_names);
                        check_demand(de->d_name, c, f);
                        ht_facts_free(f);
                }
                ht_context_free(c);
                n_hosts++;
        }
        closedir(d);
        /* the example hosts were found, with their facts */
        assert_true(n_hosts >= 10);
        assert_true(n_names > 1000 * n_hosts / 10);
        unsetenv("HOSTTUNE_TEST_LIVE_FIXTURES");
}

/* A tree that is not lazy (a --facts file's, facts --json's) is left as
 * it is by the calls that build a lazy one's groups. */
static void test_other_trees_untouched(void **state) {
        json_object *t = json_tokener_parse("{\"memory\": null, \"cpu\": {\"count\": 4}}");
        ht_facts_json_fill(t, "memory.total_kb");
        ht_facts_json_fill_all(t);
        bool e;
        assert_null(ht_facts_lookup_field(t, "memory", &e));
        assert_true(e);
        assert_string_equal(json_object_to_json_string(t), "{ \"memory\": null, \"cpu\": { \"count\": 4 } }");
        json_object_put(t);
        ht_facts_json_fill(NULL, "memory");
        ht_facts_json_fill_all(NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_lazy_same_as_whole),
                cmocka_unit_test(test_other_trees_untouched),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
