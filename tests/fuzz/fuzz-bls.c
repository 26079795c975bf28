/* libFuzzer target for Boot Loader Specification entries, the GRUB
 * environment block and /etc/kernel/cmdline: the formats' one parser
 * (format-bls.h: lenient for the facts, strict for the editors; both
 * agree), the options' expansion, the word edits, and the facts' use of
 * the same parser. Input: a BLS entry, optionally FUZZ_SEP and a grubenv
 * block. */
#include "config.h"

#include "edit-bls.h"
#include "facts-internal.h"
#include "fuzz-common.h"

static void check_edit_result(int r, char *out, size_t out_len, char *err) {
        if (r < 0) {
                FUZZ_ASSERT(err);
                FUZZ_ASSERT(!startswith(err, "internal error"));
        } else
                FUZZ_ASSERT(!err && out && strlen(out) == out_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *parts[2];
        size_t lens[2];
        size_t n = fuzz_split(data, size, parts, lens, 2);
        const char *entry = parts[0], *envtext = n > 1 ? parts[1] : parts[0];
        size_t entry_len = lens[0], env_len = n > 1 ? lens[1] : lens[0];
        char *err = NULL, *out = NULL;
        size_t out_len;

        /* the lenient parse: spans inside the text, and the strict one
         * fails exactly when it lists a problem */
        ht_bls_entry *all = ht_bls_parse_entry(entry, entry_len);
        for (size_t i = 0; i < all->n_lines; i++)
                FUZZ_ASSERT(all->lines[i].value_start <= all->lines[i].value_end &&
                            all->lines[i].value_end <= entry_len);
        ht_grubenv *block = ht_grubenv_parse_block(envtext, env_len);
        for (size_t i = 0; i < block->n; i++)
                FUZZ_ASSERT(block->vars[i].start < block->vars[i].end && block->vars[i].end <= env_len &&
                            block->vars[i].value_start < block->vars[i].end);
        FUZZ_ASSERT(block->data_end <= env_len);
        char *options = ht_bls_options(all);
        char *words = ht_bls_expand_env(options, block);
        FUZZ_ASSERT(words && !strstr(words, "  "));
        free(words);
        free(options);

        ht_bls_entry *e = NULL;
        int r = ht_bls_parse(entry, entry_len, &e, &err);
        FUZZ_ASSERT((r == 0) == (all->n_problems == 0));
        ht_bls_entry_free(all);
        if (r < 0)
                FUZZ_ASSERT(err && r == -EINVAL);
        else {
                for (size_t i = 0; i < e->n_lines; i++)
                        FUZZ_ASSERT(e->lines[i].value_start <= e->lines[i].value_end &&
                                    e->lines[i].value_end <= entry_len);
                const char *opts = ht_bls_get(e, "options");
                if (opts)
                        (void)ht_bls_uses_kernelopts(opts);
        }
        ht_bls_entry_free(e);
        free(err);
        err = NULL;

        ht_grubenv *env = NULL;
        r = ht_grubenv_parse(envtext, env_len, &env, &err);
        if (r < 0)
                FUZZ_ASSERT(err);
        FUZZ_ASSERT((r == 0) == (block->n_problems == 0));
        ht_grubenv_free(block);
        free(err);
        err = NULL;

        for (size_t o = 0; o < ELEMENTSOF(fuzz_op_sets); o++) {
                const fuzz_op_set *os = &fuzz_op_sets[o];
                r = ht_bls_edit_options(entry, entry_len, env, os->ops, os->n, &out, &out_len, &err);
                check_edit_result(r, out, out_len, err);
                if (r == 0) {
                        /* the result is an entry, and the edit is done */
                        e = NULL;
                        FUZZ_ASSERT(ht_bls_parse(out, out_len, &e, &err) == 0);
                        ht_bls_entry_free(e);
                        char *again = NULL;
                        size_t again_len;
                        FUZZ_ASSERT(ht_bls_edit_options(out, out_len, env, os->ops, os->n, &again,
                                                        &again_len, &err) == 0);
                        FUZZ_ASSERT(again_len == out_len && memcmp(again, out, out_len) == 0);
                        free(again);
                }
                free(out);
                free(err);
                out = err = NULL;

                r = ht_grubenv_edit_kernelopts(envtext, env_len, os->ops, os->n, &out, &out_len, &err);
                check_edit_result(r, out, out_len, err);
                if (r == 0) {
                        /* still a block, of its size (a short one grows
                         * to the 1024 bytes GRUB wants) */
                        ht_grubenv *e2 = NULL;
                        FUZZ_ASSERT(ht_grubenv_parse(out, out_len, &e2, &err) == 0);
                        if (env)
                                FUZZ_ASSERT(e2->size == (env->size < HT_GRUBENV_SIZE ? HT_GRUBENV_SIZE : env->size));
                        ht_grubenv_free(e2);
                }
                free(out);
                free(err);
                out = err = NULL;

                r = ht_kernel_cmdline_edit(entry, entry_len, os->ops, os->n, &out, &out_len, &err);
                check_edit_result(r, out, out_len, err);
                free(out);
                free(err);
                out = err = NULL;
        }
        ht_grubenv_free(env);

        /* the facts room's own readers of the same files */
        ht_facts *f = ht_facts_new();
        ht_boot_entry be = {0};
        ht_parse_bls_entry(f, entry, entry_len, "entry", &be);
        ht_boot_entry_done(&be);
        ht_facts_parse_grubenv(f, envtext, env_len, "grubenv");
        ht_facts_free(f);

        fuzz_parts_free(parts, n);
        return 0;
}
