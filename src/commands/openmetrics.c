/* The OpenMetrics and Prometheus 0.0.4 text expositions (openmetrics.h).
 * OpenMetrics: https://github.com/OpenObservability/OpenMetrics,
 * specification/OpenMetrics.md (ABNF: escaped-string, metricname with
 * unit suffix, "# EOF"); 0.0.4: Prometheus docs,
 * instrumenting/exposition_formats.md. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "backend.h"
#include "fileio.h"
#include "openmetrics.h"

void ht_om_init(ht_om *m, ht_om_dialect d) {
        *m = (ht_om){.dialect = d};
}

void ht_om_done(ht_om *m) {
        strbuf_done(&m->out);
        free(m->sample_name);
        m->sample_name = NULL;
}

/* Length of the UTF-8 sequence at s (1-4), or 0 when it is not one
 * (overlong forms, surrogates and values above U+10FFFF included). */
static size_t utf8_len(const unsigned char *s) {
        if (s[0] < 0x80)
                return 1;
        size_t n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
        for (size_t i = 1; i < n; i++)
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
        if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
                return 0;
        if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
                return 0;
        return n;
}

char *ht_om_escape(const char *s, bool quote) {
        strbuf b = {0};
        strbuf_grow(&b, strlen(s));
        for (const unsigned char *p = (const unsigned char *)s; *p;) {
                if (*p == '\\')
                        strbuf_append(&b, "\\\\");
                else if (*p == '\n')
                        strbuf_append(&b, "\\n");
                else if (*p == '"' && quote)
                        strbuf_append(&b, "\\\"");
                else {
                        size_t n = utf8_len(p);
                        if (n == 0) {
                                strbuf_append(&b, "\xef\xbf\xbd");
                                p++;
                        } else {
                                strbuf_appendn(&b, (const char *)p, n);
                                p += n;
                        }
                        continue;
                }
                p++;
        }
        strbuf_append(&b, "");
        return strbuf_steal(&b);
}

void ht_om_family(ht_om *m, const char *name, ht_om_type type, const char *unit, const char *help) {
        bool om = m->dialect == HT_OM_OPENMETRICS;
        const char *suffix = type == HT_OM_COUNTER ? "_total" : type == HT_OM_INFO ? "_info" : "";
        /* OpenMetrics names the family without the suffix its samples
         * carry and has an info type; 0.0.4 names the family as its
         * samples and has no info type (a gauge of 1, as node_uname_info) */
        _cleanup_free_ char *family = om ? xstrdup(name) : xasprintf("%s%s", name, suffix);
        const char *tname = type == HT_OM_COUNTER ? "counter" : type == HT_OM_INFO && om ? "info" : "gauge";
        _cleanup_free_ char *h = ht_om_escape(help, om);
        strbuf_appendf(&m->out, "# HELP %s %s\n# TYPE %s %s\n", family, h, family, tname);
        if (unit && om)
                strbuf_appendf(&m->out, "# UNIT %s %s\n", family, unit);
        free(m->sample_name);
        m->sample_name = xasprintf("%s%s", name, suffix);
        m->type = type;
}

void ht_om_sample(ht_om *m, int64_t value, ...) {
        va_list ap;
        va_start(ap, value);
        strbuf_append(&m->out, m->sample_name);
        const char *k;
        bool first = true;
        while ((k = va_arg(ap, const char *))) {
                const char *v = va_arg(ap, const char *);
                _cleanup_free_ char *e = ht_om_escape(v ? v : "", true);
                strbuf_appendf(&m->out, "%s%s=\"%s\"", first ? "{" : ",", k, e);
                first = false;
        }
        va_end(ap);
        strbuf_appendf(&m->out, "%s %" PRId64 "\n", first ? "" : "}", value);
}

char *ht_om_finish(ht_om *m) {
        if (m->dialect == HT_OM_OPENMETRICS)
                strbuf_append(&m->out, "# EOF\n");
        strbuf_append(&m->out, "");
        char *s = strbuf_steal(&m->out);
        ht_om_done(m);
        return s;
}

static const ht_check_status all_status[] = {HT_CHECK_OK, HT_CHECK_DRIFT, HT_CHECK_PENDING};

void ht_om_verify(ht_om *m, const ht_verify_result *r, int reboot_pending, int64_t now) {
        static const ht_verify_result unknown = {0};
        ht_om_family(m, "hosttune_verify_status", HT_OM_GAUGE, NULL,
                     "Verify's verdict on the last apply: 1 for the state it is in, 0 for the others.");
        for (size_t i = 0; r && i < ELEMENTSOF(all_status); i++)
                ht_om_sample(m, r->status == all_status[i], "status", ht_check_status_to_string(all_status[i]), NULL);
        bool known = r;
        if (!r)
                r = &unknown;

        /* each backend that has checks, with all three states, so that a
         * rule can compare a count that is zero */
        ht_om_family(m, "hosttune_verify_checks", HT_OM_GAUGE, NULL,
                     "Verify's checks of the last apply by backend and status.");
        for (size_t i = 0; i < r->n_checks; i++) {
                bool seen = false;
                for (size_t j = 0; j < i && !seen; j++)
                        seen = streq(r->checks[j].backend, r->checks[i].backend);
                if (seen)
                        continue;
                size_t n[ELEMENTSOF(all_status)] = {0};
                for (size_t j = i; j < r->n_checks; j++)
                        if (streq(r->checks[j].backend, r->checks[i].backend))
                                n[r->checks[j].status]++;
                for (size_t s = 0; s < ELEMENTSOF(all_status); s++)
                        ht_om_sample(m, (int64_t)n[s], "backend", r->checks[i].backend, "status",
                                     ht_check_status_to_string(all_status[s]), NULL);
        }
        size_t drift = 0;
        for (size_t i = 0; i < r->n_checks; i++)
                drift += r->checks[i].status == HT_CHECK_DRIFT;
        ht_om_family(m, "hosttune_verify_drift_checks", HT_OM_GAUGE, NULL,
                     "Checks whose value drifted from what the last apply set.");
        if (known)
                ht_om_sample(m, (int64_t)drift, NULL);

        ht_om_family(m, "hosttune_reboot_pending", HT_OM_GAUGE, NULL,
                     "1 when applied changes wait for a reboot, else 0.");
        if (reboot_pending >= 0)
                ht_om_sample(m, reboot_pending > 0, NULL);

        int64_t at = r->applied ? ht_parse_iso_time(r->applied_at) : -1;
        ht_om_family(m, "hosttune_last_apply_age_seconds", HT_OM_GAUGE, "seconds",
                     "Seconds from the last apply in effect to this run.");
        if (at >= 0 && now >= at)
                ht_om_sample(m, now - at, NULL);

        ht_om_family(m, "hosttune_applied", HT_OM_INFO, NULL, "The profile and transaction of the last apply in effect.");
        if (r->applied)
                ht_om_sample(m, 1, "profile", r->profile ? r->profile : "", "txid", r->txid, NULL);
}

int ht_om_write_textfile(const ht_context *c, const char *path, const char *data) {
        /* Debian's prometheus-node-exporter postinst chowns
         * /var/lib/prometheus to its prometheus user, so the directories
         * on the way are not all root's: reached without following any
         * link, and in the last one a new temp file (O_EXCL|O_NOFOLLOW)
         * renamed over the name, never a write through what is there. */
        _cleanup_close_ int dir = -EBADF;
        _cleanup_free_ char *name = NULL;
        int r = ht_resolve_parent_nofollow(c, path, &dir, &name);
        if (r < 0)
                return r;
        return ht_write_file_atomic_at(dir, name, data, strlen(data), 0644, HT_UID_ANY, HT_GID_ANY);
}
