/* libFuzzer target for legacy GRUB menu files (grub.conf, menu.lst):
 * the format's one parser (format-grub-legacy.h: lenient for the facts,
 * strict for the editor; both agree), argument edits of every entry for
 * Linux and the hypervisor, the default entry, /boot/grub/default, and
 * the facts' use of the same parser. */
#include "config.h"

#include "edit-grub-legacy.h"
#include "facts-internal.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = xmalloc(size + 1);
        memcpy(text, data, size);
        text[size] = 0;
        char *err = NULL, *out = NULL;
        size_t out_len;

        ht_grub_legacy_conf *all = ht_grub_legacy_parse_menu(text, size);
        for (size_t i = 0; i < all->n_entries; i++) {
                const ht_grub_legacy_entry *e = &all->entries[i];
                FUZZ_ASSERT(e->linux_args_start <= e->linux_args_end && e->linux_args_end <= size);
                FUZZ_ASSERT(e->xen_args_start <= e->xen_args_end && e->xen_args_end <= size);
                FUZZ_ASSERT(!e->linux_kernel == !e->linux_args);
                FUZZ_ASSERT(e->xen || (e->linux_kernel != NULL) == (e->kernel != NULL));
        }
        unsigned saved;
        char *word = NULL;
        (void)ht_grub_legacy_saved_default(text, size, &saved, &word);
        FUZZ_ASSERT(word);
        free(word);

        ht_grub_legacy_conf *conf = NULL;
        int r = ht_grub_legacy_parse(text, size, &conf, &err);
        FUZZ_ASSERT((r == 0) == (all->n_problems == 0));
        ht_grub_legacy_conf_free(all);
        if (r < 0)
                FUZZ_ASSERT(err && r == -EINVAL);
        free(err);
        err = NULL;
        if (conf)
                for (size_t i = 0; i < conf->n_entries; i++) {
                        const ht_grub_legacy_entry *e = &conf->entries[i];
                        FUZZ_ASSERT(e->linux_args_start <= e->linux_args_end && e->linux_args_end <= size);
                        FUZZ_ASSERT(e->xen_args_start <= e->xen_args_end && e->xen_args_end <= size);
                }

        for (size_t o = 0; o < ELEMENTSOF(fuzz_op_sets); o++)
                for (int t = HT_GRUB_LEGACY_LINUX; t <= HT_GRUB_LEGACY_HYPERVISOR; t++) {
                        const fuzz_op_set *os = &fuzz_op_sets[o];
                        r = ht_grub_legacy_edit(text, size, HT_GRUB_LEGACY_ALL, t, os->ops, os->n,
                                                &out, &out_len, &err);
                        if (r < 0)
                                FUZZ_ASSERT(err);
                        else {
                                FUZZ_ASSERT(out && strlen(out) == out_len);
                                /* still a menu with the same entries; the
                                 * edit is done */
                                ht_grub_legacy_conf *c2 = NULL;
                                FUZZ_ASSERT(ht_grub_legacy_parse(out, out_len, &c2, &err) == 0);
                                FUZZ_ASSERT(c2->n_entries == conf->n_entries);
                                ht_grub_legacy_conf_free(c2);
                                char *again = NULL;
                                size_t again_len;
                                FUZZ_ASSERT(ht_grub_legacy_edit(out, out_len, HT_GRUB_LEGACY_ALL, t, os->ops,
                                                                os->n, &again, &again_len, &err) == 0);
                                FUZZ_ASSERT(again_len == out_len && memcmp(again, out, out_len) == 0);
                                free(again);
                        }
                        free(out);
                        free(err);
                        out = err = NULL;
                }
        if (conf)
                for (size_t i = 0; i < conf->n_entries && i < 4; i++) {
                        r = ht_grub_legacy_edit(text, size, (int)i, HT_GRUB_LEGACY_HYPERVISOR, fuzz_ops_hv,
                                                ELEMENTSOF(fuzz_ops_hv), &out, &out_len, &err);
                        FUZZ_ASSERT(r == 0 || err);
                        free(out);
                        free(err);
                        out = err = NULL;
                }
        for (unsigned idx = 0; idx < 3; idx++) {
                r = ht_grub_legacy_set_default(text, size, idx, &out, &out_len, &err);
                if (r == 0) {
                        ht_grub_legacy_conf *c2 = NULL;
                        FUZZ_ASSERT(ht_grub_legacy_parse(out, out_len, &c2, &err) == 0);
                        FUZZ_ASSERT(c2->default_entry == (int)idx);
                        ht_grub_legacy_conf_free(c2);
                } else
                        FUZZ_ASSERT(err);
                free(out);
                free(err);
                out = err = NULL;
        }
        ht_grub_legacy_conf_free(conf);

        ht_facts *f = ht_facts_new();
        ht_facts_parse_grub_legacy(f, text, size, "grub.conf");
        ht_facts_free(f);
        free(text);
        return 0;
}
