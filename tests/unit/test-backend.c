/* The backend registry: ids are indexes, names and sections resolve both
 * ways, every descriptor a profile can name has what the generic code
 * calls, and the profile sections are the documented ones, in order. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "backend.h"
#include "profile-section.h"
#include "util.h"

static void test_ids_are_indexes(void **state) {
        size_t n = 0;
        for (; ht_backends[n]; n++)
                assert_int_equal(ht_backends[n]->id, n);
        assert_int_equal(n, _HT_BK_MAX);
        assert_null(ht_backend_get(_HT_BK_MAX));
        assert_null(ht_backend_get(-1));
        assert_null(ht_backend_id_to_string(_HT_BK_MAX));
}

static void test_names_resolve(void **state) {
        for (int i = 0; ht_backends[i]; i++) {
                const ht_backend *b = ht_backends[i];
                ht_backend_id id = -1;
                assert_int_equal(ht_backend_from_string(b->name, &id), 0);
                assert_int_equal(id, i);
                id = -1;
                assert_int_equal(ht_backend_from_string(ht_backend_section_name(i), &id), 0);
                assert_int_equal(id, i);
                assert_ptr_equal(ht_backend_by_name(b->name), b);
                assert_string_equal(ht_backend_id_to_string(i), b->name);
                for (int j = 0; j < i; j++)
                        assert_string_not_equal(ht_backends[j]->name, b->name);
        }
        ht_backend_id id = 0;
        assert_int_equal(ht_backend_from_string("blocks", &id), -EINVAL);
        assert_null(ht_backend_by_name("services"));  /* a section, not a name */
        ht_backend_id svc;
        assert_int_equal(ht_backend_from_string("services", &svc), 0);
        assert_string_equal(ht_backend_id_to_string(svc), "service");
}

static void test_descriptors_complete(void **state) {
        _cleanup_strv_free_ char **sections = NULL;
        for (int i = 0; ht_backends[i]; i++) {
                const ht_backend *b = ht_backends[i];
                if (b->internal) {
                        /* made only by generic code: nothing parses or checks it */
                        assert_null(b->parse_section);
                        assert_null(b->canon_key);
                        continue;
                }
                assert_non_null(b->parse_section);
                assert_non_null(b->canon_key);
                assert_non_null(b->plan);
                assert_non_null(b->rule_fields);
                assert_non_null(b->rule_fields[0].name);
                for (const ht_backend_field *f = b->rule_fields; f->name; f++) {
                        assert_true(f->offset + sizeof(ht_spec) <= sizeof(ht_entry));
                        assert_int_equal(f->offset % _Alignof(ht_spec), 0);
                }
                strv_push(&sections, ht_backend_section_name(i));
        }
        _cleanup_free_ char *l = strv_join(sections, " ");
        /* hosttune.profile(5), PROFILE FORMAT */
        assert_string_equal(l, "sysctl sysfs block cpu limits services systemd cmdline");
}

static void test_hugepages_key(void **state) {
        ht_backend_id sysctl, sysfs;
        assert_int_equal(ht_backend_from_string("sysctl", &sysctl), 0);
        assert_int_equal(ht_backend_from_string("sysfs", &sysfs), 0);
        assert_true(ht_backend_sets_hugepages(sysctl, "vm.nr_hugepages"));
        assert_true(ht_backend_sets_hugepages(sysctl, "vm/nr_hugepages"));
        assert_false(ht_backend_sets_hugepages(sysctl, "vm.nr_overcommit_hugepages"));
        assert_false(ht_backend_sets_hugepages(sysfs, "vm.nr_hugepages"));
        assert_false(ht_backend_sets_hugepages(_HT_BK_MAX, "vm.nr_hugepages"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ids_are_indexes),
                cmocka_unit_test(test_names_resolve),
                cmocka_unit_test(test_descriptors_complete),
                cmocka_unit_test(test_hugepages_key),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
