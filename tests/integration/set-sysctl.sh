#!/bin/sh
# Exact values on request (issue 15, "--set and rules can still ask for
# exact values"): --set sysctl.KEY=VALUE in show, plan, apply and verify on
# fixture copies, its refusals, and the bounds of a rule's set. Expected
# values are the fixture's (debian12-kvm: fs.file-max 9223372036854775807,
# vm.max_map_count 65530) and the ones the options name.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"

change() { jq -r --arg k "$2" "[.changes[] | select(.backend == \"sysctl\" and .key == \$k)][0].$3 // \"\"" "$1"; }
setting() { jq -r --arg k "$2" "[.settings[] | select(.key == \$k)][0].$3 // \"\"" "$1"; }
getv() { cat "$1/proc/sys/$(printf '%s' "$2" | tr . /)"; }

h=$(prepare_host debian12-kvm); scratch "$h"
check "fixture: fs.file-max above Oracle's minimum" 9223372036854775807 "$(getv "$h" fs.file-max)"

# --- show: exact, source --set, over the profile's at-least ---------------
htrun 0 "show oracle --set sysctl.fs.file-max" "$h" --json show oracle --set sysctl.fs.file-max=6815744
cp "$tmp/out" "$tmp/show.json"
check "show --json: the value named" 6815744 "$(setting "$tmp/show.json" fs.file-max value)"
check "show --json: exact, not the profile's at-least" exact "$(setting "$tmp/show.json" fs.file-max bound)"
check "show --json: source --set" "--set" "$(setting "$tmp/show.json" fs.file-max source)"
check "show --json: cites no file" null "$(jq -r '.settings[] | select(.key == "fs.file-max") | .citation' "$tmp/show.json")"
check "show --json: the other settings keep their citations" \
        "preinstall: fs.aio-max-nr is 1048576; the guide's table: 1048576 (minimum)" \
        "$(setting "$tmp/show.json" fs.aio-max-nr citation)"
check "show --json: a warning names the profile's bound it replaces" 1 \
        "$(jq '[.warnings[] | select(test("^sysctl fs.file-max: --set 6815744 replaces 6815744 \\(at least\\) from .*oracle.profile:[0-9]+$"))] | length' "$tmp/show.json")"
htrun 0 "show oracle --set sysctl.fs.file-max (text)" "$h" --color=never show oracle --set sysctl.fs.file-max=6815744
check "show text: the value with --set as its source" 1 \
        "$(grep -cE '^  sysctl   fs.file-max = 6815744 +--set$' "$tmp/out")"

# a key the profile does not have is added, exact
htrun 0 "show oracle --set sysctl.kernel.panic_on_oops (a new exact value)" "$h" --json show base \
        --set sysctl.kernel.panic_on_oops=1
check "a key the profile lacks: added" "1 exact --set" \
        "$(setting "$tmp/out" kernel.panic_on_oops value) $(setting "$tmp/out" kernel.panic_on_oops bound) $(setting "$tmp/out" kernel.panic_on_oops source)"
# blanks are collapsed as in a profile's string values; the last --set wins
htrun 0 "show --set sysctl.kernel.sem twice" "$h" --json show oracle \
        --set "sysctl.kernel.sem=1 2 3 4" --set "sysctl.kernel.sem=300   32000	100 128"
check "the last --set wins, blanks made one space" "300 32000 100 128 exact" \
        "$(setting "$tmp/out" kernel.sem value) $(setting "$tmp/out" kernel.sem bound)"

# --- plan: lowers what the user names, says --set ---------------------------
htrun 2 "plan oracle --set sysctl.fs.file-max" "$h" --json plan oracle --set sysctl.fs.file-max=6815744
check "plan: changes to the named value" "change 9223372036854775807 6815744" \
        "$(change "$tmp/out" fs.file-max outcome) $(change "$tmp/out" fs.file-max current) $(change "$tmp/out" fs.file-max desired)"
check "plan: bound exact, source --set, no bound_value" "exact --set " \
        "$(change "$tmp/out" fs.file-max bound) $(change "$tmp/out" fs.file-max source) $(change "$tmp/out" fs.file-max bound_value)"
jq -r '.files[] | select(.path == "/etc/sysctl.d/90-hosttune.conf") | .after' "$tmp/out" >"$tmp/dropin"
check_contains "plan: the drop-in persists the named value" "fs.file-max = 6815744" "$tmp/dropin"
htrun 2 "plan oracle --set sysctl.fs.file-max (text)" "$h" --color=never plan oracle --set sysctl.fs.file-max=6815744
check_contains "plan text: the change says --set" "fs.file-max: 9223372036854775807 → 6815744 (--set)" "$tmp/out"
# without it, the profile's minimum keeps the host's value
htrun 2 "plan oracle" "$h" --json plan oracle
check "plan without --set: kept (at least)" "kept at-least" \
        "$(change "$tmp/out" fs.file-max outcome) $(change "$tmp/out" fs.file-max bound)"

# --- rules read a --set value and do not change it ---------------------------
htrun 0 "show mysql, large pages, --set sysctl.vm.nr_hugepages=100" "$h" --json show mysql \
        --set innodb_buffer_pool_size=2G --set hugepages_sysv=true --set sysctl.vm.nr_hugepages=100
check "the rule's 1026 pages give way to the named 100" "100 --set" \
        "$(setting "$tmp/out" vm.nr_hugepages value) $(setting "$tmp/out" vm.nr_hugepages source)"
check "a warning says which rule would have set what" 1 \
        "$(jq '[.warnings[] | select(. == "sysctl vm.nr_hugepages: rule hugepages-from-size would set 1026; kept 100 from --set")] | length' "$tmp/out")"
# 100 pages of 2048 KB, in bytes: sized by the rules from the named value
# (a server that takes its pages with shmget needs LimitMEMLOCK: issue 33)
check "LimitMEMLOCK sized from the named page count" 209715200 \
        "$(jq -r '[.settings[] | select(.backend == "service" and .directive == "LimitMEMLOCK")][0].value' "$tmp/out")"
# the safety rules still speak: 0 invites the OOM killer
htrun 0 "show base --set sysctl.vm.swappiness=0" "$h" --json show base --set sysctl.vm.swappiness=0
check "rules still fail over a named value" 1 \
        "$(jq '[.errors[] | select(startswith("vm.swappiness=0 keeps the kernel"))] | length' "$tmp/out")"

# --- apply and verify: the named value, exactly ------------------------------
# base: nothing in it waits for a reboot, so verify can say ok
htrun 0 "apply base --set sysctl.fs.file-max" "$h" apply base --set sysctl.fs.file-max=6815744
check "apply: the running value is the named one" 6815744 "$(getv "$h" fs.file-max)"
check_contains "apply: the drop-in holds it" "fs.file-max = 6815744" "$h/etc/sysctl.d/90-hosttune.conf"
htrun 0 "plan again with the same --set: nothing to do" "$h" plan base --set sysctl.fs.file-max=6815744
htrun 0 "verify: ok" "$h" verify
# exact: a value raised later is drift, unlike a minimum's
printf '9999999\n' >"$h/proc/sys/fs/file-max"
htrun 2 "verify after fs.file-max was raised: drift (exact)" "$h" --json verify
check "verify: fs.file-max drifted" drift \
        "$(jq -r '.checks[] | select(.key == "fs.file-max") | .status' "$tmp/out")"
htrun 0 "rollback" "$h" rollback
check "rollback: the fixture's value is back" 9223372036854775807 "$(getv "$h" fs.file-max)"

# --- refusals name the option -------------------------------------------------
tree_sig "$h" >"$tmp/sig-before"
cp -a "$h" "$tmp/copy-before"
refuse() {
        desc=$1 want=$2
        shift 2
        ht "$h" show oracle "$@"
        if [ "$rc" = 1 ] && grep -qF -- "$want" "$tmp/err"; then ok "$desc"; else
                not_ok "$desc: exit $rc, stderr: $(head -c 400 "$tmp/err")"; fi
}
refuse "a key with .. is refused" "--set sysctl.vm/../../etc/x=1: 'vm/../../etc/x' is not a sysctl name" \
        --set sysctl.vm/../../etc/x=1
refuse "an empty level is refused" "--set sysctl.vm..swappiness=1: 'vm..swappiness' is not a sysctl name" \
        --set sysctl.vm..swappiness=1
refuse "an empty key is refused" "--set sysctl.=1: '' is not a sysctl name" --set sysctl.=1
refuse "a key with a space is refused" "is not a sysctl name" --set "sysctl.vm.swap piness=1"
refuse "an empty value is refused" "--set sysctl.vm.swappiness: needs a value" --set sysctl.vm.swappiness=
refuse "an expression is refused" "--set sysctl.vm.swappiness==1: a sysctl value is written as it is" \
        --set "sysctl.vm.swappiness==1"
refuse "a control character is refused" "--set sysctl.vm.swappiness: control characters are not allowed" \
        --set "sysctl.vm.swappiness=1$(printf '\001')"
tree_sig "$h" >"$tmp/sig-after"
if cmp -s "$tmp/sig-before" "$tmp/sig-after" && diff -r "$tmp/copy-before" "$h" >/dev/null; then
        ok "the refusals wrote nothing"
else
        not_ok "the refusals changed the fixture: $(diff "$tmp/sig-before" "$tmp/sig-after" | head -c 400)"
fi

# --- a rule's set: exact unless it says a bound, and it can say one --------------
mkdir -p "$tmp/p" "$tmp/r"
cat >"$tmp/p/t.profile" <<'EOF'
# vm.max_map_count: the profile's own at-least, which the rules override
sysctl = { vm = { max_map_count = { value = 262144; bound = "at-least"; }; }; };
EOF
rule() {
        printf 'rules = ( { name = "r"; set = { backend = "sysctl"; key = "vm.max_map_count"; %s }; } );\n' "$1" \
                >"$tmp/r/10-r.rules"
        "$HOSTTUNE" --root "$h" --profile-path "$tmp/p" --rules-path "$tmp/r" --json plan t >"$tmp/out" 2>"$tmp/err"
        rc=$?
}
rule 'value = 1000;'
check "a rule's value without a bound is exact: lowers 65530 to 1000" "2 change 1000 exact" \
        "$rc $(change "$tmp/out" vm.max_map_count outcome) $(change "$tmp/out" vm.max_map_count desired) $(change "$tmp/out" vm.max_map_count bound)"
rule 'value = 1000; bound = "at-least";'
check "a rule's at-least: 65530 meets 1000, kept" "kept at-least 1000" \
        "$(change "$tmp/out" vm.max_map_count outcome) $(change "$tmp/out" vm.max_map_count bound) $(change "$tmp/out" vm.max_map_count bound_value)"
rule 'value = 1048576; bound = "at-least";'
check "a rule's at-least above the host: raised" "2 change 1048576 at-least" \
        "$rc $(change "$tmp/out" vm.max_map_count outcome) $(change "$tmp/out" vm.max_map_count desired) $(change "$tmp/out" vm.max_map_count bound)"
rule 'bound = "exact";'
check "a rule's bound alone: the profile's value, now exact" "2 change 262144 exact" \
        "$rc $(change "$tmp/out" vm.max_map_count outcome) $(change "$tmp/out" vm.max_map_count desired) $(change "$tmp/out" vm.max_map_count bound)"
# and --set wins over both
"$HOSTTUNE" --root "$h" --profile-path "$tmp/p" --rules-path "$tmp/r" --json plan t --set sysctl.vm.max_map_count=70000 >"$tmp/out" 2>"$tmp/err"
check "--set over a rule's bound: exact 70000" "change 70000 exact --set" \
        "$(change "$tmp/out" vm.max_map_count outcome) $(change "$tmp/out" vm.max_map_count desired) $(change "$tmp/out" vm.max_map_count bound) $(change "$tmp/out" vm.max_map_count source)"
finish
