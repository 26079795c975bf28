#!/bin/sh
# ansible-lint (Debian's package) over the collection
# (packaging/ansible/ansible_collections/hosttune/hosttune, its .ansible-lint:
# the production profile, offline), on a copy, since ansible-lint writes
# beside what it lints and distcheck's source tree is read-only. Also: every
# rule .ansible-lint skips has its reason written above it; the reason given
# for galaxy[version-incorrect] holds (the collection carries hosttune's
# version); and lint does catch a bad task put into the role's copy.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v ansible-lint >/dev/null 2>&1 ||
        skip_all "ansible-lint not installed (Debian: apt-get install ansible-lint)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 not installed"
src=$top_srcdir/packaging/ansible/ansible_collections/hosttune/hosttune
C=$tmp/ansible_collections/hosttune/hosttune
mkdir -p "$tmp/ansible_collections/hosttune" "$tmp/home"
cp -R "$src" "$C"
chmod -R u+w "$C"
find "$C" -name __pycache__ -prune -exec rm -rf {} +

# lint DIR: ansible-lint in DIR; output in $tmp/lint, status in $lrc.
# ANSIBLE_COLLECTIONS_PATH names the ansible_collections directory itself:
# ansible-compat 3 (Debian 12) gives its in-process collection finder the
# dirname of that variable, so the collection's own module is resolved
# (for the fqcn rule) only this way; ansible-core takes either form.
lint() {
        lrc=0
        (cd "$1" && env HOME="$tmp/home" LC_ALL=C.UTF-8 NO_COLOR=1 \
                PYTHONDONTWRITEBYTECODE=1 ANSIBLE_COLLECTIONS_PATH="$tmp/ansible_collections" \
                ansible-lint --nocolor) >"$tmp/lint" 2>&1 || lrc=$?
}
start=$(date +%s)
lint "$C"
echo "# ansible-lint took $(($(date +%s) - start)) s"
check "ansible-lint passes (exit 0)" 0 "$lrc"
[ "$lrc" = 0 ] || sed 's/^/# /' "$tmp/lint" | tail -40
check_contains "with the production profile, no failure, no warning" \
        "Passed with production profile: 0 failure(s), 0 warning(s)" "$tmp/lint"
check "nothing else to report (no WARNING lines)" "" "$(grep 'WARNING' "$tmp/lint" | head -3)"
check "ten files or more linted (the role's and the playbook among them)" "yes" \
        "$(grep -q 'on [1-9][0-9] files' "$tmp/lint" && echo yes || tail -1 "$tmp/lint")"

# every skip_list and warn_list entry has a comment just above it (its reason)
out=$(python3 - "$C/.ansible-lint" <<'PY'
import sys, re
lines = open(sys.argv[1]).read().split("\n")
section, bad, n = None, [], 0
for i, l in enumerate(lines):
    m = re.match(r"^(\w+):", l)
    if m:
        section = m.group(1)
        continue
    m = re.match(r"^\s+-\s+(\S+)", l)
    if m and section in ("skip_list", "warn_list"):
        n += 1
        if not lines[i - 1].lstrip().startswith("#"):
            bad.append("%s %s (line %d)" % (section, m.group(1), i + 1))
print("%d %s" % (n, ", ".join(bad) or "all with a reason"))
PY
)
check "every rule skipped has its reason written above it" "1 all with a reason" "$out"
check "the one skipped: galaxy[version-incorrect]" "galaxy[version-incorrect]" \
        "$(sed -n 's/^  - //p' "$C/.ansible-lint")"
version=$(sed -n 's/^AC_INIT(\[hosttune\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
check "galaxy.yml's version is hosttune's (configure.ac), the reason for that skip" \
        "$version" "$(sed -n 's/^version: //p' "$C/galaxy.yml")"
check "meta/runtime.yml requires ansible-core 2.14 or later (tested: Debian 12's)" \
        '">=2.14.0"' "$(sed -n 's/^requires_ansible: //p' "$C/meta/runtime.yml")"

# lint can fail: a task with a short module name and a shell that
# changes nothing, put into the role's copy (after a blank line)
bad_line=$(($(wc -l <"$C/roles/fleet_report/tasks/main.yml") + 2))
cat >>"$C/roles/fleet_report/tasks/main.yml" <<'YML'

- name: Run a shell for nothing
  shell: echo hello
YML
lint "$C"
check "a bad task fails ansible-lint" "2" "$lrc"
for rule in fqcn command-instead-of-shell no-changed-when; do
        check_contains "it is found: $rule" "$rule" "$tmp/lint"
done
check "named with the file and line" "yes" \
        "$(grep -q "^roles/fleet_report/tasks/main.yml:$bad_line " "$tmp/lint" && echo yes || grep main.yml "$tmp/lint" | head -2)"
finish
