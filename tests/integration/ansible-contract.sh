#!/bin/sh
# The Ansible module against fake-hosttune, a test double of hosttune's
# JSON contract: tests the module's own logic (exit codes, check and diff
# mode, --set, failures, warnings, rollback) independently of the engine.
# ansible.sh runs the same playbook against the real binary; the second
# play here covers what the real engine cannot be made to do on demand:
# drift, a missing binary, rollback in check mode.
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
fake=$top_srcdir/tests/integration/fake-hosttune
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-ansible-contract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/profiles"
echo 'summary = "test profile for the fake binary";' >"$tmp/profiles/test.profile"

# The module's RETURN documents every key it returns (exit_json, fail_json,
# the result dicts), and nothing it does not return.
module=$top_srcdir/packaging/ansible/ansible_collections/hosttune/hosttune/plugins/modules/hosttune.py
# TAP: these checks, ansible.sh's, then the playbook's; the plan counts all.
pre=0 pre_failed=0
pre_check() { pre=$((pre + 1)); if [ "$1" = 0 ]; then echo "ok $pre - $2"; else echo "not ok $pre - $2"; pre_failed=1; fi; }
rc=0
python3 - "$module" >"$tmp/return-check" 2>&1 <<'PY' || rc=$?
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
consts = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
          for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Constant)}
try:
    import yaml
except ImportError:
    print("SKIP no PyYAML")
    sys.exit(0)
documented = set(yaml.safe_load(consts["RETURN"]))
# keywords of exit_json/fail_json, of dict() results, and result[...]/extra[...] keys;
# main()'s argument_spec dicts are options, not results
specs = set()
for n in ast.walk(tree):
    if isinstance(n, ast.keyword) and n.arg == "argument_spec":
        specs |= {id(x) for x in ast.walk(n.value)}
returned = set()
for n in ast.walk(tree):
    if isinstance(n, ast.Call) and id(n) not in specs:
        f = n.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name in ("exit_json", "fail_json", "dict"):
            returned |= {k.arg for k in n.keywords if k.arg}
    if isinstance(n, ast.Assign):
        for t in n.targets:
            if isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant) and \
                    isinstance(t.value, ast.Name) and t.value.id in ("result", "extra"):
                returned.add(t.slice.value)
returned -= {"argument_spec", "required_if", "supports_check_mode"}
missing, extra = sorted(returned - documented), sorted(documented - returned)
if missing or extra:
    print("RETURN does not match the module: undocumented %s, documented but never returned %s"
          % (missing, extra))
    sys.exit(1)
print("every returned key: %s" % " ".join(sorted(returned)))
PY
if grep -q '^SKIP' "$tmp/return-check"; then
        pre=$((pre + 1)); echo "ok $pre - RETURN documents every key the module returns # SKIP no PyYAML"
else
        pre_check "$rc" "RETURN documents every key the module returns: $(tr '\n' ' ' <"$tmp/return-check")"
fi
if command -v ansible-doc >/dev/null 2>&1; then
        # ansible-doc parses DOCUMENTATION, EXAMPLES and RETURN (a UTF-8 locale: see ansible.sh)
        LC_ALL=C.UTF-8 HOME="$tmp" ANSIBLE_COLLECTIONS_PATH="$top_srcdir/packaging/ansible" \
                ansible-doc hosttune.hosttune.hosttune >"$tmp/doc" 2>&1 && rc=0 || rc=$?
        pre_check "$rc" "ansible-doc renders the module's documentation: $(head -c 300 "$tmp/doc" | tr '\n' ' ')"
        grep -q 'rollback_txid' "$tmp/doc" && rc=0 || rc=$?
        pre_check "$rc" "ansible-doc shows rollback_txid"
        # a nested key, from RETURN's contains
        sed -n '/^- changes$/,/^- [a-z]/p' "$tmp/doc" | grep -q '^ *- bound_value$' && rc=0 || rc=$?
        pre_check "$rc" "ansible-doc shows the keys changes[] contains (bound_value)"
        # the fleet report role's argument spec
        LC_ALL=C.UTF-8 HOME="$tmp" ANSIBLE_COLLECTIONS_PATH="$top_srcdir/packaging/ansible" \
                ansible-doc -t role hosttune.hosttune.fleet_report >"$tmp/role-doc" 2>&1 &&
                grep -q '^- fleet_report_root$' "$tmp/role-doc" && rc=0 || rc=$?
        pre_check "$rc" "ansible-doc renders the fleet_report role's options: $(head -c 200 "$tmp/role-doc" | tr '\n' ' ')"
fi

# ansible-test's validate-modules, the sanity test of Ansible's own and
# Galaxy's collections: DOCUMENTATION and RETURN against their schemas
# (every return value with description, returned, type; contains well
# formed), and the argument_spec against DOCUMENTATION. Run directly from
# the ansible-test that ansible-core ships, since `ansible-test sanity`
# builds a venv with pip from the network. One finding is accepted:
# missing-gplv3-license, since the module is GPL-2.0-or-later as hosttune
# is (its SPDX line), not the GPLv3 of Ansible's own modules' header.
atest=$(command -v ansible-test 2>/dev/null || :)
atpy=${atest:+$(sed -n '1s/^#! *//p' "$atest")}
vm=${atpy:+$("$atpy" -c 'import os, ansible_test; print(os.path.join(os.path.dirname(ansible_test.__file__), "_util", "controller", "sanity", "validate-modules"))' 2>/dev/null)}
if [ -z "$vm" ] || [ ! -f "$vm/validate.py" ]; then
        pre=$((pre + 1)); echo "ok $pre - validate-modules accepts the module # SKIP ansible-test not installed (Debian: ansible-core)"
elif ! "$atpy" -c 'import voluptuous' 2>/dev/null; then
        pre=$((pre + 1)); echo "ok $pre - validate-modules accepts the module # SKIP voluptuous missing (Debian: apt-get install python3-voluptuous)"
else
        coll=$top_srcdir/packaging/ansible/ansible_collections/hosttune/hosttune
        version=$(sed -n 's/^version: //p' "$coll/galaxy.yml")
        (cd "$coll" && env HOME="$tmp" LC_ALL=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 \
                ANSIBLE_COLLECTIONS_PATH="$top_srcdir/packaging/ansible" PYTHONPATH="$vm" \
                "$atpy" "$vm/validate.py" --collection ansible_collections/hosttune/hosttune \
                --collection-version "$version" --arg-spec --format plain plugins/modules/hosttune.py) \
                >"$tmp/vm" 2>&1 && rc=0 || rc=$?
        grep -v '^plugins/modules/hosttune.py:0:0: Emissing-gplv3-license ' "$tmp/vm" >"$tmp/vm.rest" || :
        [ ! -s "$tmp/vm.rest" ] && rc=0 || rc=1
        pre_check "$rc" "validate-modules accepts the module (missing-gplv3-license aside): $(head -c 600 "$tmp/vm.rest" | tr '\n' ' ')"
        grep -q 'Emissing-gplv3-license' "$tmp/vm" && rc=0 || rc=$?
        pre_check "$rc" "validate-modules ran (it reports the accepted license finding)"
fi

# TAP: ansible.sh's checks, then this script's; the plan counts both.
nested_rc=0
HT_TAP_NESTED=$tmp/nested-count HOSTTUNE=$fake HT_ANSIBLE_PROFILE=test HT_ANSIBLE_PROFILE_DIR="$tmp/profiles" \
        sh "$top_srcdir/tests/integration/ansible.sh" || nested_rc=$?
# ansible.sh has checked that ansible is usable (it printed the skip and
# exited 77 otherwise).
[ "$nested_rc" != 77 ] || exit 0
nested=$(cat "$tmp/nested-count" 2>/dev/null || echo 0)
export HOME="$tmp/home" PYTHONDONTWRITEBYTECODE=1 ANSIBLE_NOCOLOR=1 \
        ANSIBLE_CONFIG="$tmp/ansible.cfg"
mkdir -p "$HOME" "$tmp/root/etc/sysctl.d" && : >"$ANSIBLE_CONFIG"
cat >"$tmp/play.yml" <<'PLAY'
---
- hosts: localhost
  gather_facts: false
  module_defaults:
    hosttune.hosttune.hosttune:
      binary: "{{ ht_binary }}"
      root: "{{ ht_root }}"
      profile_path: ["{{ ht_profiles }}"]
  tasks:
    - name: apply
      hosttune.hosttune.hosttune:
        profile: test
        params: {flag: true, size: 18G, count: 3}
      register: applied
    - name: tamper
      ansible.builtin.copy:
        dest: "{{ ht_root }}/etc/sysctl.d/90-hosttune.conf"
        content: "vm.swappiness = 60\n"
    - name: verify drift
      hosttune.hosttune.hosttune:
        state: verified
      ignore_errors: true
    - name: rollback in check mode
      hosttune.hosttune.hosttune:
        state: rolled_back
      check_mode: true
    - name: missing binary
      hosttune.hosttune.hosttune:
        profile: test
        binary: "{{ ht_root }}/no/such/hosttune"
      ignore_errors: true
    - name: option-like profile name
      hosttune.hosttune.hosttune:
        profile: --root=/
      ignore_errors: true
    - name: multi-line parameter
      hosttune.hosttune.hosttune:
        profile: test
        params: {bad: "a\nb"}
      ignore_errors: true
    - name: no profile
      hosttune.hosttune.hosttune:
        state: applied
      ignore_errors: true
    - name: error object only
      hosttune.hosttune.hosttune:
        profile: error-object
      ignore_errors: true
PLAY
printf 'localhost ansible_connection=local ansible_python_interpreter="{{ ansible_playbook_python }}"\n' >"$tmp/inventory"
LC_ALL=C.UTF-8 ANSIBLE_COLLECTIONS_PATH="$top_srcdir/packaging/ansible" ANSIBLE_STDOUT_CALLBACK=json \
        ansible-playbook -i "$tmp/inventory" "$tmp/play.yml" -e ht_binary="$fake" \
        -e ht_root="$tmp/root" -e ht_profiles="$tmp/profiles" >"$tmp/out.json" 2>"$tmp/err" || :

own_rc=0
python3 - "$tmp/out.json" "$tmp/count" <<'PY' || own_rc=$?
import json, sys
count_file = sys.argv[2]
failures = []
checks = 0
def check(cond, what):
    global checks
    checks += 1
    open(count_file, "w").write("%d\n" % checks)
    print(("ok - " if cond else "not ok - ") + what.replace("\n", " "))
    if not cond:
        failures.append(what)
try:
    data = json.load(open(sys.argv[1]))
except ValueError:
    check(False, "ansible-playbook printed JSON")
    sys.exit(1)
res = {t["task"]["name"]: t["hosts"]["localhost"] for p in data["plays"] for t in p["tasks"]}

a = res["apply"]
check(a.get("changed") is True, "apply with params: %s" % a.get("msg"))
check(a.get("cmd", [])[-6:] == ["--set", "count=3", "--set", "flag=true", "--set", "size=18G"],
      "params sorted, booleans lowercase: %s" % a.get("cmd"))
v = res["verify drift"]
check(v.get("failed") is True and "drift" in v.get("msg", ""), "drift fails verify: %r" % v.get("msg"))
check(v.get("status") == "drift" and v.get("checks") and v["checks"][0]["status"] == "drift",
      "drift returns status and checks")
check("sysctl vm.swappiness" in v.get("msg", ""), "drift message names the check")
r = res["rollback in check mode"]
check(r.get("skipped") is True and not r.get("changed"), "rollback skipped in check mode")
m = res["missing binary"]
check(m.get("failed") is True and "not an executable" in m.get("msg", ""), "missing binary: %r" % m.get("msg"))
o = res["option-like profile name"]
check(o.get("failed") is True and "invalid profile name" in o.get("msg", ""), "option-like profile refused: %r" % o.get("msg"))
b = res["multi-line parameter"]
check(b.get("failed") is True and "single line" in b.get("msg", ""), "multi-line value refused: %r" % b.get("msg"))
n = res["no profile"]
check(n.get("failed") is True and "profile" in n.get("msg", ""), "applied without profile refused: %r" % n.get("msg"))
e = res["error object only"]
check(e.get("failed") is True and e.get("msg") == "hosttune: the error object's message"
      and (e.get("hosttune") or {}).get("exit_code") == 1,
      "a failure told only by the JSON error object: its message is the task's: %r" % e.get("msg"))
if failures:
    sys.exit("%d check(s) failed" % len(failures))
PY
[ "$own_rc" = 0 ] || { echo "# --- ansible stderr:"; sed 's/^/# /' "$tmp/err"; }
echo "1..$((pre + nested + $(cat "$tmp/count" 2>/dev/null || echo 0)))"
[ "$pre_failed" = 0 ] && [ "$nested_rc" = 0 ] && [ "$own_rc" = 0 ]
