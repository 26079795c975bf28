/* libFuzzer target for grub.cfg kernel lines (hosts without a defaults
 * file): the parser's spans, and the in-place edits for Linux and Xen
 * lines: an edit keeps the number of kernel lines, is done in one go
 * (a second edit changes nothing) and never touches other bytes' count
 * of lines. */
#include "config.h"

#include "edit-grub-cfg.h"
#include "fuzz-common.h"

static size_t count_lines(const char *s, size_t n) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                k += s[i] == '\n';
        return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = xmalloc(size + 1);
        memcpy(text, data, size);
        text[size] = 0;
        char *err = NULL, *out = NULL;
        size_t out_len, n_lines;

        ht_grub_cfg *g = NULL;
        int r = ht_grub_cfg_parse(text, size, &g, &err);
        if (r < 0)
                FUZZ_ASSERT(err && r == -EINVAL);
        free(err);
        err = NULL;
        for (size_t i = 0; g && i < g->n_kernels; i++)
                FUZZ_ASSERT(g->kernels[i].args_start <= g->kernels[i].args_end && g->kernels[i].args_end <= size);

        for (size_t o = 0; g && o < ELEMENTSOF(fuzz_op_sets); o++)
                for (int kind = HT_GRUB_CFG_LINUX; kind <= HT_GRUB_CFG_XEN; kind++) {
                        const fuzz_op_set *os = &fuzz_op_sets[o];
                        r = ht_grub_cfg_edit(text, size, kind, os->ops, os->n, &out, &out_len, &n_lines, &err);
                        if (r < 0)
                                FUZZ_ASSERT(err && !out);
                        else {
                                FUZZ_ASSERT(out && strlen(out) == out_len);
                                FUZZ_ASSERT(count_lines(out, out_len) == count_lines(text, size));
                                ht_grub_cfg *g2 = NULL;
                                FUZZ_ASSERT(ht_grub_cfg_parse(out, out_len, &g2, &err) == 0);
                                FUZZ_ASSERT(g2->n_kernels == g->n_kernels);
                                ht_grub_cfg_free(g2);
                                char *again = NULL;
                                size_t again_len, n2;
                                FUZZ_ASSERT(ht_grub_cfg_edit(out, out_len, kind, os->ops, os->n, &again, &again_len,
                                                             &n2, &err) == 0);
                                FUZZ_ASSERT(again_len == out_len && memcmp(again, out, out_len) == 0);
                                free(again);
                        }
                        free(out);
                        free(err);
                        out = err = NULL;
                }
        ht_grub_cfg_free(g);
        free(text);
        return 0;
}
