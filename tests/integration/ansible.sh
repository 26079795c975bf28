#!/bin/sh
# The Ansible module (packaging/ansible) driven by the real ansible-playbook
# against localhost, with root: pointing at a copy of a fixture host:
# check mode (changed, nothing written), diff mode, a bad parameter (fails
# with hosttune's message), apply (changed, txid), verify (and the
# transaction it checked), apply again (no change), rollback (the tree is
# byte-identical to before). The JSON callback's output is parsed and
# asserted on, and every key each task returned, nested ones too, against
# the module's RETURN.
#
# Environment: HOSTTUNE (the binary; default the build's), HT_ANSIBLE_PROFILE
# (default base), HT_ANSIBLE_PROFILE_DIR (default: a copy of profiles/).
# Needs ansible-playbook and the ansible.posix collection (Debian: ansible-core
# and ansible); a TAP skip without them. Speaks TAP; HT_TAP_NESTED=FILE
# (ansible-contract.sh) leaves the plan to the caller and writes the count
# of checks to FILE, and a skip exits 77 so the caller stops too.
set -eu

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
HOSTTUNE=${HOSTTUNE:-$top_builddir/hosttune}
PROFILE=${HT_ANSIBLE_PROFILE:-base}
skip_all() {
        echo "1..0 # SKIP $1"
        [ -z "${HT_TAP_NESTED:-}" ] || exit 77
        exit 0
}

if ! command -v ansible-playbook >/dev/null 2>&1; then
        skip_all "ansible-playbook not installed (Debian: apt-get install ansible-core ansible)"
fi
if ! command -v python3 >/dev/null 2>&1; then
        skip_all "python3 not installed"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-ansible.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# ANSIBLE_STDOUT_CALLBACK=json is ansible.posix.json; make sure it is there.
export HOME="$tmp/home" ANSIBLE_LOCAL_TEMP="$tmp/home/.ansible/tmp" \
        ANSIBLE_REMOTE_TEMP="$tmp/home/.ansible/tmp" PYTHONDONTWRITEBYTECODE=1 \
        ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_CONFIG="$tmp/ansible.cfg"
mkdir -p "$HOME" && : >"$ANSIBLE_CONFIG"
# ansible-core refuses a locale that is not UTF-8 (make check may run
# under LC_ALL=C): its own commands get C.UTF-8, always present with glibc.
if ! LC_ALL=C.UTF-8 ansible-doc -t callback ansible.posix.json >/dev/null 2>&1; then
        skip_all "the ansible.posix json callback is missing (Debian: apt-get install ansible)"
fi

# The host: a copy of the fixture, or a minimal tree when it is not there.
fixture=$top_srcdir/tests/hosts/debian12-kvm
if [ -d "$fixture" ]; then
        cp -a "$fixture" "$tmp/root"
else
        mkdir -p "$tmp/root/proc/sys/vm" "$tmp/root/proc/sys/kernel" "$tmp/root/etc/sysctl.d" \
                "$tmp/root/etc/security/limits.d" "$tmp/root/sys/kernel/mm/transparent_hugepage" \
                "$tmp/root/var/lib" "$tmp/root/run"
        echo 60 >"$tmp/root/proc/sys/vm/swappiness"
        echo 6.1.0-18-amd64 >"$tmp/root/proc/sys/kernel/osrelease"
        echo "BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=/dev/vda1 ro quiet" >"$tmp/root/proc/cmdline"
        printf 'MemTotal:       16384000 kB\nHugePages_Total:       0\nHugePages_Free:        0\nHugepagesize:       2048 kB\n' \
                >"$tmp/root/proc/meminfo"
        printf 'ID=debian\nVERSION_ID="12"\n' >"$tmp/root/etc/os-release"
        echo "always [madvise] never" >"$tmp/root/sys/kernel/mm/transparent_hugepage/enabled"
fi

# Profiles copied so that they are root-owned and not group-writable
# whatever the checkout's permissions are (hosttune refuses others as root).
if [ -n "${HT_ANSIBLE_PROFILE_DIR:-}" ]; then
        cp -R "$HT_ANSIBLE_PROFILE_DIR" "$tmp/profiles"
else
        mkdir "$tmp/profiles"
        for f in "$top_srcdir"/profiles/*.profile; do
                [ -f "$f" ] && cp "$f" "$tmp/profiles/"
        done
fi
chmod -R go-w "$tmp/profiles"
# budget's host (issue 37): 251 GB, where a 48 GB SGA fits and 200 GB does not
if [ -d "$top_srcdir/tests/hosts/baremetal-numa" ]; then
        cp -a "$top_srcdir/tests/hosts/baremetal-numa" "$tmp/budget-root"
else
        cp -a "$tmp/root" "$tmp/budget-root"
fi

cat >"$tmp/inventory" <<EOF
localhost ansible_connection=local ansible_python_interpreter="{{ ansible_playbook_python }}"
EOF

# Every hosttune task gets the same connection parameters.
cat >"$tmp/play.yml" <<'EOF'
---
- name: hosttune module against a fixture host
  hosts: localhost
  gather_facts: false
  module_defaults:
    hosttune.hosttune.hosttune:
      binary: "{{ ht_binary }}"
      root: "{{ ht_root }}"
      state_dir: "{{ ht_state_dir }}"
      profile_path: ["{{ ht_profiles }}"]
  vars:
    # The run lock (ROOT/run/hosttune.lock) stays once made, by design: unlinking
    # a lock file races with the next run, so the snapshot leaves it out.
    snapshot_argv:
      - sh
      - -c
      - cd "$0" && find . ! -path ./run/hosttune.lock -printf '%y %m %p %l\n' | LC_ALL=C sort && find . -type f ! -path ./run/hosttune.lock -exec sha256sum {} + | LC_ALL=C sort -k2
      - "{{ ht_root }}"
  tasks:
    - name: snapshot before
      ansible.builtin.command:
        argv: "{{ snapshot_argv }}"
      changed_when: false

    - name: check mode
      hosttune.hosttune.hosttune:
        profile: "{{ ht_profile }}"
      check_mode: true

    - name: check mode with diff
      hosttune.hosttune.hosttune:
        profile: "{{ ht_profile }}"
      check_mode: true
      diff: true

    - name: unknown parameter
      hosttune.hosttune.hosttune:
        profile: "{{ ht_profile }}"
        params:
          no_such_param: 1
      check_mode: true
      ignore_errors: true

    - name: snapshot after check mode
      ansible.builtin.command:
        argv: "{{ snapshot_argv }}"
      changed_when: false

    - name: state dir after check mode
      ansible.builtin.find:
        paths: "{{ ht_state_dir }}"
        recurse: true
        file_type: any

    - name: apply
      hosttune.hosttune.hosttune:
        profile: "{{ ht_profile }}"
        state: applied
      register: first_apply

    - name: snapshot after apply
      ansible.builtin.command:
        argv: "{{ snapshot_argv }}"
      changed_when: false

    - name: verify
      hosttune.hosttune.hosttune:
        state: verified

    - name: apply again
      hosttune.hosttune.hosttune:
        profile: "{{ ht_profile }}"

    - name: check mode again
      hosttune.hosttune.hosttune:
        profile: "{{ ht_profile }}"
      check_mode: true

    - name: rollback
      hosttune.hosttune.hosttune:
        state: rolled_back
        txid: "{{ first_apply.txid }}"

    - name: snapshot after rollback
      ansible.builtin.command:
        argv: "{{ snapshot_argv }}"
      changed_when: false

    # issue 37: budget --what-if, read-only, in check mode, on a 251 GB host
    - name: budget what-if that fits
      hosttune.hosttune.hosttune:
        state: budgeted
        root: "{{ ht_budget_root }}"
        what_if: ["oracle:sga_max_size=48G"]
      check_mode: true

    - name: budget what-if that does not fit
      hosttune.hosttune.hosttune:
        state: budgeted
        root: "{{ ht_budget_root }}"
        what_if: ["oracle:sga_max_size=200G"]
      check_mode: true
      ignore_errors: true

    - name: budget what-if that is not WORKLOAD[:NAME=VALUE]
      hosttune.hosttune.hosttune:
        state: budgeted
        root: "{{ ht_budget_root }}"
        what_if: ["oracle:sga_max_size"]
      check_mode: true
      ignore_errors: true
EOF

rc=0
LC_ALL=C.UTF-8 ANSIBLE_COLLECTIONS_PATH="$top_srcdir/packaging/ansible" ANSIBLE_STDOUT_CALLBACK=json \
        ansible-playbook -i "$tmp/inventory" "$tmp/play.yml" \
        -e ht_binary="$HOSTTUNE" -e ht_root="$tmp/root" -e ht_state_dir="$tmp/state" \
        -e ht_profiles="$tmp/profiles" -e ht_profile="$PROFILE" -e ht_budget_root="$tmp/budget-root" \
        >"$tmp/out.json" 2>"$tmp/err" || rc=$?

py_rc=0
python3 - "$tmp/out.json" "$rc" "$PROFILE" "$tmp/count" \
        "$top_srcdir/packaging/ansible/ansible_collections/hosttune/hosttune/plugins/modules/hosttune.py" <<'EOF' || py_rc=$?
import ast, json, sys

path, rc, profile, count_file, module = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
failures = []
checks = 0

def check(cond, what):
    global checks
    checks += 1
    open(count_file, "w").write("%d\n" % checks)
    print(("ok - " if cond else "not ok - ") + what.replace("\n", " "))
    if not cond:
        failures.append(what)

text = open(path).read()
try:
    data = json.loads(text)
except ValueError:
    print("\n".join("# " + l for l in text[-3000:].splitlines()))
    check(False, "ansible-playbook printed JSON (rc %d)" % rc)
    sys.exit(1)

res = {}
for play in data["plays"]:
    for t in play["tasks"]:
        res[t["task"]["name"]] = t["hosts"].get("localhost", {})

def r(name):
    if name not in res:
        check(False, "task '%s' ran" % name)
        return {}
    return res[name]

def brief(x):
    return {k: x.get(k) for k in ("failed", "changed", "msg", "rc", "stderr") if k in x}

check(rc == 0, "ansible-playbook exit status 0 (got %d)" % rc)

c = r("check mode")
check(not c.get("failed") and c.get("changed") is True,
      "check mode reports changed=true: %s" % brief(c))
check("plan" in (c.get("cmd") or []), "check mode runs plan: %s" % c.get("cmd"))
check(c.get("txid") is None, "check mode has no txid")
check(isinstance(c.get("reboot_required"), bool), "check mode returns reboot_required")
check(isinstance(c.get("changes"), list) and len(c["changes"]) > 0, "check mode lists changes")

d = r("check mode with diff")
diff = d.get("diff")
check(isinstance(diff, list) and len(diff) > 0, "diff mode returns diffs: %s" % brief(d))
for e in diff or []:
    check(("before" in e and "after" in e and e.get("after_header", "").startswith("/"))
          or bool(e.get("prepared")),
          "diff entry has before/after with the path, or prepared: %s" % sorted(e))
    if "before" in e:
        check(e["before"] != e["after"], "diff entry before != after (%s)" % e.get("after_header"))
check("diff" not in c, "no diff without diff mode")

b = r("unknown parameter")
check(b.get("failed") is True, "unknown parameter fails the task: %s" % brief(b))
check("no_such_param" in (b.get("msg") or ""), "failure carries hosttune's message: %r" % b.get("msg"))
check("--set" in (b.get("cmd") or []) and "no_such_param=1" in (b.get("cmd") or []),
      "params become --set NAME=VALUE: %s" % b.get("cmd"))

before = r("snapshot before").get("stdout")
check(bool(before), "snapshot taken")
check(r("snapshot after check mode").get("stdout") == before, "check mode wrote nothing under root")
check(r("state dir after check mode").get("matched", 0) == 0, "check mode wrote nothing to the state dir")

a = r("apply")
check(not a.get("failed") and a.get("changed") is True, "apply reports changed=true: %s" % brief(a))
check("apply" in (a.get("cmd") or []), "apply runs apply")
check(isinstance(a.get("txid"), str) and a["txid"] != "", "apply returns a txid: %r" % a.get("txid"))
check(isinstance(a.get("reboot_required"), bool), "apply returns reboot_required")
check(isinstance(a.get("files"), list) and all("path" in f for f in a["files"]), "apply returns files[]")
check(isinstance(a.get("hosttune_warnings"), list), "apply returns hosttune_warnings")
check(isinstance(a.get("hosttune_skipped"), list) and
      all({"setting", "reason", "source"} <= set(s) for s in a["hosttune_skipped"]),
      "apply returns hosttune_skipped (setting, reason, source): %r" % a.get("hosttune_skipped"))
check(a.get("skipped") is not True, "the task itself is not reported skipped")
for w in a.get("hosttune_warnings") or []:
    check(w in (a.get("warnings") or []), "hosttune warning is an Ansible warning: %r" % w)
check(r("snapshot after apply").get("stdout") != before, "apply changed the tree")

v = r("verify")
check(not v.get("failed") and v.get("changed") is False, "verify passes without a change: %s" % brief(v))
check(v.get("status") in ("ok", "reboot-pending"), "verify status ok or reboot-pending: %r" % v.get("status"))
check(v.get("reboot_pending") == (v.get("status") == "reboot-pending"), "reboot_pending matches the status")
check(v.get("applied") is True and v.get("txid") == a.get("txid") and v.get("profile") == profile,
      "verify returns the transaction it checked (the apply's): %r" %
      {k: v.get(k) for k in ("applied", "txid", "profile")})
check(isinstance(v.get("applied_at"), str) and isinstance(v.get("rebooted_since_apply"), bool),
      "verify returns applied_at and rebooted_since_apply")

a2 = r("apply again")
check(not a2.get("failed") and a2.get("changed") is False, "second apply reports changed=false: %s" % brief(a2))
c2 = r("check mode again")
check(not c2.get("failed") and c2.get("changed") is False, "check mode after apply: changed=false: %s" % brief(c2))

rb = r("rollback")
check(not rb.get("failed") and rb.get("changed") is True, "rollback reports changed=true: %s" % brief(rb))
check(a.get("txid") in (rb.get("txids") or []), "rollback undid the apply's transaction: %s" % rb.get("txids"))
check(r("snapshot after rollback").get("stdout") == before, "rollback restored the tree byte for byte")

bf = r("budget what-if that fits")
check(not bf.get("failed") and bf.get("changed") is False and bf.get("fits") is True,
      "budget what-if 48G: fits, no change, in check mode: %s" % brief(bf))
check("--what-if" in (bf.get("cmd") or []) and "oracle:sga_max_size=48G" in (bf.get("cmd") or []),
      "what_if becomes --what-if: %s" % bf.get("cmd"))
check(((bf.get("budget") or {}).get("what_if") or {}).get("hugepages", {}).get("planned_pages") == 24578,
      "the budget carries the what-if's HugePages (24578)")
bn = r("budget what-if that does not fit")
check(bn.get("failed") is True and bn.get("fits") is False and bn.get("changed") is False,
      "budget what-if 200G: fails, fits=false: %s" % brief(bn))
check("must give" in (bn.get("msg") or ""), "the failure says what must give: %r" % bn.get("msg"))
bb = r("budget what-if that is not WORKLOAD[:NAME=VALUE]")
check(bb.get("failed") is True and "not WORKLOAD" in (bb.get("msg") or ""),
      "a malformed what_if fails before hosttune runs: %r" % bb.get("msg"))

# Every key a task returned, nested ones too, is in the module's RETURN
# (its contains for lists of dicts); Ansible's own keys aside.
try:
    import yaml
except ImportError:
    yaml = None
if yaml is not None:
    tree = ast.parse(open(module).read())
    doc = yaml.safe_load(next(n.value.value for n in tree.body if isinstance(n, ast.Assign)
                              and any(getattr(t, "id", "") == "RETURN" for t in n.targets)))
    own = {"invocation", "failed", "changed", "warnings", "deprecations", "_ansible_no_log",
           "_ansible_verbose_always", "exception", "action", "stderr_lines", "stdout_lines"}
    for name, t in sorted(res.items()):
        if not any("hosttune" in str(x) for x in (t.get("cmd") or [])[:1]):
            continue  # the snapshot and find tasks
        undocumented = sorted(set(t) - set(doc) - own)
        check(not undocumented, "task %r: every key is in RETURN (undocumented: %s)" % (name, undocumented))
        for key, spec in sorted(doc.items()):
            sub = spec.get("contains")
            if not sub or not isinstance(t.get(key), list):
                continue
            keys = set()
            for e in t[key]:
                keys |= set(e) if isinstance(e, dict) else set()
            extra = sorted(keys - set(sub))
            check(not extra, "task %r: every key of %s[] is in RETURN's contains (undocumented: %s)"
                  % (name, key, extra))

if failures:
    sys.exit("%d check(s) failed" % len(failures))
EOF
if [ "$py_rc" != 0 ]; then
        echo "# --- ansible stderr:"
        sed 's/^/# /' "$tmp/err"
fi
count=$(cat "$tmp/count" 2>/dev/null || echo 0)
if [ -n "${HT_TAP_NESTED:-}" ]; then
        echo "$count" >"$HT_TAP_NESTED"
else
        echo "1..$count"
fi
exit "$py_rc"
