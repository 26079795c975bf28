#!/bin/sh
# hosttune(8) says what the program does, checked against the program:
#  - HOSTTUNE_FAULT_AFTER lists exactly the fault points of src/ (the
#    ht_fault_point("...") calls), no more, no fewer;
#  - each environment variable has one entry;
#  - every option --help prints has an entry in OPTIONS;
#  - every key the commands print with --json (run on fixture copies, after
#    an apply and a rollback) is named in JSON OUTPUT (for facts, the
#    top-level groups).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
page=$top_srcdir/man/hosttune.8

# Fault points in the code, and in the page.
cat "$top_srcdir"/src/*.c "$top_srcdir"/src/*/*.c | grep -o 'ht_fault_point("[a-z-]*")' | sed 's/.*("\(.*\)")/\1/' |
        LC_ALL=C sort -u >"$tmp/fault-src"
sed -n '/^\.\\" fault points/,/^\.\\" end fault points/p' "$page" | grep '^\.BR ' |
        sed -e 's/^\.BR //' -e 's/ .*//' -e 's/\\-/-/g' | LC_ALL=C sort -u >"$tmp/fault-man"
[ -s "$tmp/fault-src" ] || not_ok "no ht_fault_point calls found in src/"
if d=$(diff "$tmp/fault-src" "$tmp/fault-man"); then ok "HOSTTUNE_FAULT_AFTER lists the $(wc -l <"$tmp/fault-src") fault points of src/"
else not_ok "HOSTTUNE_FAULT_AFTER's steps differ from src/ (< code, > man page): $(echo "$d" | tr '\n' ' ')"; fi

# One entry per environment variable the code reads (TERM is the
# terminal's, not hosttune's).
vars=$(cat "$top_srcdir"/src/*.c "$top_srcdir"/src/*/*.c | grep -oE '(getenv|ht_env_true)\("[A-Za-z_]*"' | sed 's/.*("\(.*\)"/\1/' | grep -vx TERM | LC_ALL=C sort -u)
check "the code reads at least the known variables" yes \
        "$(for v in NO_COLOR HOSTTUNE_NO_AUDIT HOSTTUNE_FAULT_AFTER; do echo "$vars" | grep -qx "$v" || echo no; done | grep -q no && echo no || echo yes)"
for v in $vars; do
        c=$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$page" | grep -c "^\.BI\{0,1\} $v")
        check "ENVIRONMENT has one entry for $v" 1 "$c"
done
grep -q '^\.SH ENVIRONMENT' "$page" || not_ok "no ENVIRONMENT section"

# Every option of --help, in OPTIONS.
"$HOSTTUNE" --help >"$tmp/help"
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$page" | sed 's/\\-/-/g' >"$tmp/options"
grep -o -- '--[a-z][a-z-]*\|^  -[a-z]' "$tmp/help" | sed 's/^ *//' | LC_ALL=C sort -u >"$tmp/help-opts"
while IFS= read -r opt; do
        if grep -q -- "^\.[BIR]*.*$opt\( \|=\|\"\|\$\)" "$tmp/options"; then :; else
                not_ok "--help shows $opt, OPTIONS has no entry for it"; fi
done <"$tmp/help-opts"
ok "OPTIONS checked against --help ($(wc -l <"$tmp/help-opts") spellings)"

# JSON keys. The words set in bold in JSON OUTPUT are the documented keys.
sed -n '/^\.SH JSON OUTPUT/,/^\.SH ENVIRONMENT/p' "$page" | grep '^\.\(B\|BR\|RB\|SS\|TP\) ' |
        sed -e 's/^\.[A-Z]* //' -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' | tr -s ' ",();:' '\n' |
        LC_ALL=C sort -u >"$tmp/documented"
if command -v jq >/dev/null 2>&1; then
        # every key name at any depth, without the parameter names of params
        keys() { jq -r 'walk(if type == "object" then del(.params) else . end) | [paths | .[] | strings] | unique | .[]' "$1"; }
        top_keys() { jq -r 'keys[]' "$1"; }
elif command -v python3 >/dev/null 2>&1; then
        keys() {
                python3 -c 'import json, sys
def walk(o, acc):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "params": continue
            acc.add(k); walk(v, acc)
    elif isinstance(o, list):
        for v in o: walk(v, acc)
acc = set(); walk(json.load(open(sys.argv[1])), acc); print("\n".join(sorted(acc)))' "$1"
        }
        top_keys() { python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))))' "$1"; }
else
        skip "JSON OUTPUT names every key the commands print" "neither jq nor python3"
        finish
fi
host=$(prepare_host debian12-kvm); scratch "$host"
ora=$(prepare_host oracle-running); scratch "$ora"
: >"$tmp/undocumented"
# json_keys DESCRIPTION WANT-EXIT [top] ROOT ARGS...: the keys it prints are documented
json_keys() {
        desc=$1 want=$2
        shift 2
        which=keys
        if [ "$1" = top ]; then which=top_keys; shift; fi
        ht "$@" --json
        if [ "$rc" != "$want" ]; then not_ok "$desc: exit $rc, expected $want: $(head -c 400 "$tmp/err")"; return; fi
        $which "$tmp/out" | LC_ALL=C sort -u >"$tmp/keys"
        missing=$(LC_ALL=C comm -23 "$tmp/keys" "$tmp/documented" | tr '\n' ' ')
        if [ -z "$missing" ]; then ok "$desc: every key is in JSON OUTPUT"
        else not_ok "$desc: keys not in hosttune(8) JSON OUTPUT: $missing"; fi
}
json_keys "facts --json (groups)" 0 top "$host" facts
json_keys "list --json" 0 "$host" list
json_keys "show --json" 0 "$host" show mysql
json_keys "show --json, limits and a rule error" 0 "$ora" show oracle --set memory_target=8G --set sga_max_size=8G
json_keys "recommend --json" 0 "$ora" recommend
json_keys "status --json before an apply" 0 "$host" status
json_keys "plan --json" 2 "$host" plan oracle --set sga_max_size=4G
json_keys "apply --json" 0 "$host" apply oracle --set sga_max_size=4G
json_keys "apply --json again (no change)" 0 "$host" apply oracle --set sga_max_size=4G
json_keys "verify --json" 3 "$host" verify
json_keys "status --json after an apply" 0 "$host" status
json_keys "status --json --interval, processes" 0 "$ora" status --interval 1
json_keys "history --json" 0 "$host" history
json_keys "explain --json" 0 "$host" explain vm.swappiness
json_keys "rollback --json" 0 "$host" rollback
json_keys "rollback --json with nothing to roll back" 0 "$host" rollback
json_keys "history --json after a rollback" 0 "$host" history
json_keys "verify --json after a rollback" 0 "$host" verify
json_keys "status --json after a rollback" 0 "$host" status
finish
