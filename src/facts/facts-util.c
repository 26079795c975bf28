/* The bottom of the facts room: warnings, reading sources through the
 * context, the helpers every collector shares. It calls no other facts
 * file, so the collectors' dependencies point one way (docs/DESIGN.md). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>

#include "facts-internal.h"
#include "facts.h"
#include "fileio.h"
#include "util.h"

void ht_facts_warn(ht_facts *f, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        char *s = xvasprintf(fmt, ap);
        va_end(ap);
        /* Sources are untrusted: never let a byte of junk reach a terminal. */
        ht_text_sanitize(s, false);
        strv_push_take(&f->warnings, s);
}

void ht_boot_entry_done(ht_boot_entry *e) {
        free(e->title);
        free(e->kernel);
        free(e->version);
        free(e->id);
        free(e->options);
        *e = (ht_boot_entry){0};
}

const char *ht_bootloader_kind_to_string(ht_bootloader_kind k) {
        switch (k) {
        case HT_BOOT_NONE: return "none";
        case HT_BOOT_GRUB2: return "grub2";
        case HT_BOOT_BLS: return "bls";
        case HT_BOOT_GRUB_LEGACY: return "grub-legacy";
        case HT_BOOT_ZIPL: return "zipl";
        case HT_BOOT_ESP_BLS: return "systemd-boot-esp";
        }
        return "none";
}

void ht_facts_warn_read_error(const ht_context *c, ht_facts *f, const char *path, int r) {
        _cleanup_free_ char *d = ht_display_path(c, path);
        if (r == -EXDEV)
                ht_facts_warn(f, "%s: a symlink leads out of the root, not followed", d);
        else if (r == -EFBIG)
                ht_facts_warn(f, "%s: too large for a fact source, ignored", d);
        else if (r == -ENOENT)
                ht_facts_warn(f, "%s: missing", d);
        else
                ht_facts_warn(f, "%s: cannot read: %s", d, ht_strerror(-r));
}

int ht_facts_read(const ht_context *c, ht_facts *f, const char *path, bool required,
                  char **ret, size_t *ret_len) {
        size_t len = 0;
        char *s;
        int r = ht_read_file(c, path, HT_FACTS_MAX_FILE, &s, &len);
        if (r < 0) {
                if (required || (r != -ENOENT && r != -ENOTDIR))
                        ht_facts_warn_read_error(c, f, path, r);
                return r;
        }
        if (ret_len)
                *ret_len = len;
        *ret = s;
        return 0;
}

int ht_facts_read_untrusted(const ht_context *c, ht_facts *f, const char *path, size_t max,
                            ht_controllers *ctl, bool warn_missing, char **ret, size_t *ret_len) {
        _cleanup_free_ char *why = NULL;
        int r = ht_read_file_untrusted(c, path, max, ctl, ret, ret_len, &why);
        if (r < 0 && (warn_missing || (r != -ENOENT && r != -ENOTDIR))) {
                _cleanup_free_ char *d = ht_display_path(c, path);
                ht_facts_warn(f, "%s: not read: %s", d, why);
                if (r != -ENOENT && r != -ENOTDIR)
                        strv_push(&f->unread_warnings, f->warnings[strv_length(f->warnings) - 1]);
        }
        return r;
}

int ht_facts_read_line(const ht_context *c, ht_facts *f, const char *path, bool required,
                       char **ret) {
        char *s;
        size_t len;
        int r = ht_facts_read(c, f, path, required, &s, &len);
        if (r < 0)
                return r;
        /* the name shown only in a warning: most reads have none */
        _cleanup_free_ char *d = NULL;
        if (strlen(s) != len) {
                d = ht_display_path(c, path);
                ht_facts_check_nul(f, s, len, d);
        }
        len = strlen(s);
        while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
                s[--len] = 0;
        if (has_control_chars(s) || strchr(s, '\n')) {
                if (!d)
                        d = ht_display_path(c, path);
                ht_facts_warn(f, "%s: not a one-line value, ignored", d);
                free(s);
                return -EINVAL;
        }
        *ret = s;
        return 0;
}

/* A host with more processes than this is scanned up to here: the ones
 * that matter (databases, JVMs, tuners) are long-lived and have low pids. */
#define MAX_PIDS 65536

bool ht_facts_proc_comms(const ht_context *c, ht_facts *f, const ht_proc_comm **ret, size_t *ret_n) {
        if (!f->proc_comms_read) {
                f->proc_comms_read = true;
                _cleanup_strv_free_ char **names = NULL;
                if (ht_list_dir(c, "/proc", NULL, &names) == 0 && names[0]) {
                        size_t n = strv_length(names);
                        f->proc_comms = xcalloc(n < MAX_PIDS ? n : MAX_PIDS, sizeof(*f->proc_comms));
                        for (size_t i = 0; names[i] && f->n_proc_comms < MAX_PIDS; i++) {
                                uint64_t pid;
                                if (!names[i][0] || strspn(names[i], "0123456789") != strlen(names[i]) ||
                                    parse_u64(names[i], &pid) < 0 || pid == 0 || pid > UINT32_MAX)
                                        continue;
                                _cleanup_free_ char *p_comm = xasprintf("/proc/%s/comm", names[i]);
                                char *comm = NULL;
                                /* processes come and go while we read: a
                                 * vanished one keeps no comm */
                                if (ht_read_file(c, p_comm, 256, &comm, NULL) == 0)
                                        comm[strcspn(comm, "\n")] = 0;
                                f->proc_comms[f->n_proc_comms++] = (ht_proc_comm){.pid = (unsigned)pid,
                                                                                  .comm = comm};
                        }
                }
        }
        *ret = f->proc_comms;
        *ret_n = f->n_proc_comms;
        return f->proc_comms != NULL;
}

bool ht_facts_check_nul(ht_facts *f, const char *buf, size_t len, const char *where) {
        if (strlen(buf) == len)
                return false;
        ht_facts_warn(f, "%s: holds binary data (NUL byte at offset %zu), read up to it", where,
                      strlen(buf));
        return true;
}

char *ht_cmdline_value(const char *cmdline, const char *key) {
        if (!cmdline)
                return NULL;
        size_t kl = strlen(key);
        char *found = NULL;
        const char *p = cmdline;
        while (*p) {
                while (isspace((unsigned char)*p))
                        p++;
                const char *start = p;
                /* quoted words ("a b") are one word to the kernel */
                bool quoted = false;
                while (*p && (quoted || !isspace((unsigned char)*p))) {
                        if (*p == '"')
                                quoted = !quoted;
                        p++;
                }
                size_t n = (size_t)(p - start);
                if (n > kl && strncmp(start, key, kl) == 0 && start[kl] == '=') {
                        free(found);
                        found = xstrndup(start + kl + 1, n - kl - 1);
                }
        }
        return found;
}
