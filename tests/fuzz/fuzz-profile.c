/* libFuzzer target for profile and rule files, through libconfig and
 * hosttune's layers (prescan, schema checks, inheritance, params,
 * expressions, templates, rules) against the facts of a fixture host.
 * Input: X.profile, then optionally FUZZ_SEP and Y.profile (which X may
 * inherit), then FUZZ_SEP and Z.rules. The shipped profiles and rules
 * come after the scratch ones on the search paths, so "base" resolves. */
#include "config.h"

#include "backend.h"
#include "facts.h"
#include "fuzz-common.h"
#include "profile.h"

static char *scratch, *pdir, *rdir;
static json_object *facts;

static void cleanup(void) {
        nftw(scratch, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
        /* the backends a program that loads profiles knows (backend.h) */
        ht_backend_registry_use(ht_backends);
        /* the scratch files are ours, whoever runs the fuzzer */
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
        /* run-fuzz.sh points TMPDIR at a directory it removes, so even a
         * crashed run leaves nothing behind */
        const char *tmpdir = getenv("TMPDIR");
        _cleanup_free_ char *t = xasprintf("%s/hosttune-fuzz-profile-XXXXXX", tmpdir ? tmpdir : "/tmp");
        if (!mkdtemp(t))
                abort();
        scratch = xstrdup(t);
        pdir = xasprintf("%s/profiles", t);
        rdir = xasprintf("%s/rules", t);
        if (mkdir(pdir, 0755) < 0 || mkdir(rdir, 0755) < 0)
                abort();
        atexit(cleanup);

        _cleanup_free_ char *host = xasprintf("%s/tests/hosts/oracle-running", fuzz_srcdir());
        ht_context *c = NULL;
        ht_facts *f = NULL;
        if (ht_context_new(host, &c) < 0 || ht_facts_collect(c, HT_FACTS_HOST, &f) < 0)
                abort();
        facts = ht_facts_to_json(f);
        ht_facts_free(f);
        ht_context_free(c);
        return 0;
}

static const char *const names[] = {"X.profile", "Y.profile", "Z.rules"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *parts[3];
        size_t lens[3];
        size_t n = fuzz_split(data, size, parts, lens, 3);
        fuzz_clear_dir(pdir);
        fuzz_clear_dir(rdir);
        for (size_t i = 0; i < n; i++)
                fuzz_write(i == 2 ? rdir : pdir, names[i], parts[i], lens[i]);

        ht_context *c = NULL;
        if (ht_context_new(scratch, &c) < 0)
                abort();
        _cleanup_free_ char *shipped_p = xasprintf("%s/profiles", fuzz_srcdir());
        _cleanup_free_ char *shipped_r = xasprintf("%s/rules", fuzz_srcdir());
        strv_push(&c->profile_path, pdir);
        strv_push(&c->profile_path, shipped_p);
        strv_push(&c->rules_path, rdir);
        strv_push(&c->rules_path, shipped_r);

        static char *const sets[][2] = {{NULL}, {(char *)"sga_max_size=4G", NULL}};
        for (size_t s = 0; s < ELEMENTSOF(sets); s++) {
                ht_resolved *r = NULL;
                char *err = NULL;
                int k = ht_profile_resolve_json(c, facts, "X", sets[s], &r, &err);
                if (k < 0) {
                        FUZZ_ASSERT(err && !r);
                        free(err);
                        continue;
                }
                FUZZ_ASSERT(!err && r);
                for (size_t i = 0; i < r->n_settings; i++) {
                        const ht_setting *st = &r->settings[i];
                        /* what reaches a backend is one clean line */
                        FUZZ_ASSERT(st->key && st->value && st->source);
                        FUZZ_ASSERT(!has_control_chars(st->key) && !has_control_chars(st->value));
                }
                json_object *j = ht_resolved_to_json(r);
                FUZZ_ASSERT(j);
                json_object_put(j);
                free(ht_resolved_format_text(r));
                ht_resolved_free(r);
        }

        ht_profile_info *l = NULL;
        size_t nl = 0;
        char *err = NULL;
        if (ht_profile_list(c, &l, &nl, &err) == 0)
                ht_profile_info_free(l, nl);
        free(err);
        ht_context_free(c);
        fuzz_parts_free(parts, n);
        return 0;
}
