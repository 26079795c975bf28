/* list and show: the profiles on the path, and one profile resolved. */
#include "config.h"

#include <stdio.h>

#include "commands.h"
#include "facts.h"
#include "profile.h"
#include "render.h"
#include "util.h"

int ht_cmd_list(const ht_cmd_opts *o) {
        ht_profile_info *l = NULL;
        size_t n = 0;
        _cleanup_free_ char *error = NULL;
        int r = ht_profile_list(o->ctx, &l, &n, &error);
        if (r < 0) {
                ht_report_error("%s", error ? error : "cannot list profiles");
                return HT_EXIT_ERROR;
        }
        if (o->ctx->json) {
                json_object *a = json_object_new_array();
                for (size_t i = 0; i < n; i++) {
                        json_object *e = json_object_new_object();
                        json_object_object_add(e, "name", json_object_new_string(l[i].name));
                        json_object_object_add(e, "summary", l[i].summary ? json_object_new_string(l[i].summary) : NULL);
                        json_object_object_add(e, "file", json_object_new_string(l[i].file));
                        json_object_array_add(a, e);
                }
                json_object *top = json_object_new_object();
                json_object_object_add(top, "profiles", a);
                ht_print_json(stdout, top);
                json_object_put(top);
        } else {
                size_t w = 4, ws = 7;
                for (size_t i = 0; i < n; i++) {
                        if (strlen(l[i].name) > w)
                                w = strlen(l[i].name);
                        if (l[i].summary && strlen(l[i].summary) > ws)
                                ws = strlen(l[i].summary);
                }
                printf("%-*s  %-*s  %s\n", (int)w, "NAME", (int)ws, "SUMMARY", "FILE");
                for (size_t i = 0; i < n; i++)
                        printf("%-*s  %-*s  %s\n", (int)w, l[i].name, (int)ws, l[i].summary ? l[i].summary : "",
                               l[i].file);
                if (n == 0 && !o->ctx->quiet)
                        fprintf(stderr, "hosttune: no profiles found on the profile path\n");
        }
        ht_profile_info_free(l, n);
        return HT_EXIT_OK;
}

int ht_cmd_show(const ht_cmd_opts *o) {
        _cleanup_(ht_facts_freep) ht_facts *f = NULL;
        int r = ht_facts_collect(o->ctx, HT_FACTS_HOST, &f);
        if (r < 0) {
                ht_report_error("cannot collect facts: %s", ht_strerror(-r));
                return HT_EXIT_ERROR;
        }
        _cleanup_(ht_resolved_freep) ht_resolved *res = NULL;
        _cleanup_free_ char *error = NULL;
        r = ht_profile_resolve(o->ctx, f, o->args[0], o->sets, &res, &error);
        if (r < 0) {
                ht_report_error("%s", error ? error : "cannot resolve profile");
                return HT_EXIT_ERROR;
        }
        if (o->ctx->json) {
                json_object *j = ht_resolved_to_json(res), *w = NULL;
                json_object_object_get_ex(j, "warnings", &w);
                ht_report_facts_notices(o->ctx, f, w);
                ht_print_json(stdout, j);
                json_object_put(j);
        } else {
                _cleanup_free_ char *text = ht_resolved_format_text(res);
                /* facts in it (a pfile's values, the files they came from)
                 * are other users' text */
                ht_text_sanitize(text, true);
                fputs(text, stdout);
                ht_report_facts_notices(o->ctx, f, NULL);
                ht_report_warnings(o->ctx, res->warnings);
        }
        return HT_EXIT_OK;
}
