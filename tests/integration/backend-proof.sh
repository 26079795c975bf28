#!/bin/sh
# Issue 36's proof that a backend is one file plus one backends.def line:
# copy the source tree, add a trivial backend (backend-proof.c, which
# writes its settings as KEY=VALUE lines into /etc/hosttune-proof.conf)
# and its line HT_BACKEND(PROOF, proof) to backends.def, nothing else;
# build the binary (configure --enable-werror, make hosttune), and on a
# copy of a fixture host plan, apply, verify and roll back a profile that
# uses it, checking the file it writes and its removal. Any other edit a
# new backend needs (a source list, a name list, a switch over the
# backends) makes the build or one of the checks below fail.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v git >/dev/null 2>&1 && git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
        skip_all "not a git work tree: the source tree is copied from git ls-files"
for tool in autoreconf automake tar; do
        command -v "$tool" >/dev/null 2>&1 || skip_all "$tool is not installed"
done
HOSTTUNE_INSECURE_PROFILES=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES LC_ALL

# --- the copy: the tracked files as they are in the work tree ----------------
src=$tmp/src
mkdir "$src"
(cd "$top_srcdir" && git ls-files -z --cached | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh |
        tar -cf - -T -) | tar -C "$src" -xf - || { echo "Bail out! cannot copy the source tree"; exit 99; }

# --- the new backend: one file ------------------------------------------------
cat >"$src/src/backends/backend-proof.c" <<'BACKEND'
/* proof: settings as KEY=VALUE lines of hosttune's own file. */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "backend-common.h"
#include "backend.h"
#include "profile-section.h"
#include "util.h"

#define PROOF_FILE "/etc/hosttune-proof.conf"

static int proof_plan(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        (void)f;
        _cleanup_free_ char *old = NULL;
        size_t old_len = 0;
        int k = ht_read_optional(c, PROOF_FILE, &old, &old_len);
        if (k < 0) {
                ht_plan_error(plan, "cannot read %s: %s", PROOF_FILE, ht_strerror(-k));
                return 0;
        }
        strbuf body = {0};
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_PROOF)
                        continue;
                _cleanup_free_ char *line = xasprintf("%s=%s\n", s->key, s->value);
                ht_change *ch = ht_plan_add_change(plan, HT_BK_PROOF, s->key, NULL, s->value);
                ch->source = xstrdup(s->source);
                if (old && strstr(old, line))
                        ch->outcome = HT_OUTCOME_KEPT;
                strbuf_appendf(&body, "%s", line);
        }
        _cleanup_free_ char *lines = strbuf_steal(&body);
        _cleanup_free_ char *header = ht_managed_header(plan->profile, "#");
        _cleanup_free_ char *content = isempty(lines) ? NULL : xasprintf("%s%s", header, lines);
        ht_plan_own_file(plan, HT_BK_PROOF, PROOF_FILE, old, old_len, content);
        return 0;
}

static int proof_parse_section(ht_pfile *p, const config_setting_t *s, char **ret_error) {
        static const char *const list_keys[] = {"key", "value", NULL};
        return ht_cfg_keyed_section(p, s, HT_BK_PROOF, '.', NULL, list_keys, ret_error);
}

static int proof_canon_key(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *s, char **ret_value,
                           char **ret_error) {
        (void)ret_value;
        return ht_entry_eval_string(r, &e->key, e, what, "key", &s->key, ret_error);
}

static const ht_backend_field proof_rule_fields[] = {
        {.name = "key", .offset = offsetof(ht_entry, key)},
        {0},
};

static const char *const proof_files[] = {PROOF_FILE, NULL};

const ht_backend ht_backend_proof = {
        .id = HT_BK_PROOF,
        .name = "proof",
        .files = proof_files,
        .rule_fields = proof_rule_fields,
        .parse_section = proof_parse_section,
        .canon_key = proof_canon_key,
        .plan = proof_plan,
};
BACKEND
# --- and one line ------------------------------------------------------------
echo 'HT_BACKEND(PROOF, proof)' >>"$src/src/backends/backends.def"
# --- build the binary: -O1, quicker than the default -O2 (-O0 would need
# -lm for rint, which gcc expands inline from -O1 on)
if (cd "$src" && ./autogen.sh && ./configure --enable-werror CFLAGS='-O1 -g0' && make -j2 hosttune) \
        >"$tmp/build.log" 2>&1; then ok "the copy with the new backend builds (--enable-werror)"
else
        not_ok "the copy with the new backend does not build: $(grep -m3 -E 'error|Error|No rule' "$tmp/build.log")"
        finish
fi
NEW=$src/hosttune

# --- plan, apply, verify, rollback on a fixture copy -------------------------
mkdir "$tmp/profiles"
printf '%s\n' 'summary = "the proof backend";' 'proof = { greeting = "hello"; answer = 42; };' \
        >"$tmp/profiles/proof.profile"
h=$(copy_host debian12-kvm); scratch "$h"
cp -a "$h" "$tmp/before"
pht() { # EXPECTED DESCRIPTION ARGS...
        want=$1 desc=$2
        shift 2
        "$NEW" --root "$h" --profile-path "$tmp/profiles" --rules-path "$top_srcdir/rules" --color=never "$@" \
                >"$tmp/out" 2>&1
        rc=$?
        if [ "$rc" = "$want" ]; then ok "$desc (exit $rc)"; else
                not_ok "$desc: exit $rc, expected $want: $(head -c 800 "$tmp/out")"; fi
}
pht 2 "plan: the profile's proof settings change the host" plan proof
check_contains "plan names the new backend's file" "/etc/hosttune-proof.conf" "$tmp/out"
check_contains "... and its settings under the backend's name" "greeting: (unset) → hello" "$tmp/out"
# the schemas take the new name from backends.def too
if ! (cd "$src" && make schemas/backend.schema.json) >"$tmp/schema.log" 2>&1; then
        not_ok "the backend names' schema is not made from backends.def: $(tail -c 300 "$tmp/schema.log")"
elif python3 -c 'from jsonschema import Draft202012Validator' 2>/dev/null; then
        pht 2 "plan --json" --json plan proof
        if top_builddir=$src python3 "$top_srcdir/tests/json/validate.py" "$src/schemas" --doc plan "$tmp/out" \
                >"$tmp/v" 2>&1; then ok "plan --json with the new backend is valid against plan.schema.json"
        else not_ok "plan --json against the schema: $(head -c 600 "$tmp/v")"; fi
else
        skip "plan --json against the schema" "python3-jsonschema is not installed"
fi
pht 0 "apply" apply proof
check "apply wrote the file: both settings, in profile order" "greeting=hello
answer=42" "$(grep -v '^#' "$h/etc/hosttune-proof.conf" 2>&1)"
check_contains "... as hosttune's own file" "Managed by hosttune" "$h/etc/hosttune-proof.conf"
pht 0 "plan after apply: nothing to do" plan proof
pht 0 "verify" verify
check_contains "verify judges the new backend's settings" "proof greeting" "$tmp/out"
cp "$h/etc/hosttune-proof.conf" "$tmp/applied"
echo 'greeting=bye' >"$h/etc/hosttune-proof.conf"
pht 2 "verify: the file changed behind hosttune's back is drift" verify
check_contains "... of the setting" "DRIFT    proof greeting" "$tmp/out"
cp "$tmp/applied" "$h/etc/hosttune-proof.conf"
pht 0 "rollback" rollback
check "rollback removed the file" "absent" "$([ -e "$h/etc/hosttune-proof.conf" ] && echo present || echo absent)"
if d=$(diff -r --no-dereference -x hosttune -x hosttune.lock "$tmp/before" "$h" 2>&1); then ok "rollback: the tree is as before"; else
        not_ok "rollback: $(printf '%s' "$d" | head -c 600)"; fi
finish
