/* Test driver: resolve a profile the way `hosttune show` does and print it
 * as text or JSON, so the golden tests run before (and apart from) the CLI.
 *   profile-show [--root DIR] [--facts FILE.json] [--profile-path DIR]...
 *                [--rules-path DIR]... [--set K=V]... [--json] PROFILE
 *   profile-show [--profile-path DIR]... --list
 * Exit 0, or 1 on an error (also when the rules find the host unfit: the
 * resolved profile is printed first). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "context.h"
#include "facts.h"
#include "profile.h"
#include "util.h"

static int usage(const char *argv0) {
        fprintf(stderr, "usage: %s [--root DIR] [--facts FILE] [--profile-path DIR]... "
                        "[--rules-path DIR]... [--set K=V]... [--json] PROFILE | --list\n", argv0);
        return 1;
}

int main(int argc, char **argv) {
        /* the backends a program that loads profiles knows (backend.h) */
        ht_backend_registry_use(ht_backends);
        const char *root = "/", *facts_file = NULL, *name = NULL;
        _cleanup_strv_free_ char **ppath = NULL, **rpath = NULL, **sets = NULL;
        bool json = false, list = false;
        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];
                bool more = i + 1 < argc;
                if (streq(a, "--root") && more)
                        root = argv[++i];
                else if (streq(a, "--facts") && more)
                        facts_file = argv[++i];
                else if (streq(a, "--profile-path") && more)
                        strv_push(&ppath, argv[++i]);
                else if (streq(a, "--rules-path") && more)
                        strv_push(&rpath, argv[++i]);
                else if (streq(a, "--set") && more)
                        strv_push(&sets, argv[++i]);
                else if (streq(a, "--json"))
                        json = true;
                else if (streq(a, "--list"))
                        list = true;
                else if (a[0] != '-' && !name)
                        name = a;
                else
                        return usage(argv[0]);
        }
        if (!name && !list)
                return usage(argv[0]);

        ht_context *c;
        int r = ht_context_new(root, &c);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", root, strerror(-r));
                return 1;
        }
        c->profile_path = TAKE_PTR(ppath);
        c->rules_path = TAKE_PTR(rpath);
        char *err = NULL;
        int ret = 1;

        if (list) {
                ht_profile_info *l;
                size_t n;
                r = ht_profile_list(c, &l, &n, &err);
                if (r < 0) {
                        fprintf(stderr, "%s\n", err);
                        goto out;
                }
                for (size_t i = 0; i < n; i++)
                        printf("%-12s %s  (%s)\n", l[i].name, l[i].summary, l[i].file);
                ht_profile_info_free(l, n);
                ret = 0;
                goto out;
        }

        json_object *facts;
        if (facts_file) {
                facts = json_object_from_file(facts_file);
                if (!facts) {
                        fprintf(stderr, "%s: not readable JSON\n", facts_file);
                        goto out;
                }
        } else {
                ht_facts *f;
                r = ht_facts_collect(c, HT_FACTS_HOST, &f);
                if (r < 0) {
                        fprintf(stderr, "collecting facts: %s\n", strerror(-r));
                        goto out;
                }
                facts = ht_facts_to_json(f);
                ht_facts_free(f);
        }
        ht_resolved *res;
        r = ht_profile_resolve_json(c, facts, name, sets, &res, &err);
        json_object_put(facts);
        if (r < 0) {
                fprintf(stderr, "%s\n", err);
                goto out;
        }
        if (json) {
                json_object *j = ht_resolved_to_json(res);
                puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
                                                               JSON_C_TO_STRING_SPACED |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE));
                json_object_put(j);
        } else {
                char *t = ht_resolved_format_text(res);
                fputs(t, stdout);
                free(t);
        }
        ret = res->errors ? 1 : 0;
        ht_resolved_free(res);
out:
        free(err);
        ht_context_free(c);
        return ret;
}
