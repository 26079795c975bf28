/* libFuzzer target for /etc/default/grub and grub.d/ *.cfg: parse, the
 * values the files leave behind, and word edits of the command line
 * variables. Input: /etc/default/grub, optionally FUZZ_SEP and one
 * grub.d file sourced after it. */
#include "config.h"

#include "edit-grub.h"
#include "fuzz-common.h"

static const char *const vars[] = {"GRUB_CMDLINE_LINUX", "GRUB_CMDLINE_LINUX_DEFAULT", "GRUB_CMDLINE_XEN"};

static void edit_one(const char *content, size_t len, const ht_grub_env *before, const char *var,
                     const fuzz_op_set *os) {
        char *out = NULL, *err = NULL;
        size_t out_len = 0;
        int r = ht_grub_edit(content, len, var, before, os->ops, os->n, &out, &out_len, &err);
        if (r < 0) {
                FUZZ_ASSERT(err && r == -EINVAL);
                /* the editor checks its result against the model: failing
                 * that check is a bug in the editor, not bad input */
                FUZZ_ASSERT(!startswith(err, "internal error"));
                free(err);
                return;
        }
        FUZZ_ASSERT(!err && out && strlen(out) == out_len);
        /* the edited file parses, and editing it again changes nothing */
        ht_grub_file *f = NULL;
        FUZZ_ASSERT(ht_grub_parse(out, out_len, &f, &err) == 0);
        ht_grub_file_free(f);
        char *again = NULL;
        size_t again_len = 0;
        r = ht_grub_edit(out, out_len, var, before, os->ops, os->n, &again, &again_len, &err);
        FUZZ_ASSERT(r == 0);
        FUZZ_ASSERT(again_len == out_len && memcmp(again, out, out_len) == 0);
        free(again);
        free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *parts[2];
        size_t lens[2];
        size_t n = fuzz_split(data, size, parts, lens, 2);

        for (size_t i = 0; i < n; i++) {
                ht_grub_file *f = NULL;
                char *err = NULL;
                int r = ht_grub_parse(parts[i], lens[i], &f, &err);
                if (r < 0)
                        FUZZ_ASSERT(err && r == -EINVAL);
                else
                        for (size_t k = 0; k < f->n_assignments; k++)
                                FUZZ_ASSERT(f->assignments[k].value_start <= f->assignments[k].value_end &&
                                            f->assignments[k].value_end <= lens[i]);
                ht_grub_file_free(f);
                free(err);
        }

        ht_grub_env *env = ht_grub_env_new();
        for (size_t i = 0; i < n; i++) {
                char *err = NULL;
                if (ht_grub_eval_file(env, i, parts[i], lens[i], &err) < 0)
                        FUZZ_ASSERT(err);
                free(err);
                if (i == 0)
                        for (size_t v = 0; v < ELEMENTSOF(vars); v++)
                                for (size_t o = 0; o < ELEMENTSOF(fuzz_op_sets); o++)
                                        edit_one(parts[0], lens[0], NULL, vars[v], &fuzz_op_sets[o]);
        }
        if (n > 1) {
                /* the grub.d file, on top of what /etc/default/grub left */
                ht_grub_env *before = ht_grub_env_new();
                char *err = NULL;
                if (ht_grub_eval_file(before, 0, parts[0], lens[0], &err) == 0)
                        for (size_t v = 0; v < ELEMENTSOF(vars); v++)
                                edit_one(parts[1], lens[1], before, vars[v], &fuzz_op_sets[0]);
                free(err);
                ht_grub_env_free(before);
        }
        for (size_t i = 0; i < env->n_vars; i++)
                FUZZ_ASSERT(env->vars[i].value || env->vars[i].why);
        ht_grub_env_free(env);
        fuzz_parts_free(parts, n);
        return 0;
}
