#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "commands.h"
#include "planner.h"
#include "render.h"
#include "util.h"

int ht_cmd_plan(const ht_cmd_opts *o) {
        _cleanup_free_ char *error = NULL;
        ht_planning p;
        int r = ht_make_plan(o->ctx, o->args[0], o->sets, &p, &error);
        if (r < 0) {
                ht_report_error("%s", error);
                return HT_EXIT_ERROR;
        }
        if (o->ctx->json) {
                json_object *j = ht_plan_to_json(p.plan), *w = NULL;
                json_object_object_get_ex(j, "warnings", &w);
                ht_report_facts_notices(o->ctx, p.facts, w);
                ht_print_json(stdout, j);
                json_object_put(j);
        } else {
                ht_report_facts_notices(o->ctx, p.facts, NULL);
                ht_print_plan(stdout, p.plan, ht_use_color(o->ctx, STDOUT_FILENO), o->ctx->quiet);
        }
        int code = p.plan->errors ? HT_EXIT_ERROR : ht_plan_changed(p.plan) ? HT_EXIT_PENDING : HT_EXIT_OK;
        ht_planning_done(&p);
        return code;
}
