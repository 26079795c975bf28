#include "config.h"

#include <errno.h>

#include "backend-common.h"
#include "util.h"

#define HT_MAX_MANAGED_FILE (16u << 20)

char *ht_managed_header(const char *profile, const char *comment_prefix) {
        return xasprintf("%s Managed by hosttune (profile %s). Changes here are overwritten\n"
                         "%s by the next 'hosttune apply'; put local settings in another file.\n",
                         comment_prefix, profile, comment_prefix);
}

int ht_read_optional(const ht_context *c, const char *path, char **ret, size_t *ret_len) {
        char *s = NULL;
        size_t n = 0;
        int r = ht_read_file(c, path, HT_MAX_MANAGED_FILE, &s, &n);
        if (r == -ENOENT) {
                *ret = NULL;
                if (ret_len)
                        *ret_len = 0;
                return 0;
        }
        if (r < 0)
                return r;
        *ret = s;
        if (ret_len)
                *ret_len = n;
        return 0;
}

bool ht_kernel_values_equal(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        char *na = normalize_ws(a), *nb = normalize_ws(b);
        bool eq = streq(na, nb);
        free(na);
        free(nb);
        return eq;
}

char *ht_kernel_value_effective(const char *raw) {
        const char *open = strchr(raw, '[');
        const char *close = open ? strchr(open, ']') : NULL;
        if (open && close)
                return xstrndup(open + 1, (size_t)(close - open - 1));
        return normalize_ws(raw);
}

bool ht_root_is_live(const ht_context *c) {
        return ht_exists(c, "/proc/sys/kernel") || ht_exists(c, "/sys/kernel");
}

size_t ht_settings_count(const ht_resolved *r, ht_backend_id id) {
        size_t n = 0;
        for (size_t i = 0; i < r->n_settings; i++)
                if (r->settings[i].backend == id)
                        n++;
        return n;
}
