/* The built-in copies of the shipped profiles and rules (profile-builtin.h):
 * for every shipped file, libconfig and the built-in copy give the same
 * structures; only a file with the same name and bytes is taken from the
 * copy; the trust check still runs; a damaged parsed form is refused; a
 * copy borrows its strings from the form, a parsed file owns its own. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend.h"
#include "profile-builtin.h"
#include "profile-model.h"
#include "tmptree.h"

static bool is_profile(const ht_builtin_file *f) {
        return endswith(f->name, ".profile");
}

/* The shipped bytes as a file in dir, under name. */
static char *put_text(const char *dir, const char *name, const ht_builtin_file *f, const char *extra) {
        char *text = xstrndup((const char *)f->text, f->text_len);
        char *content = xasprintf("%s%s", text, extra);
        tt_put(dir, name, content, 0644);
        free(text);
        free(content);
        return xasprintf("%s/%s", dir, name);
}

/* Field by field, not through the parsed form: a field the form forgot
 * would be equal in both forms but lost. */
static void assert_str_same(const char *a, const char *b) {
        if (!a || !b)
                assert_ptr_equal(a, b);
        else
                assert_string_equal(a, b);
}

static void assert_spec_same(const ht_spec *a, const ht_spec *b) {
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->lit.type, b->lit.type);
        assert_int_equal(a->lit.num, b->lit.num);
        assert_int_equal(a->lit.den, b->lit.den);
        assert_str_same(a->lit.str, b->lit.str);
        assert_str_same(a->text, b->text);
}

static void assert_entries_same(const ht_entry *a, size_t na, const ht_entry *b, size_t nb) {
        assert_int_equal(na, nb);
        for (size_t i = 0; i < na; i++) {
                assert_int_equal(a[i].backend, b[i].backend);
                assert_spec_same(&a[i].key, &b[i].key);
                for (size_t k = 0; k < HT_KEY_FIELDS_MAX; k++)
                        assert_spec_same(&a[i].fields[k], &b[i].fields[k]);
                assert_spec_same(&a[i].value, &b[i].value);
                assert_str_same(a[i].when, b[i].when);
                assert_int_equal(a[i].cmdline_word, b[i].cmdline_word);
                assert_int_equal(a[i].optional, b[i].optional);
                assert_int_equal(a[i].remove, b[i].remove);
                assert_int_equal(a[i].boot_only, b[i].boot_only);
                assert_int_equal(a[i].at_least, b[i].at_least);
                assert_int_equal(a[i].has_optional, b[i].has_optional);
                assert_int_equal(a[i].required, b[i].required);
                assert_int_equal(a[i].has_boot_only, b[i].has_boot_only);
                assert_int_equal(a[i].has_bound, b[i].has_bound);
                assert_int_equal(a[i].bound, b[i].bound);
                assert_string_equal(a[i].file, b[i].file);
                assert_int_equal(a[i].line, b[i].line);
                assert_str_same(a[i].comment, b[i].comment);
        }
}

static void assert_params_same(const ht_param_decl *a, size_t na, const ht_param_decl *b, size_t nb) {
        assert_int_equal(na, nb);
        for (size_t i = 0; i < na; i++) {
                assert_string_equal(a[i].name, b[i].name);
                assert_spec_same(&a[i].spec, &b[i].spec);
                assert_string_equal(a[i].file, b[i].file);
                assert_int_equal(a[i].line, b[i].line);
                assert_str_same(a[i].comment, b[i].comment);
        }
}

static void assert_pfiles_same(const ht_pfile *a, const ht_pfile *b) {
        assert_string_equal(a->name, b->name);
        assert_string_equal(a->path, b->path);
        assert_str_same(a->summary, b->summary);
        assert_int_equal(strv_length(a->parents), strv_length(b->parents));
        assert_int_equal(!a->parents, !b->parents);
        for (size_t i = 0; a->parents && a->parents[i]; i++)
                assert_string_equal(a->parents[i], b->parents[i]);
        assert_int_equal(a->inherit_line, b->inherit_line);
        assert_params_same(a->params, a->n_params, b->params, b->n_params);
        assert_entries_same(a->entries, a->n_entries, b->entries, b->n_entries);
}

static void assert_rfiles_same(const ht_rfile *a, const ht_rfile *b) {
        assert_string_equal(a->path, b->path);
        assert_params_same(a->params, a->n_params, b->params, b->n_params);
        assert_int_equal(a->n_rules, b->n_rules);
        for (size_t i = 0; i < a->n_rules; i++) {
                const ht_rule *x = &a->rules[i], *y = &b->rules[i];
                assert_string_equal(x->name, y->name);
                assert_string_equal(x->file, y->file);
                assert_int_equal(x->line, y->line);
                assert_str_same(x->when, y->when);
                assert_entries_same(x->sets, x->n_sets, y->sets, y->n_sets);
                assert_entries_same(x->skips, x->n_skips, y->skips, y->n_skips);
                assert_spec_same(&x->warn, &y->warn);
                assert_spec_same(&x->error, &y->error);
                assert_spec_same(&x->fix, &y->fix);
                assert_spec_same(&x->bootloader_default, &y->bootloader_default);
        }
}

/* Load path as hosttune would, and give its parsed form. */
static char *load_form(const char *path, const char *name, bool is_prof, size_t *ret_len) {
        _cleanup_free_ char *error = NULL;
        strbuf b = {0};
        if (is_prof) {
                ht_pfile *p = NULL;
                assert_int_equal(ht_pfile_load(path, name, &p, &error), 0);
                assert_string_equal(p->path, path);
                assert_string_equal(p->name, name);
                for (size_t i = 0; i < p->n_entries; i++)
                        assert_ptr_equal(p->entries[i].file, p->path);
                assert_true(ht_builtin_put_pfile(&b, p));
                ht_pfile_free(p);
        } else {
                ht_rfile *f = NULL;
                assert_int_equal(ht_rfile_load(path, &f, &error), 0);
                assert_string_equal(f->path, path);
                for (size_t i = 0; i < f->n_rules; i++)
                        assert_ptr_equal(f->rules[i].file, f->path);
                assert_true(ht_builtin_put_rfile(&b, f));
                ht_rfile_free(f);
        }
        *ret_len = b.len;
        return strbuf_steal(&b);
}

static void test_table_is_the_shipped_files(void **state) {
        /* Makefile.am builds the table from every shipped file (4
         * profiles, 9 rules files since 80-start-gate.rules, issue 37) */
        assert_int_equal(ht_builtin_n_files, 13);
        size_t profiles = 0;
        for (size_t i = 0; i < ht_builtin_n_files; i++)
                profiles += is_profile(&ht_builtin_files[i]);
        assert_int_equal(profiles, 4);
}

static size_t n_commented(const ht_entry *l, size_t n) {
        size_t c = 0;
        for (size_t i = 0; i < n; i++)
                c += !isempty(l[i].comment);
        return c;
}

static void test_same_as_libconfig(void **state) {
        size_t commented = 0;  /* the comments compared are really there */
        _cleanup_free_ char *dir = tt_mkdtemp("builtin");
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
        for (size_t i = 0; i < ht_builtin_n_files; i++) {
                const ht_builtin_file *f = &ht_builtin_files[i];
                _cleanup_free_ char *name = xstrndup(f->name, strcspn(f->name, "."));
                _cleanup_free_ char *path = put_text(dir, f->name, f, "");
                assert_ptr_equal(ht_builtin_find(path, (const char *)f->text, f->text_len), f);

                /* libconfig's structures, in the same form */
                setenv("HOSTTUNE_NO_BUILTIN_PROFILES", "1", 1);
                assert_null(ht_builtin_find(path, (const char *)f->text, f->text_len));
                size_t n_parsed;
                _cleanup_free_ char *parsed = load_form(path, name, is_profile(f), &n_parsed);
                unsetenv("HOSTTUNE_NO_BUILTIN_PROFILES");
                assert_int_equal(n_parsed, f->blob_len);
                assert_memory_equal(parsed, f->blob, n_parsed);

                /* the built-in copy, with this path and name */
                size_t n_copy;
                _cleanup_free_ char *copy = load_form(path, name, is_profile(f), &n_copy);
                assert_int_equal(n_copy, f->blob_len);
                assert_memory_equal(copy, f->blob, n_copy);

                /* and field by field */
                _cleanup_free_ char *error = NULL;
                if (is_profile(f)) {
                        ht_pfile *copied = NULL, *parsed_p = NULL;
                        assert_int_equal(ht_pfile_load(path, name, &copied, &error), 0);
                        setenv("HOSTTUNE_NO_BUILTIN_PROFILES", "1", 1);
                        assert_int_equal(ht_pfile_load(path, name, &parsed_p, &error), 0);
                        unsetenv("HOSTTUNE_NO_BUILTIN_PROFILES");
                        assert_pfiles_same(copied, parsed_p);
                        commented += n_commented(copied->entries, copied->n_entries);
                        ht_pfile_free(copied);
                        ht_pfile_free(parsed_p);
                } else {
                        ht_rfile *copied = NULL, *parsed_r = NULL;
                        assert_int_equal(ht_rfile_load(path, &copied, &error), 0);
                        setenv("HOSTTUNE_NO_BUILTIN_PROFILES", "1", 1);
                        assert_int_equal(ht_rfile_load(path, &parsed_r, &error), 0);
                        unsetenv("HOSTTUNE_NO_BUILTIN_PROFILES");
                        assert_rfiles_same(copied, parsed_r);
                        for (size_t j = 0; j < copied->n_rules; j++)
                                commented += n_commented(copied->rules[j].sets, copied->rules[j].n_sets);
                        ht_rfile_free(copied);
                        ht_rfile_free(parsed_r);
                }
        }
        unsetenv("HOSTTUNE_INSECURE_PROFILES");
        tt_rm_rf(dir);
        assert_true(commented > 20);
}

/* A setting's `when` (no shipped profile has one yet) survives the form. */
static void test_when_round_trip(void **state) {
        _cleanup_free_ char *dir = tt_mkdtemp("builtin-when");
        tt_put(dir, "w.profile",
               "sysctl = { vm = { swappiness = { value = 1; when = \"facts.cpu.count > 1\"; }; }; };\n"
               "cmdline = { add = [ \"numa=off\" ]; when = \"matches(facts.kernel.uname, \\\"aarch64\\\")\"; };\n",
               0644);
        _cleanup_free_ char *path = xasprintf("%s/w.profile", dir);
        _cleanup_free_ char *error = NULL;
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
        setenv("HOSTTUNE_NO_BUILTIN_PROFILES", "1", 1);
        ht_pfile *p = NULL;
        assert_int_equal(ht_pfile_load(path, "w", &p, &error), 0);
        unsetenv("HOSTTUNE_NO_BUILTIN_PROFILES");
        unsetenv("HOSTTUNE_INSECURE_PROFILES");
        assert_int_equal(p->n_entries, 2);
        assert_string_equal(p->entries[0].when, "facts.cpu.count > 1");
        assert_string_equal(p->entries[1].when, "matches(facts.kernel.uname, \"aarch64\")");
        strbuf b = {0};
        assert_true(ht_builtin_put_pfile(&b, p));
        ht_pfile *q = ht_builtin_get_pfile((const unsigned char *)b.data, b.len, p->path, "w");
        assert_non_null(q);
        assert_pfiles_same(p, q);
        strbuf_done(&b);
        ht_pfile_free(p);
        ht_pfile_free(q);
        tt_rm_rf(dir);
}

static void test_only_same_name_and_bytes(void **state) {
        const ht_builtin_file *f = &ht_builtin_files[0];
        const char *text = (const char *)f->text;
        _cleanup_free_ char *path = xasprintf("/usr/share/hosttune/x/%s", f->name);
        assert_ptr_equal(ht_builtin_find(path, text, f->text_len), f);
        assert_ptr_equal(ht_builtin_find(f->name, text, f->text_len), f);
        assert_null(ht_builtin_find("/etc/hosttune/profiles/mine.profile", text, f->text_len));
        assert_null(ht_builtin_find(path, text, f->text_len - 1));
        _cleanup_free_ char *changed = xstrndup(text, f->text_len);
        changed[f->text_len / 2] ^= 1;
        assert_null(ht_builtin_find(path, changed, f->text_len));
}

static void test_edited_file_is_parsed(void **state) {
        /* a shipped rules file an admin edited: libconfig reads the edit */
        _cleanup_free_ char *dir = tt_mkdtemp("builtin");
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
        const ht_builtin_file *f = NULL;
        for (size_t i = 0; i < ht_builtin_n_files && !f; i++)
                if (!is_profile(&ht_builtin_files[i]))
                        f = &ht_builtin_files[i];
        assert_non_null(f);
        _cleanup_free_ char *path = put_text(dir, f->name, f, "\nrules = ();\n");
        _cleanup_free_ char *error = NULL;
        ht_rfile *rf = NULL;
        assert_int_equal(ht_rfile_load(path, &rf, &error), -EINVAL);
        assert_null(rf);
        /* the error is libconfig's, with the file and line */
        assert_non_null(strstr(error, path));
        assert_non_null(strstr(error, "duplicate"));
        unsetenv("HOSTTUNE_INSECURE_PROFILES");
        tt_rm_rf(dir);
}

static void test_trust_check_still_runs(void **state) {
        if (geteuid() != 0)
                skip();
        _cleanup_free_ char *dir = tt_mkdtemp("builtin");
        const ht_builtin_file *f = &ht_builtin_files[0];
        _cleanup_free_ char *path = put_text(dir, f->name, f, "");
        assert_int_equal(chown(path, 65534, 65534), 0);
        _cleanup_free_ char *error = NULL;
        ht_pfile *p = NULL;
        assert_int_equal(ht_pfile_load(path, "base", &p, &error), -EPERM);
        assert_null(p);
        assert_non_null(strstr(error, "not root"));
        tt_rm_rf(dir);
}

/* A built-in copy borrows its strings from the compiled-in form (issue
 * 34: no copy, no free); the structures' free functions must then leave
 * them alone, and a parsed file must own its own. */
static void assert_in_blob(const ht_builtin_file *f, const char *s) {
        if (!s)
                return;
        const unsigned char *u = (const unsigned char *)s;
        assert_true(u >= f->blob && u < f->blob + f->blob_len);
        assert_true(u + strlen(s) < f->blob + f->blob_len);
}

/* An expression's text (an EXPR spec's, a condition) is borrowed from
 * the frozen table's pool, at its table entry's text, and finds its tree
 * there without a search (issue 34); one that did not compile stays in
 * the form. The counts say that the first is the rule. */
static size_t n_in_pool, n_inline;

static void assert_expr_borrowed(const ht_builtin_file *f, const char *s) {
        if (!s)
                return;
        ht_expr at, found;
        if (!ht_builtin_expr_at(s, strlen(s), &at)) {
                assert_in_blob(f, s);
                assert_false(ht_builtin_expr_find(s, strlen(s), &found));
                n_inline++;
                return;
        }
        const ht_builtin_expr *b = ht_builtin_expr_lookup(s, strlen(s));
        assert_non_null(b);
        assert_ptr_equal(s, ht_builtin_expr_text(b));
        assert_ptr_equal(at.nodes, ht_builtin_expr_nodes + b->nodes);
        assert_int_equal(at.root, b->root);
        /* a copy of the text elsewhere is searched for, not read beside */
        _cleanup_free_ char *copy = xstrdup(s);
        assert_false(ht_builtin_expr_at(copy, strlen(copy), &found));
        assert_false(ht_builtin_expr_at(s, strlen(s) - 1, &found));
        n_in_pool++;
}

static void assert_spec_in_blob(const ht_builtin_file *f, const ht_spec *sp) {
        assert_in_blob(f, sp->lit.str);
        if (sp->kind == HT_SPEC_EXPR)
                assert_expr_borrowed(f, sp->text);
        else
                assert_in_blob(f, sp->text);
}

static void assert_entries_in_blob(const ht_builtin_file *f, const ht_entry *l, size_t n) {
        for (size_t i = 0; i < n; i++) {
                const ht_spec *specs[] = {&l[i].key, &l[i].fields[0], &l[i].fields[1], &l[i].fields[2], &l[i].value};
                _Static_assert(HT_KEY_FIELDS_MAX == 3, "list every key field above");
                for (size_t k = 0; k < sizeof specs / sizeof *specs; k++)
                        assert_spec_in_blob(f, specs[k]);
                assert_expr_borrowed(f, l[i].when);
                assert_in_blob(f, l[i].comment);
        }
}

static void assert_params_in_blob(const ht_builtin_file *f, const ht_param_decl *l, size_t n) {
        for (size_t i = 0; i < n; i++) {
                assert_non_null(l[i].name);
                assert_in_blob(f, l[i].name);
                assert_spec_in_blob(f, &l[i].spec);
        }
}

static void test_strings_borrowed(void **state) {
        size_t whens = 0;   /* the strings checked are really there */
        for (size_t i = 0; i < ht_builtin_n_files; i++) {
                const ht_builtin_file *f = &ht_builtin_files[i];
                if (is_profile(f)) {
                        ht_pfile *p = ht_builtin_get_pfile(f->blob, f->blob_len, "/p", "p");
                        assert_non_null(p);
                        assert_true(p->borrowed);
                        assert_in_blob(f, p->summary);
                        assert_params_in_blob(f, p->params, p->n_params);
                        assert_entries_in_blob(f, p->entries, p->n_entries);
                        for (size_t j = 0; j < p->n_entries; j++)
                                whens += p->entries[j].when != NULL;
                        /* the name and path are the caller's, copied */
                        assert_string_equal(p->path, "/p");
                        ht_pfile_free(p);
                } else {
                        ht_rfile *r = ht_builtin_get_rfile(f->blob, f->blob_len, "/r");
                        assert_non_null(r);
                        assert_true(r->borrowed);
                        assert_params_in_blob(f, r->params, r->n_params);
                        for (size_t j = 0; j < r->n_rules; j++) {
                                const ht_rule *rule = &r->rules[j];
                                assert_in_blob(f, rule->name);
                                assert_expr_borrowed(f, rule->when);
                                whens += rule->when != NULL;
                                assert_entries_in_blob(f, rule->sets, rule->n_sets);
                                assert_entries_in_blob(f, rule->skips, rule->n_skips);
                                assert_spec_in_blob(f, &rule->warn);
                                assert_spec_in_blob(f, &rule->error);
                                assert_spec_in_blob(f, &rule->fix);
                                assert_spec_in_blob(f, &rule->bootloader_default);
                        }
                        assert_string_equal(r->path, "/r");
                        ht_rfile_free(r);
                }
        }
        assert_true(whens >= 20);
        print_message("expression texts: %zu in the pool, %zu in the forms\n", n_in_pool, n_inline);
        assert_true(n_in_pool >= 100);
        assert_true(n_inline == 0);   /* every shipped expression compiles */
}

/* A file libconfig parsed owns its strings (ASan and valgrind see a
 * leak or a bad free if it is marked otherwise). */
static void test_parsed_file_owns_strings(void **state) {
        _cleanup_free_ char *dir = tt_mkdtemp("builtin-own");
        const ht_builtin_file *f = NULL;
        for (size_t i = 0; i < ht_builtin_n_files && !f; i++)
                if (!is_profile(&ht_builtin_files[i]))
                        f = &ht_builtin_files[i];
        assert_non_null(f);
        _cleanup_free_ char *path = put_text(dir, f->name, f, "");
        _cleanup_free_ char *error = NULL;
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
        setenv("HOSTTUNE_NO_BUILTIN_PROFILES", "1", 1);
        ht_rfile *parsed = NULL;
        assert_int_equal(ht_rfile_load(path, &parsed, &error), 0);
        unsetenv("HOSTTUNE_NO_BUILTIN_PROFILES");
        ht_rfile *copied = NULL;
        assert_int_equal(ht_rfile_load(path, &copied, &error), 0);
        unsetenv("HOSTTUNE_INSECURE_PROFILES");
        assert_false(parsed->borrowed);
        assert_true(copied->borrowed);
        assert_rfiles_same(copied, parsed);
        ht_rfile_free(parsed);
        ht_rfile_free(copied);
        tt_rm_rf(dir);
}

static void test_damaged_form_refused(void **state) {
        for (size_t i = 0; i < ht_builtin_n_files; i++) {
                const ht_builtin_file *f = &ht_builtin_files[i];
                /* every truncation: refused, never read past the end */
                for (size_t n = 0; n < f->blob_len; n++) {
                        unsigned char *cut = malloc(n ? n : 1);
                        memcpy(cut, f->blob, n);
                        if (is_profile(f))
                                assert_null(ht_builtin_get_pfile(cut, n, "/p", "p"));
                        else
                                assert_null(ht_builtin_get_rfile(cut, n, "/r"));
                        free(cut);
                }
                /* the wrong kind, and trailing bytes */
                if (is_profile(f))
                        assert_null(ht_builtin_get_rfile(f->blob, f->blob_len, "/r"));
                else
                        assert_null(ht_builtin_get_pfile(f->blob, f->blob_len, "/p", "p"));
                unsigned char *longer = malloc(f->blob_len + 1);
                memcpy(longer, f->blob, f->blob_len);
                longer[f->blob_len] = 0;
                if (is_profile(f))
                        assert_null(ht_builtin_get_pfile(longer, f->blob_len + 1, "/p", "p"));
                else
                        assert_null(ht_builtin_get_rfile(longer, f->blob_len + 1, "/r"));
                /* flipped bytes: refused or rebuilt, but nothing ASan sees */
                for (size_t k = 0; k < f->blob_len; k += 7) {
                        memcpy(longer, f->blob, f->blob_len);
                        longer[k] ^= 0xff;
                        if (is_profile(f))
                                ht_pfile_free(ht_builtin_get_pfile(longer, f->blob_len, "/p", "p"));
                        else
                                ht_rfile_free(ht_builtin_get_rfile(longer, f->blob_len, "/r"));
                }
                free(longer);
        }
}

int main(void) {
        /* the backends a program that loads profiles knows (backend.h) */
        ht_backend_registry_use(ht_backends);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table_is_the_shipped_files),
                cmocka_unit_test(test_same_as_libconfig),
                cmocka_unit_test(test_when_round_trip),
                cmocka_unit_test(test_only_same_name_and_bytes),
                cmocka_unit_test(test_edited_file_is_parsed),
                cmocka_unit_test(test_trust_check_still_runs),
                cmocka_unit_test(test_damaged_form_refused),
                cmocka_unit_test(test_strings_borrowed),
                cmocka_unit_test(test_parsed_file_owns_strings),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
