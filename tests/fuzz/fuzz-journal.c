/* libFuzzer target for the journal's manifest loader: the checks a
 * manifest passes before rollback or recovery trusts a word of it,
 * confinement included (issue 32). Any text is accepted or refused with a
 * reason, never a crash; and what is accepted is confined: every file
 * item names a file its backend writes (the backends' own predicate, as
 * the CLI gives it), every runtime item a path below /proc/sys or /sys,
 * every follow-up action a plain word (its command comes from the
 * backends' table, not from here). */
#include "config.h"

#include "backend.h"
#include "fuzz-common.h"
#include "journal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
        (void)argc;
        (void)argv;
        /* the manifest's settings name their backends' key fields */
        ht_backend_registry_use(ht_backends);
        ht_journal_confine(ht_backend_manages_file);
        return 0;
}

static void assert_confined(const char *text, size_t size) {
        json_tokener *tok = json_tokener_new();
        json_object *m = json_tokener_parse_ex(tok, text, (int)size);
        json_tokener_free(tok);
        FUZZ_ASSERT(m);
        json_object *items = NULL;
        FUZZ_ASSERT(json_object_object_get_ex(m, "items", &items));
        for (size_t i = 0; i < json_object_array_length(items); i++) {
                json_object *it = json_object_array_get_idx(items, i), *v;
                FUZZ_ASSERT(json_object_object_get_ex(it, "kind", &v));
                const char *kind = json_object_get_string(v);
                FUZZ_ASSERT(json_object_object_get_ex(it, "path", &v));
                const char *path = json_object_get_string(v);
                FUZZ_ASSERT(!strstr(path, "/../") && !strstr(path, "/./"));
                if (streq(kind, "runtime"))
                        FUZZ_ASSERT(startswith(path, "/proc/sys/") || startswith(path, "/sys/"));
                else {
                        FUZZ_ASSERT(json_object_object_get_ex(it, "backend", &v));
                        FUZZ_ASSERT(ht_backend_manages_file(NULL, json_object_get_string(v), path));
                }
        }
        json_object_put(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = xmalloc(size + 1);
        memcpy(text, data, size);
        text[size] = 0;

        char *err = NULL;
        int r = ht_journal_manifest_check(text, size, NULL, &err);
        FUZZ_ASSERT(r == 0 ? !err : r == -EBADMSG && err);
        if (r == 0)
                assert_confined(text, size);
        free(err);
        err = NULL;
        /* as tx_load_at checks it, inside the directory of a given txid */
        r = ht_journal_manifest_check(text, size, "20240101T000000Z-0123abcd", &err);
        FUZZ_ASSERT(r == 0 ? !err : r == -EBADMSG && err);
        free(err);
        free(text);
        return 0;
}
