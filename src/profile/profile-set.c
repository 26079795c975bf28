/* --set NAME=VALUE on the command line: a parameter's value, or, as
 * sysctl.KEY=VALUE, the one setting the command line gives. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "resolver-internal.h"
#include "util.h"

static bool parse_bool_word(const char *s, bool *ret) {
        if (streq(s, "true") || streq(s, "yes") || streq(s, "on") || streq(s, "1"))
                *ret = true;
        else if (streq(s, "false") || streq(s, "no") || streq(s, "off") || streq(s, "0"))
                *ret = false;
        else
                return false;
        return true;
}

int ht_set_param(ht_resolver *r, const char *assignment, char **ret_error) {
        const char *eq = strchr(assignment, '=');
        if (!eq || eq == assignment)
                return ht_error(ret_error, -EINVAL, "--set %s: expected NAME=VALUE", assignment);
        _cleanup_free_ char *name = xstrndup(assignment, eq - assignment);
        const char *text = eq + 1;
        ht_rparam *p = ht_param_find(r, name);
        if (!p) {
                _cleanup_strv_free_ char **names = ht_param_names(r);
                const char *close = closest_word(name, names);
                return ht_error(ret_error, -EINVAL, "--set %s: unknown parameter '%s'%s%s%s", assignment, name,
                                close ? " (did you mean '" : "", close ? close : "",
                                close ? "'?)" : "");
        }
        if (has_control_chars(text))
                return ht_error(ret_error, -EINVAL, "--set %s: control characters are not allowed", name);
        ht_spec sp = {0};
        if (text[0] == '=') {
                _cleanup_free_ char *e = xstrdup(text + 1);
                if (isempty(strstrip(e)))
                        return ht_error(ret_error, -EINVAL, "--set %s: empty expression after '='", name);
                sp = (ht_spec){.kind = HT_SPEC_EXPR, .text = xstrdup(strstrip(e))};
        } else {
                ht_value v = ht_value_parse_literal(text);
                const ht_value *decl = p->spec.kind == HT_SPEC_LIT ? &p->spec.lit : NULL;
                bool b;
                /* A default given by an expression has no type to check
                 * against; a size that does not parse is an error all the
                 * same (sga_max_size defaults to a fact). */
                size_t digits = strspn(text, "0123456789");
                /* "50%": a share, which no size parameter takes */
                bool size_like = digits > 0 && (!text[digits] || streq(text + digits, "%") ||
                                                (isalpha((unsigned char)text[digits]) && !text[digits + 1]));
                if (((decl && decl->type == HT_VAL_INT) || (!decl && size_like)) && v.type != HT_VAL_INT) {
                        ht_value_done(&v);
                        bool numeric = isdigit((unsigned char)text[text[0] == '-']);
                        return ht_error(ret_error, -EINVAL, "--set %s=%s: parameter %s takes an integer (sizes "
                                        "take K, M, G, T)%s, see %s", name, text, name,
                                        numeric ? "; this one is malformed or does not "
                                                         "fit in 64 bits" : "",
                                        ht_param_source(r, p));
                }
                if (decl && decl->type == HT_VAL_BOOL && v.type != HT_VAL_BOOL) {
                        ht_value_done(&v);
                        if (!parse_bool_word(text, &b))
                                return ht_error(ret_error, -EINVAL, "--set %s=%s: parameter %s takes true or "
                                                "false, see %s", name, text, name, ht_param_source(r, p));
                        v = ht_value_bool(b);
                }
                if (decl && decl->type == HT_VAL_STR) {
                        /* A string parameter keeps what was typed: "1000" is a name. */
                        ht_value_done(&v);
                        v = ht_value_str(text);
                }
                sp = (ht_spec){.kind = HT_SPEC_LIT, .lit = v};
        }
        ht_spec_done(&p->spec);
        ht_params_forget(r);   /* a value computed from the old spec is stale */
        p->spec = sp;
        p->source = ht_resolver_strdup(r, "--set");
        p->citation = NULL;
        p->file = "--set";
        p->line = 0;
        return 0;
}


/* --set sysctl.KEY=VALUE is the one setting the command line gives. */
static const ht_backend *sysctl_backend(void) {
        const ht_backend *b = ht_backend_by_name("sysctl");
        if (!b || !b->check_key)
                abort();  /* the registry lost it: a build mistake */
        return b;
}

/* --set sysctl.KEY=VALUE: checked like a profile's key and value. */
int ht_set_parse_sysctl(const char *assignment, char **ret_key, char **ret_value,
                            char **ret_error) {
        const char *k = assignment + strlen(HT_SYSCTL_SET_PREFIX);
        const char *eq = strchr(k, '=');
        if (!eq)
                return ht_error(ret_error, -EINVAL, "--set %s: expected sysctl.KEY=VALUE", assignment);
        _cleanup_free_ char *key = xstrndup(k, eq - k);
        if (sysctl_backend()->check_key(key) < 0)
                return ht_error(ret_error, -EINVAL, "--set %s: '%s' is not a sysctl name (levels of letters, "
                                "digits, '_' and '-' joined by '.', as in sysctl.d(5); no "
                                "empty, '.' or '..' levels)", assignment, key);
        if (has_control_chars(eq + 1))
                return ht_error(ret_error, -EINVAL, "--set sysctl.%s: control characters are not allowed", key);
        _cleanup_free_ char *value = normalize_ws(eq + 1);
        if (isempty(value))
                return ht_error(ret_error, -EINVAL, "--set sysctl.%s: needs a value (sysctl.%s=VALUE)", key, key);
        if (value[0] == '=')
                return ht_error(ret_error, -EINVAL, "--set sysctl.%s=%s: a sysctl value is written as it is, "
                                "not as an expression (expressions are for parameters)",
                                key, eq + 1);
        if (strlen(value) > 4096)
                return ht_error(ret_error, -EINVAL, "--set sysctl.%s: the value is too long", key);
        *ret_key = TAKE_PTR(key);
        *ret_value = TAKE_PTR(value);
        return 0;
}

/* A --set sysctl value: exact, whatever bound the profile gave, and kept
 * over what the rules would set (they still see it, and still warn or
 * fail over it). */
void ht_set_pin_sysctl(ht_resolver *r, const char *key, const char *value) {
        ht_setting s = {.backend = sysctl_backend()->id, .key = ht_resolver_strdup(r, key),
                        .value = ht_resolver_strdup(r, value), .source = ht_resolver_strdup(r, "--set"),
                        .bound = HT_BOUND_EXACT};
        ht_rsetting *old = ht_resolver_find(r, &s);
        if (!old) {
                ht_resolver_append(r, &s, -1, "--set", 0)->pinned = true;
                return;
        }
        if (!old->pinned && (!streq_ptr(old->s.value, value) || old->s.bound != HT_BOUND_EXACT))
                strv_pushf(&r->warnings, "sysctl %s: --set %s replaces %s%s from %s", key, value,
                           ht_setting_value_text(&old->s), ht_bound_suffix(old->s.bound), old->s.source);
        ht_setting_done(&old->s);
        r->settings_gen++;   /* setting.* reads the new value */
        old->s = s;
        old->pinned = true;
        old->origin = -1;
        old->file = "--set";
        old->line = 0;
}
