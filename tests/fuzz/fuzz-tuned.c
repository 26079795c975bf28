/* libFuzzer target for tuned's profile files (format-tuned), read both
 * as tuned.conf and headerless: a success has unique, findable sections
 * and keys, keys without line ends or outer blanks, values without \r,
 * lines within the text; an error names "fuzz:LINE" and leaves *ret
 * alone; \r\n and lone \r line ends read as \n does. */
#include "config.h"

#include "format-tuned.h"
#include "fuzz-common.h"

static char *render(const ht_tuned_conf *c) {
        strbuf b = {0};
        for (size_t s = 0; s < c->n_sections; s++) {
                strbuf_appendf(&b, "[%s]\n", c->sections[s].name);
                for (size_t o = 0; o < c->sections[s].n_options; o++) {
                        const ht_tuned_option *opt = &c->sections[s].options[o];
                        strbuf_appendf(&b, "%s=%s %u %s\n", opt->key, opt->value, opt->line,
                                       opt->comment ? opt->comment : "-");
                }
        }
        return strbuf_steal(&b);
}

static void check_conf(const ht_tuned_conf *c, bool headerless, unsigned n_lines) {
        for (size_t s = 0; s < c->n_sections; s++) {
                const ht_tuned_section *sec = &c->sections[s];
                FUZZ_ASSERT(sec->name && !strpbrk(sec->name, "\r\n"));
                FUZZ_ASSERT(!streq(sec->name, "DEFAULT"));
                FUZZ_ASSERT(ht_tuned_conf_section(c, sec->name) == sec);
                FUZZ_ASSERT(*sec->name ? sec->line >= 1 && sec->line <= n_lines : headerless && sec->line == 0);
                for (size_t o = 0; o < sec->n_options; o++) {
                        const ht_tuned_option *opt = &sec->options[o];
                        FUZZ_ASSERT(opt->key && *opt->key && !strpbrk(opt->key, "\r\n="));
                        FUZZ_ASSERT(!strchr(" \t", opt->key[0]) && !strchr(" \t", opt->key[strlen(opt->key) - 1]));
                        FUZZ_ASSERT(opt->value && !strchr(opt->value, '\r'));
                        FUZZ_ASSERT(opt->line >= 1 && opt->line <= n_lines);
                        FUZZ_ASSERT(!opt->comment || !strchr(opt->comment, '\r'));
                        FUZZ_ASSERT(ht_tuned_section_option(sec, opt->key) == opt);
                }
        }
}

static void one(const char *text, size_t len, bool headerless) {
        unsigned n_lines = 1;
        for (size_t i = 0; i < len; i++)
                n_lines += text[i] == '\n' || (text[i] == '\r' && !(i + 1 < len && text[i + 1] == '\n'));
        ht_tuned_conf *c = (ht_tuned_conf *)0x1;
        char *error = NULL;
        int r = ht_tuned_conf_parse(text, len, "fuzz", headerless, &c, &error);
        if (r < 0) {
                FUZZ_ASSERT(r == -EINVAL && c == (ht_tuned_conf *)0x1);
                FUZZ_ASSERT(error && startswith(error, "fuzz:"));
                free(error);
                return;
        }
        FUZZ_ASSERT(r == 0 && c && !error);
        check_conf(c, headerless, n_lines);

        /* the same text with every line end (\r\n, a lone \r) as \n reads
         * the same */
        char *lf = xmalloc(len + 1);
        size_t n = 0;
        for (size_t i = 0; i < len; i++) {
                lf[n++] = text[i] == '\r' ? '\n' : text[i];
                if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
                        i++;
        }
        ht_tuned_conf *d = NULL;
        char *error2 = NULL;
        FUZZ_ASSERT(ht_tuned_conf_parse(lf, n, "fuzz", headerless, &d, &error2) == 0);
        char *a = render(c), *b = render(d);
        FUZZ_ASSERT(streq(a, b));
        free(a);
        free(b);
        free(lf);
        ht_tuned_conf_free(d);
        ht_tuned_conf_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        one((const char *)data, size, false);
        one((const char *)data, size, true);
        return 0;
}
