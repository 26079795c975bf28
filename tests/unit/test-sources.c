/* Sources: the comment a profile or rules file writes above a setting (or
 * at the end of its line) is what the setting cites; show carries it. And
 * every setting the project ships cites one (issue 15, "Sources"): a
 * shipped value without a source comment fails here, by file:line. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend.h"
#include "profile-model.h"
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
                const ht_spec *k = e->backend == HT_BK_LIMITS ? &e->fields[2]
                                   : e->backend == HT_BK_SERVICE ? &e->fields[1] : &e->key;
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

/* --- every shipped value cites its source ---------------------------- */

typedef struct {
        char *name;
        bool cited;       /* every declaration of it has a comment */
} param_seen;

typedef struct {
        param_seen *params;
        size_t n;
        strbuf missing;       /* one "\n# FILE:LINE: WHAT" each */
        size_t n_missing;
        size_t checked;
} shipped;

static void saw_param(shipped *s, const ht_param_decl *d) {
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->params[i].name, d->name)) {
                        s->params[i].cited = s->params[i].cited && d->comment;
                        return;
                }
        s->params = xrealloc(s->params, (s->n + 1) * sizeof(*s->params));
        s->params[s->n++] = (param_seen){xstrdup(d->name), d->comment != NULL};
}

static bool param_cited(const shipped *s, const char *name) {
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->params[i].name, name))
                        return s->params[i].cited;
        return false;
}

/* "profiles/oracle.profile" for messages, from top_srcdir/profiles/... */
static const char *rel(const char *path) {
        const char *top = getenv("top_srcdir");
        size_t n = top ? strlen(top) : 0;
        return top && strncmp(path, top, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

static void check_params(shipped *s, const ht_param_decl *l, size_t n) {
        for (size_t i = 0; i < n; i++) {
                s->checked++;
                /* a literal is a value someone chose; an expression derives one */
                if (l[i].spec.kind == HT_SPEC_LIT && !l[i].comment) {
                        strbuf_appendf(&s->missing, "# %s:%u: params %s\n", rel(l[i].file),
                                       l[i].line, l[i].name);
                        s->n_missing++;
                }
        }
}

static void check_entry(shipped *s, const ht_entry *e, const char *what) {
        /* a rule's set without a value changes flags of a value cited elsewhere */
        if (e->value.kind == HT_SPEC_NONE)
                return;
        s->checked++;
        if (e->comment)
                return;
        const char *p = ht_entry_param_ref(e);
        if (p && param_cited(s, p))
                return;
        strbuf_appendf(&s->missing, "# %s:%u: %s%s%s%s\n", rel(e->file), e->line, what,
                       p ? " (its parameter " : "", p ? p : "", p ? " cites nothing either)" : "");
        s->n_missing++;
}

static char **list_dir(const char *dir, const char *suffix) {
        DIR *d = opendir(dir);
        if (!d)
                fail_msg("%s: %s", dir, strerror(errno));
        char **l = NULL;
        struct dirent *de;
        while ((de = readdir(d)))
                if (endswith(de->d_name, suffix))
                        strv_push_take(&l, xasprintf("%s/%s", dir, de->d_name));
        closedir(d);
        qsort(l, strv_length(l), sizeof(char *), strv_sort_cmp);
        return l;
}

static void test_shipped_values_cite_sources(void **state) {
        const char *top = getenv("top_srcdir");
        if (!top)
                top = ".";
        _cleanup_free_ char *pd = xasprintf("%s/profiles", top), *rd = xasprintf("%s/rules", top);
        _cleanup_strv_free_ char **profiles = list_dir(pd, ".profile");
        _cleanup_strv_free_ char **rules = list_dir(rd, ".rules");
        assert_true(strv_length(profiles) >= 4);
        assert_true(strv_length(rules) >= 6);

        ht_pfile **pf = xcalloc(strv_length(profiles), sizeof(*pf));
        ht_rfile **rf = xcalloc(strv_length(rules), sizeof(*rf));
        shipped s = {0};
        for (size_t i = 0; profiles[i]; i++) {
                _cleanup_free_ char *err = NULL;
                const char *base = strrchr(profiles[i], '/') + 1;
                _cleanup_free_ char *name = xstrndup(base, strlen(base) - strlen(".profile"));
                if (ht_pfile_load(profiles[i], name, &pf[i], &err) < 0)
                        fail_msg("%s", err);
                for (size_t j = 0; j < pf[i]->n_params; j++)
                        saw_param(&s, &pf[i]->params[j]);
        }
        for (size_t i = 0; rules[i]; i++) {
                _cleanup_free_ char *err = NULL;
                if (ht_rfile_load(rules[i], &rf[i], &err) < 0)
                        fail_msg("%s", err);
                for (size_t j = 0; j < rf[i]->n_params; j++)
                        saw_param(&s, &rf[i]->params[j]);
        }

        for (size_t i = 0; profiles[i]; i++) {
                check_params(&s, pf[i]->params, pf[i]->n_params);
                for (size_t j = 0; j < pf[i]->n_entries; j++) {
                        const ht_entry *e = &pf[i]->entries[j];
                        const ht_spec *k = e->backend == HT_BK_LIMITS ? &e->fields[2]
                                           : e->backend == HT_BK_SERVICE ? &e->fields[1] : &e->key;
                        _cleanup_free_ char *what = xasprintf(
                                "%s %s", ht_backend_id_to_string(e->backend),
                                k->kind == HT_SPEC_LIT && k->lit.str ? k->lit.str : "(computed)");
                        check_entry(&s, e, what);
                }
        }
        for (size_t i = 0; rules[i]; i++) {
                check_params(&s, rf[i]->params, rf[i]->n_params);
                for (size_t j = 0; j < rf[i]->n_rules; j++)
                        for (size_t k = 0; k < rf[i]->rules[j].n_sets; k++) {
                                _cleanup_free_ char *what = xasprintf("rule %s: set",
                                                                      rf[i]->rules[j].name);
                                check_entry(&s, &rf[i]->rules[j].sets[k], what);
                        }
        }
        /* the check looked at something: the shipped files have dozens */
        assert_true(s.checked > 50);
        _cleanup_free_ char *missing = strbuf_steal(&s.missing);
        for (size_t i = 0; profiles[i]; i++)
                ht_pfile_free(pf[i]);
        for (size_t i = 0; rules[i]; i++)
                ht_rfile_free(rf[i]);
        free(pf);
        free(rf);
        for (size_t i = 0; i < s.n; i++)
                free(s.params[i].name);
        free(s.params);
        if (s.n_missing) {
                /* TAP diagnostics, one a line: cmocka's message would cut the list */
                printf("# shipped values without a source comment (say what the source says, "
                       "hosttune.profile(5) SOURCES):\n%s", missing);
                fflush(stdout);
                fail_msg("%zu shipped values have no source comment (listed above)", s.n_missing);
        }
}

int main(void) {
        /* the backends a program that loads profiles knows (backend.h) */
        ht_backend_registry_use(ht_backends);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_comment_above_and_trailing),
                cmocka_unit_test(test_rule_set_comment),
                cmocka_unit_test(test_resolved_citations),
                cmocka_unit_test(test_shipped_values_cite_sources),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
