#!/bin/sh
# Every --json document the integration tests printed (kept by
# tests/json/capture, which `make check` puts in front of hosttune) is
# valid against its schema in schemas/, checked in one python3-jsonschema
# process (Draft202012Validator). This test runs after all the others
# (tests/Makefile.inc makes its log depend on theirs) and consumes what
# they kept. It also runs every command itself, so each schema has a
# document even when run alone, and proves that the schemas are closed:
# a field they do not describe, a wrong type, a missing field, a value
# outside an enum each fail, naming the path.
. "${top_srcdir:-.}/tests/integration/lib.sh"
PY=${PYTHON3:-python3}
"$PY" -c 'from jsonschema import Draft202012Validator' 2>/dev/null ||
        skip_all "python3-jsonschema (Draft202012Validator) is not installed"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
export HOSTTUNE_NO_AUDIT=1
S=$top_srcdir/schemas
V=$top_srcdir/tests/json/validate.py
P="--profile-path $top_srcdir/profiles --rules-path $top_srcdir/rules"
captured=${HT_JSON_CAPTURE_DIR:-}
own=$tmp/own
mkdir -p "$own"
# this test's own runs go through the capture too, into its own directory
target=${HT_JSON_CAPTURE_TARGET:-$HOSTTUNE}
hj() { HT_JSON_TEST=json-schemas HT_JSON_CAPTURE_DIR=$own HT_JSON_CAPTURE_TARGET=$target \
        "$top_srcdir/tests/json/capture" --json "$@" >"$tmp/out" 2>"$tmp/err"; }

for c in facts list show plan apply verify rollback history status recommend import explain error gate; do
        [ -f "$S/$c.schema.json" ] && ok "schemas/$c.schema.json exists" || not_ok "schemas/$c.schema.json is missing"
done

h=$(copy_host debian12-kvm); scratch "$h"
hj --root "$h" facts
hj --root "$h" $P list
hj --root "$h" $P show oracle --set sga_max_size=4G
hj --root "$h" $P plan oracle --set sga_max_size=4G
hj --root "$h" $P apply oracle --set sga_max_size=4G --dry-run
hj --root "$h" $P verify # nothing applied yet: the error object
hj --root "$h" $P apply oracle --set sga_max_size=4G
cp "$tmp/out" "$tmp/apply.json"
hj --root "$h" $P verify
hj --root "$h" $P gate mariadb.service # oracle sizes no unit: no gate
hj --root "$h" $P explain vm.swappiness
hj --root "$h" $P explain fs.file-max base
hj --root "$h" $P history
hj --root "$h" $P status
hj --root "$h" $P recommend
hj --root "$h" $P rollback
hj --root "$h" $P plan nosuch-profile
hj --root "$h" bogus-command
# a usage error found before --json is read still gets the error object
HT_JSON_TEST=json-schemas HT_JSON_CAPTURE_DIR=$own HT_JSON_CAPTURE_TARGET=$target \
        "$top_srcdir/tests/json/capture" --root "$h" --set bad --json plan oracle >"$tmp/out" 2>"$tmp/err"
check "--set bad before --json: exit 1" 1 $?
check "--set bad before --json: the error object, a usage error" "true --set wants NAME=VALUE, got 'bad'" \
        "$(jq -r '"\(.usage) \(.error)"' "$tmp/out" 2>&1)"
HT_JSON_TEST=json-schemas HT_JSON_CAPTURE_DIR=$own HT_JSON_CAPTURE_TARGET=$target \
        "$top_srcdir/tests/json/capture" --root "$h" --set bad --format=json plan oracle >"$tmp/out" 2>"$tmp/err"
check "--set bad before --format=json: the error object too" "true 1" \
        "$(jq -r '"\(.usage) \(.exit_code)"' "$tmp/out" 2>&1)"
hj --root "$h" --tuned-path "$top_srcdir/tests/tuned" import tuned tt-base
kinds=$(for f in "$own"/*; do case $f in *.out) ;; *) sed -n 1p "$f" ;; esac; done | sort -u | tr '\n' ' ')
check "this test ran every command with --json" "apply bogus-command explain facts gate history import list plan recommend rollback show status verify " "$kinds"

# every document: this test's and what the others kept, in one process
"$PY" "$V" "$S" "$own" ${captured:+"$captured"} >"$tmp/v" 2>"$tmp/v.err"
vrc=$?
while IFS= read -r line; do
        case $line in
        "ok - "*) ok "${line#ok - }" ;;
        "not ok - "*) not_ok "${line#not ok - }" ;;
        "#"*) echo "$line" ;;
        esac
done <"$tmp/v"
[ $vrc = 0 ] || [ $failed -gt 0 ] || not_ok "the validator failed: $(head -c 800 "$tmp/v.err")"
check "the validator reports no error of its own" "" "$(cat "$tmp/v.err")"
# consumed: the next `make check` validates its own runs (the invalid
# ones stay in the log above, by name)
if [ -n "$captured" ] && [ -d "$captured" ]; then find "$captured" -type f -delete; fi

# The schemas are closed: a deliberately changed document fails, and says where.
at_any() { # at_any PATH[|PATH...] FILE: the validator reports an error at one of them
        _rest=$1
        while :; do
                _p=${_rest%%|*}
                grep -qF "at $_p:" "$2" && return 0
                [ "$_p" != "$_rest" ] || return 1
                _rest=${_rest#*|}
        done
}
bad() { # bad DESCRIPTION COMMAND EXPECTED-PATH[|PATH...] JQ-FILTER FILE
        jq "$4" "$5" >"$tmp/bad.json"
        if "$PY" "$V" "$S" --doc "$2" "$tmp/bad.json" >"$tmp/bad.out" 2>&1; then
                not_ok "$1: the changed document passed"
        elif at_any "$3" "$tmp/bad.out"; then ok "$1: fails at $3"
        else not_ok "$1: no error at $3: $(grep -v '^#' "$tmp/bad.out" | sed 's/^not ok - //' | tr '\n' ' ' | head -c 400)"; fi
}
grep -l '^facts$' "$own"/* | head -1 >"$tmp/m"; facts=$(cat "$tmp/m").out
for f in "$own"/*; do # verify after the apply (exit 3), not its error object
        case $f in *.out) continue ;; esac
        [ "$(sed -n 1p "$f")" = verify ] && [ "$(sed -n 2p "$f")" != 1 ] && verify=$f.out
done
bad "a new top-level field in apply" apply '$' '. + {"new_field": 1}' "$tmp/apply.json"
bad "a new field in a change of apply" apply '$.changes[0]' '.changes[0].new_field = true' "$tmp/apply.json"
bad "a new field in a check of verify" verify '$.checks[0]' '.checks[0].new_field = "x"' "$verify"
bad "a new group in facts" facts '$' '. + {"new_group": {}}' "$facts"
bad "a new field in facts.memory" facts '$.memory' '.memory.new_kb = 1' "$facts"
bad "a wrong type in facts (memory.total_kb as a string)" facts '$.memory.total_kb' '.memory.total_kb = "1"' "$facts"
bad "a status outside verify's enum" verify '$.status' '.status = "fine"' "$verify"
bad "schema_version missing" verify '$' 'del(.schema_version)' "$verify"
bad "schema_version of another major version" verify '$.schema_version' '.schema_version = "2.0"' "$verify"
bad "status missing from verify" verify '$' 'del(.status)' "$verify"
bad "apply's txid with changed false" apply '$.changed' '.changed = false' "$tmp/apply.json"
# a false subschema (else: message false): jsonschema 4.10 (Debian 12's)
# reports it at the property, later versions at the object
bad "verify's message when a profile is applied" verify '$.message|$' '. + {"message": "x"}' "$verify"
bad "null where facts never prints one (xen.dom0)" facts '$.xen.dom0' '.xen.dom0 = null' "$facts"
bad "a bootloader kind outside the enum" facts '$.bootloader.kind' '.bootloader.kind = "lilo"' "$facts"
echo "1..$n"
[ "$failed" = 0 ]
