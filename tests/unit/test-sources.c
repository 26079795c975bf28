/* Sources: the comment a profile or rules file writes above a setting (or
 * at the end of its line) is what the setting cites; show carries it. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile-internal.h"
#include "util.h"
#include "tmptree.h"

static char *tmp_root, *pdir, *rdir;

static int setup(void **state) {
        tmp_root = tt_mkdtemp("test-sources");
        pdir = xasprintf("%s/profiles", tmp_root);
        rdir = xasprintf("%s/rules", tmp_root);
        _cleanup_free_ char *etc = xasprintf("%s/etc", tmp_root);
        assert_int_equal(mkdir(pdir, 0755), 0);
        assert_int_equal(mkdir(rdir, 0755), 0);
        assert_int_equal(mkdir(etc, 0755), 0);
        tt_put(etc, "group", "root:x:0:\n", 0644);
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
        return 0;
}

static int teardown(void **state) {
        tt_rm_rf(tmp_root);
        free(tmp_root);
        free(pdir);
        free(rdir);
        return 0;
}

static ht_pfile *load_profile(const char *text) {
        tt_put(pdir, "t.profile", text, 0644);
        _cleanup_free_ char *path = xasprintf("%s/t.profile", pdir), *err = NULL;
        ht_pfile *p = NULL;
        assert_int_equal(ht_pfile_load(path, "t", &p, &err), 0);
        return p;
}

static const ht_entry *entry(const ht_pfile *p, const char *key) {
        for (size_t i = 0; i < p->n_entries; i++) {
                const ht_entry *e = &p->entries[i];
                const ht_spec *k = e->backend == HT_BK_LIMITS ? &e->item
                                   : e->backend == HT_BK_SERVICE ? &e->directive : &e->key;
                if (k->kind == HT_SPEC_LIT && k->lit.str && streq(k->lit.str, key))
                        return e;
        }
        fail_msg("no entry %s", key);
        return NULL;
}

static void assert_comment(const char *got, const char *want) {
        if (!want)
                assert_null(got);
        else {
                assert_non_null(got);
                assert_string_equal(got, want);
        }
}

static void test_comment_above_and_trailing(void **state) {
        ht_pfile *p = load_profile(
                "# the file's header: not any setting's\n"
                "\n"
                "params = {\n"
                "        # Doc ID 1234.1:\n"
                "        #\tsays 2\n"
                "        slack = 2;\n"
                "        user = \"oracle\";  // trailing, C++ style\n"
                "        bare = 1;\n"
                "};\n"
                "sysctl = {\n"
                "        # about the vm group only\n"
                "        vm = {\n"
                "                # Guide, \"Minimums\":\n"
                "                # at least 65530\n"
                "                max_map_count = { value = 65530; bound = \"at-least\"; }; # minimum\n"
                "\n"
                "                # separated by a blank line: not above the next one\n"
                "\n"
                "                swappiness = 10;\n"
                "                /* a block comment is not a source */\n"
                "                dirty_ratio = 15;\n"
                "                dirty_background_ratio = 5; # its own\n"
                "        };\n"
                "};\n"
                "limits = (\n"
                "        # preinstall: nofile soft limit is 1024\n"
                "        { domain = \"oracle\"; type = \"soft\"; item = \"nofile\"; value = 1024; }\n"
                ");\n");
        assert_int_equal(p->n_params, 3);
        assert_comment(p->params[0].comment, "Doc ID 1234.1: says 2");
        assert_comment(p->params[1].comment, "trailing, C++ style");
        assert_comment(p->params[2].comment, NULL);
        assert_comment(entry(p, "vm.max_map_count")->comment,
                       "Guide, \"Minimums\": at least 65530 minimum");
        assert_comment(entry(p, "vm.swappiness")->comment, NULL);
        assert_comment(entry(p, "vm.dirty_ratio")->comment, NULL);
        assert_comment(entry(p, "vm.dirty_background_ratio")->comment, "its own");
        assert_comment(entry(p, "nofile")->comment, "preinstall: nofile soft limit is 1024");
        ht_pfile_free(p);
}

static void test_rule_set_comment(void **state) {
        tt_put(rdir, "t.rules",
               "rules = (\n"
               "        # above the rule\n"
               "        {\n"
               "                name = \"a\";\n"
               "                set = (\n"
               "                        # the set's own\n"
               "                        { backend = \"sysctl\"; key = \"vm.a\"; value = 1; },\n"
               "                        { backend = \"sysctl\"; key = \"vm.b\"; value = 2; }\n"
               "                );\n"
               "        },\n"
               "        {\n"
               "                # inside, above the name\n"
               "                name = \"b\";\n"
               "                set = { backend = \"sysctl\"; key = \"vm.c\"; value = 3; };\n"
               "        },\n"
               "        {\n"
               "                name = \"c\";\n"
               "                description = \"the description, at last\";\n"
               "                set = { backend = \"sysctl\"; key = \"vm.d\"; value = 4; };\n"
               "        },\n"
               "        {\n"
               "                name = \"d\";\n"
               "                set = { backend = \"sysctl\"; key = \"vm.e\"; value = 5; };\n"
               "        }\n"
               ");\n", 0644);
        _cleanup_free_ char *path = xasprintf("%s/t.rules", rdir), *err = NULL;
        ht_rfile *f = NULL;
        assert_int_equal(ht_rfile_load(path, &f, &err), 0);
        assert_int_equal(f->n_rules, 4);
        assert_comment(f->rules[0].sets[0].comment, "the set's own");
        assert_comment(f->rules[0].sets[1].comment, "above the rule");
        assert_comment(f->rules[1].sets[0].comment, "inside, above the name");
        assert_comment(f->rules[2].sets[0].comment, "the description, at last");
        assert_comment(f->rules[3].sets[0].comment, NULL);
        ht_rfile_free(f);
        unlink(path);
}

static const ht_setting *find(const ht_resolved *r, const char *key) {
        for (size_t i = 0; i < r->n_settings; i++)
                if (streq(r->settings[i].key, key))
                        return &r->settings[i];
        fail_msg("no setting %s", key);
        return NULL;
}

static ht_resolved *resolve(char *const *sets) {
        ht_context *c;
        assert_int_equal(ht_context_new(tmp_root, &c), 0);
        strv_push(&c->profile_path, pdir);
        strv_push(&c->rules_path, rdir);
        json_object *facts = json_object_new_object();
        ht_resolved *r = NULL;
        _cleanup_free_ char *err = NULL;
        int k = ht_profile_resolve_json(c, facts, "t", sets, &r, &err);
        if (k < 0)
                fail_msg("%s", err);
        json_object_put(facts);
        ht_context_free(c);
        return r;
}

static const char *param_citation(const ht_resolved *r, const char *name) {
        for (size_t i = 0; i < r->n_params; i++)
                if (streq(r->params[i].name, name))
                        return r->params[i].citation;
        fail_msg("no param %s", name);
        return NULL;
}

static void test_resolved_citations(void **state) {
        ht_pfile_free(load_profile(
                "params = {\n"
                "        # Elasticsearch Reference, \"File descriptors\": at least 65535\n"
                "        nofile = 65535;\n"
                "        other = 7;\n"
                "};\n"
                "sysctl = {\n"
                "        # Red Hat: 10\n"
                "        vm = { swappiness = 10; };\n"
                "        fs = { nr_open = \"= nofile\"; };\n"
                "        kernel = {\n"
                "                # its own, over the parameter's\n"
                "                threads-max = \"= nofile\";\n"
                "                pid_max = \"= other\";\n"
                "        };\n"
                "};\n"));
        ht_resolved *r = resolve(NULL);
        assert_comment(param_citation(r, "nofile"),
                       "Elasticsearch Reference, \"File descriptors\": at least 65535");
        assert_comment(param_citation(r, "other"), NULL);
        /* the group's comment is above "vm = {", swappiness on the same line */
        assert_comment(find(r, "vm.swappiness")->citation, "Red Hat: 10");
        assert_comment(find(r, "fs.nr_open")->citation,
                       "nofile: Elasticsearch Reference, \"File descriptors\": at least 65535");
        assert_comment(find(r, "kernel.threads-max")->citation, "its own, over the parameter's");
        assert_comment(find(r, "kernel.pid_max")->citation, NULL);
        ht_resolved_free(r);

        /* a parameter from --set: the value is the user's, and says so */
        char *sets[] = {(char *)"nofile=100000", NULL};
        r = resolve(sets);
        assert_comment(param_citation(r, "nofile"), NULL);
        assert_comment(find(r, "fs.nr_open")->citation, "--set nofile");
        assert_comment(find(r, "kernel.threads-max")->citation,
                       "its own, over the parameter's (value: --set nofile)");
        ht_resolved_free(r);

        /* a --set sysctl value cites nothing but --set */
        char *sets2[] = {(char *)"sysctl.vm.swappiness=1", NULL};
        r = resolve(sets2);
        assert_string_equal(find(r, "vm.swappiness")->value, "1");
        assert_string_equal(find(r, "vm.swappiness")->source, "--set");
        assert_null(find(r, "vm.swappiness")->citation);
        ht_resolved_free(r);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_comment_above_and_trailing),
                cmocka_unit_test(test_rule_set_comment),
                cmocka_unit_test(test_resolved_citations),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
