/* hosttune import tuned NAME|DIR [--output FILE]: a tuned profile as one
 * hosttune profile file, to review and keep (tuned.h converts it). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <unistd.h>

#include "commands.h"
#include "fileio.h"
#include "render.h"
#include "tuned.h"
#include "util.h"

int ht_cmd_import(const ht_cmd_opts *o) {
        if (!streq(o->args[0], "tuned")) {
                ht_report_error("import: cannot import '%s' profiles (only 'tuned')", o->args[0]);
                return HT_EXIT_ERROR;
        }
        if (!o->args[1]) {
                ht_report_error("import tuned: name a tuned profile or its directory");
                return HT_EXIT_ERROR;
        }
        /* functions (${f:cpulist_online}...) and conditions read the facts */
        _cleanup_(ht_facts_freep) ht_facts *f = NULL;
        int r = ht_facts_collect(o->ctx, HT_FACTS_HOST, &f);
        if (r < 0) {
                ht_report_error("cannot collect facts: %s", ht_strerror(-r));
                return HT_EXIT_ERROR;
        }
        json_object *facts = ht_facts_to_json(f);
        _cleanup_(ht_tuned_profile_freep) ht_tuned_profile *t = NULL;
        _cleanup_free_ char *error = NULL;
        r = ht_tuned_load(o->ctx, facts, o->args[1], &t, &error);
        json_object_put(facts);
        if (r < 0) {
                ht_report_error("%s", error);
                return HT_EXIT_ERROR;
        }
        if (o->ctx->json && !o->output) {
                json_object *j = json_object_new_object();
                json_object_object_add(j, "name", json_object_new_string(t->name));
                json_object_object_add(j, "summary", t->summary ? json_object_new_string(t->summary) : NULL);
                json_object_object_add(j, "files", ht_strv_to_json(t->files));
                json_object *notes = json_object_new_array();
                for (size_t i = 0; i < t->n_notes; i++) {
                        const ht_tuned_note *n = &t->notes[i];
                        json_object *e = json_object_new_object();
                        json_object_object_add(e, "file", json_object_new_string(n->file));
                        json_object_object_add(e, "line", json_object_new_int64(n->line));
                        json_object_object_add(e, "section", json_object_new_string(n->section));
                        json_object_object_add(e, "key", n->key ? json_object_new_string(n->key) : NULL);
                        json_object_object_add(e, "reason", json_object_new_string(n->reason));
                        json_object_array_add(notes, e);
                }
                json_object_object_add(j, "not_carried_over", notes);
                json_object_object_add(j, "host_values", json_object_new_boolean(t->host_values));
                json_object_object_add(j, "profile", json_object_new_string(t->text));
                ht_print_json(stdout, j);
                json_object_put(j);
                return HT_EXIT_OK;
        }
        if (!o->output) {
                fputs(t->text, stdout);
                return fflush(stdout) == 0 ? HT_EXIT_OK : HT_EXIT_ERROR;
        }
        /* the output is the user's file, not the host's: a real path */
        _cleanup_free_ char *copy = xstrdup(o->output), *copy2 = xstrdup(o->output);
        const char *dir = dirname(copy), *name = basename(copy2);
        _cleanup_close_ int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) {
                ht_report_error("--output %s: %s", o->output, ht_strerror(errno));
                return HT_EXIT_ERROR;
        }
        r = ht_write_file_atomic_at(dfd, name, t->text, strlen(t->text), 0644, getuid(), getgid());
        if (r < 0) {
                ht_report_error("--output %s: %s", o->output, ht_strerror(-r));
                return HT_EXIT_ERROR;
        }
        if (!o->ctx->quiet)
                fprintf(stderr, "hosttune: wrote %s (%zu settings not carried over: see its header)\n", o->output,
                        t->n_notes);
        return HT_EXIT_OK;
}
