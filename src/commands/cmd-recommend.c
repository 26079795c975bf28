/* recommend: print which shipped profile fits, each piece of evidence
 * with the file or pid it comes from, and why. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "facts.h"
#include "recommend.h"
#include "render.h"
#include "util.h"

static void print_text(const ht_recommendation *r) {
        if (r->score)
                printf("Recommended profile: %s (score %u)\n", r->profile, r->score);
        else
                printf("Recommended profile: %s\n", r->profile);
        bool header = false;
        for (int i = 0; i < _HT_REC_MAX; i++) {
                const ht_candidate *c = &r->candidates[i];
                for (size_t k = 0; k < c->n_evidence; k++) {
                        const ht_evidence *e = &c->evidence[k];
                        if (!header) {
                                printf("\nEvidence:\n");
                                header = true;
                        }
                        char pts[16];
                        snprintf(pts, sizeof pts, "+%u", e->points);
                        /* evidence names processes and files of other users */
                        _cleanup_free_ char *what = ht_text_safe(e->what);
                        _cleanup_free_ char *source = e->source ? ht_text_safe(e->source) : NULL;
                        printf("  %-7s %3s  %s", c->profile, pts, what);
                        if (e->pid)
                                printf(" (pid %u, %s)", e->pid, source);
                        else if (source)
                                printf(" (%s)", source);
                        putchar('\n');
                }
        }
        printf("\nWhy: %s.\n", r->why);
        _cleanup_free_ char *cmd = ht_recommendation_command(r);
        printf("Next: %s\n", cmd);
}

int ht_cmd_recommend(const ht_cmd_opts *o) {
        _cleanup_(ht_facts_freep) ht_facts *f = NULL;
        int r = ht_facts_collect(o->ctx, HT_FACTS_WITH_WORKLOAD, &f);
        if (r < 0) {
                ht_report_error("cannot collect facts: %s", ht_strerror(-r));
                return HT_EXIT_ERROR;
        }
        ht_recommendation rec;
        ht_recommend(f, &rec);
        if (o->ctx->json) {
                json_object *j = ht_recommendation_to_json(&rec);
                ht_print_json(stdout, j);
                json_object_put(j);
        } else
                print_text(&rec);
        ht_recommendation_done(&rec);
        return HT_EXIT_OK;
}
