/* libFuzzer target for limits.conf and limits.d files: parsing (strict
 * and lenient), the effective limit for a few users, and the writer,
 * whose output must parse back to what it was given. Input: one file, or
 * several separated by FUZZ_SEP (read in that order). */
#include "config.h"

#include "edit-limits.h"
#include "fuzz-common.h"

#define MAX_FILES 3

static const char *const items[] = {"memlock", "nofile", "nproc", "stack", "maxlogins", "core"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *parts[MAX_FILES];
        size_t lens[MAX_FILES];
        size_t n = fuzz_split(data, size, parts, lens, MAX_FILES);
        ht_limits_file *files[MAX_FILES] = {0};

        for (size_t i = 0; i < n; i++) {
                ht_limits_file *strict = NULL;
                char *err = NULL;
                int r = ht_limits_parse(parts[i], lens[i], 0, &strict, &err);
                if (r < 0)
                        FUZZ_ASSERT(r == -EINVAL && err);
                free(err);
                err = NULL;
                /* lenient mode skips what strict mode refuses, never fails */
                FUZZ_ASSERT(ht_limits_parse(parts[i], lens[i], HT_LIMITS_LENIENT, &files[i], &err) == 0);
                FUZZ_ASSERT(!err);
                if (strict)
                        FUZZ_ASSERT(strict->n_entries == files[i]->n_entries && !files[i]->warnings);
                ht_limits_file_free(strict);
        }

        static const char *const oracle_groups[] = {"oinstall", "dba", NULL};
        static const uint32_t oracle_gids[] = {54321, 54322};
        const ht_limits_subject subjects[] = {
                {.user = "root", .uid = 0, .gid = 0, .groups = (char *const[]){"root", NULL},
                 .gids = (const uint32_t[]){0}, .n_gids = 1},
                {.user = "oracle", .uid = 54321, .gid = 54321, .groups = (char *const *)oracle_groups,
                 .gids = oracle_gids, .n_gids = 2},
        };
        for (size_t s = 0; s < ELEMENTSOF(subjects); s++)
                for (size_t it = 0; it < ELEMENTSOF(items); it++)
                        for (unsigned flags = 0; flags <= HT_LIMITS_ROOT_EXPLICIT; flags++) {
                                ht_limits_result res;
                                ht_limits_effective((const ht_limits_file *const *)files, n, &subjects[s],
                                                    items[it], flags, &res);
                                if (res.soft.set)
                                        FUZZ_ASSERT(res.soft.file < n && res.soft.value);
                                if (res.hard.set)
                                        FUZZ_ASSERT(res.hard.file < n && res.hard.value);
                        }

        /* Write back the entries of the first file: what the writer takes
         * must come back from the parser unchanged. */
        size_t ns = 0;
        ht_limits_setting *settings = xcalloc(files[0]->n_entries + 1, sizeof(*settings));
        for (size_t i = 0; i < files[0]->n_entries; i++) {
                const ht_limits_entry *e = &files[0]->entries[i];
                if (e->no_limits)
                        continue;
                settings[ns++] = (ht_limits_setting){e->domain, e->type, e->item, e->value};
        }
        char *out = NULL, *err = NULL;
        if (ht_limits_render("fuzz", settings, ns, &out, &err) == 0) {
                ht_limits_file *back = NULL;
                FUZZ_ASSERT(ht_limits_parse(out, strlen(out), 0, &back, &err) == 0);
                FUZZ_ASSERT(back->n_entries == ns);
                for (size_t i = 0; i < ns; i++) {
                        FUZZ_ASSERT(streq(back->entries[i].domain, settings[i].domain));
                        FUZZ_ASSERT(streq(back->entries[i].type, settings[i].type));
                        FUZZ_ASSERT(streq(back->entries[i].item, settings[i].item));
                        FUZZ_ASSERT(streq(back->entries[i].value, settings[i].value));
                }
                ht_limits_file_free(back);
        } else
                FUZZ_ASSERT(err);
        free(out);
        free(err);
        free(settings);

        for (size_t i = 0; i < n; i++)
                ht_limits_file_free(files[i]);
        fuzz_parts_free(parts, n);
        return 0;
}
