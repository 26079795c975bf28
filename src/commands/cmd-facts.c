#include "config.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "facts.h"
#include "render.h"
#include "util.h"

int ht_cmd_facts(const ht_cmd_opts *o) {
        _cleanup_(ht_facts_freep) ht_facts *f = NULL;
        int r = ht_facts_collect(o->ctx, HT_FACTS_WITH_WORKLOAD, &f);
        if (r < 0) {
                ht_report_error("cannot collect facts: %s", ht_strerror(-r));
                return HT_EXIT_ERROR;
        }
        json_object *j = ht_facts_to_json(f);
        if (o->ctx->json)
                ht_print_json(stdout, j);
        else {
                /* warnings go to stderr; the table holds the facts only,
                 * devices and CPUs counted (a line each is thousands) */
                ht_facts_json_summarize(j);
                ht_print_flat(stdout, j, "warnings");
        }
        ht_report_warnings(o->ctx, f->warnings);
        json_object_put(j);
        return HT_EXIT_OK;
}
