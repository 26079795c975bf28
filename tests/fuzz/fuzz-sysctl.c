/* libFuzzer target for sysctl.d files: parsing (strict and lenient), key
 * normalisation and checks, the value that wins for a key, and the
 * writer, whose output must parse back to what it was given. Input: one
 * file, or several separated by FUZZ_SEP (read in that order). */
#include "config.h"

#include "edit-sysctl.h"
#include "fuzz-common.h"

#define MAX_FILES 3

static const char *const keys[] = {"vm.nr_hugepages", "net/ipv4/conf/eth0.100/rp_filter", "kernel.sem",
                                   "net.ipv4.conf.all.rp_filter"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *parts[MAX_FILES];
        size_t lens[MAX_FILES];
        size_t n = fuzz_split(data, size, parts, lens, MAX_FILES);
        ht_sysctl_file *files[MAX_FILES] = {0};

        for (size_t i = 0; i < n; i++) {
                ht_sysctl_file *strict = NULL;
                char *err = NULL;
                int r = ht_sysctl_parse(parts[i], lens[i], 0, &strict, &err);
                if (r < 0)
                        FUZZ_ASSERT(r == -EINVAL && err);
                free(err);
                err = NULL;
                FUZZ_ASSERT(ht_sysctl_parse(parts[i], lens[i], HT_SYSCTL_LENIENT, &files[i], &err) == 0);
                if (strict)
                        FUZZ_ASSERT(strict->n_entries == files[i]->n_entries && !files[i]->warnings);
                ht_sysctl_file_free(strict);
        }

        for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                ht_sysctl_hit hit;
                if (ht_sysctl_effective((const ht_sysctl_file *const *)files, n, keys[k], &hit) == 1)
                        FUZZ_ASSERT(hit.file < n && hit.value);
        }

        /* Every key the file holds: the checks agree with each other, and
         * what the writer takes comes back from the parser unchanged. */
        size_t ns = 0;
        ht_sysctl_setting *settings = xcalloc(files[0]->n_entries + 1, sizeof(*settings));
        for (size_t i = 0; i < files[0]->n_entries; i++) {
                const ht_sysctl_entry *e = &files[0]->entries[i];
                char *err = NULL, *path = NULL;
                int r = ht_sysctl_proc_path(e->key, &path, &err);
                if (r == 0) {
                        FUZZ_ASSERT(startswith(path, "/proc/sys/") && !strstr(path, "/../") &&
                                    !strstr(path, "//") && !endswith(path, "/.."));
                        /* (a normalised key whose first level holds a dot
                         * reads as the dotted form again: no first level
                         * under /proc/sys has one) */
                        char *dotted = ht_sysctl_dotted(e->key);
                        char *back = ht_sysctl_normalize(dotted);
                        const char *sep = strpbrk(e->key, "/.");
                        FUZZ_ASSERT(!sep || *sep == '.' || streq(back, e->key));
                        free(dotted);
                        free(back);
                } else
                        FUZZ_ASSERT(err);
                free(path);
                free(err);
                if (e->value && !e->glob)
                        settings[ns++] = (ht_sysctl_setting){e->key, e->value};
        }
        char *out = NULL, *err = NULL;
        if (ht_sysctl_render("fuzz", settings, ns, &out, &err) == 0) {
                ht_sysctl_file *back = NULL;
                FUZZ_ASSERT(ht_sysctl_parse(out, strlen(out), 0, &back, &err) == 0);
                FUZZ_ASSERT(back->n_entries == ns);
                for (size_t i = 0; i < ns; i++) {
                        char *norm = ht_sysctl_normalize(settings[i].key);
                        FUZZ_ASSERT(streq(back->entries[i].key, norm));
                        FUZZ_ASSERT(streq(back->entries[i].value, settings[i].value));
                        FUZZ_ASSERT(!back->entries[i].ignore_failure && !back->entries[i].glob);
                        free(norm);
                }
                ht_sysctl_file_free(back);
        } else
                FUZZ_ASSERT(err);
        free(out);
        free(err);
        free(settings);

        for (size_t i = 0; i < n; i++)
                ht_sysctl_file_free(files[i]);
        fuzz_parts_free(parts, n);
        return 0;
}
