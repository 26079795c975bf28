#!/bin/sh
# Bounds (hosttune.profile(5), BOUNDS) on fixture copies whose /proc/sys
# values lie above, below and across the shipped minimums: plan, apply and
# an empty re-plan, verify after the host is raised further or lowered,
# and the boot-time prediction with a later sysctl.d file. The expected
# values come from the profiles' sources (Oracle's table, Elastic's page)
# and from the values written into the copies here.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"

# setv ROOT KEY VALUE: the running value of a fixture copy (KEY dotted)
setv() { printf '%s\n' "$3" >"$1/proc/sys/$(printf '%s' "$2" | tr . /)"; }
getv() { cat "$1/proc/sys/$(printf '%s' "$2" | tr . /)"; }
# change FILE KEY FIELD: FIELD of the plan's change for sysctl KEY ("" when none)
change() { jq -r --arg k "$2" "[.changes[] | select(.backend == \"sysctl\" and .key == \$k)][0].$3 // \"\"" "$1"; }
# dropin FILE: the planned sysctl drop-in (the file's "after")
dropin() { jq -r '.files[] | select(.path == "/etc/sysctl.d/90-hosttune.conf") | .after' "$1"; }
status_of() { jq -r --arg k "$2" '.checks[] | select(.key == $k) | .status' "$1"; }
TAB=$(printf '\t')

# --- Oracle Linux 8: the kernel's own values are above Oracle's minimums -----
ol8() {
        h=$(prepare_host ol8-bls); scratch "$h"
        setv "$h" fs.file-max 9223372036854775807
        setv "$h" kernel.shmall 18446744073692774399
        setv "$h" kernel.sem "32000${TAB}1024000000${TAB}500${TAB}32000"
}
ol8
htrun 2 "OL8: plan oracle" "$h" --json plan oracle
cp "$tmp/out" "$tmp/ol8.json"
for k in fs.file-max kernel.shmall kernel.sem; do
        check "OL8: $k kept, not lowered" "kept" "$(change "$tmp/ol8.json" $k outcome)"
        check "OL8: $k carries its bound" "at-least" "$(change "$tmp/ol8.json" $k bound)"
done
check "OL8: fs.file-max bound value (Oracle's table)" "6815744" "$(change "$tmp/ol8.json" fs.file-max bound_value)"
check "OL8: kernel.sem bound value (Oracle's table)" "250 32000 100 128" "$(change "$tmp/ol8.json" kernel.sem bound_value)"
check "OL8: no change lowers a value" "0" \
        "$(jq '[.changes[] | select(.outcome == "change" and .backend == "sysctl" and (.bound == "at-least") and ((.desired | tonumber? // 0) < (.current | tonumber? // 0)))] | length' "$tmp/ol8.json")"
check "OL8: the port range's two ends are minimums" "at-least" "$(change "$tmp/ol8.json" net.ipv4.ip_local_port_range bound)"
dropin "$tmp/ol8.json" >"$tmp/dropin"
# nothing persists them: the drop-in holds the host's own values, so a
# reboot does not lower them either
check_contains "OL8: drop-in keeps fs.file-max at boot" "fs.file-max = 9223372036854775807" "$tmp/dropin"
check_contains "OL8: drop-in keeps kernel.sem at boot" "kernel.sem = 32000 1024000000 500 32000" "$tmp/dropin"
check_contains "OL8: drop-in keeps kernel.shmall at boot" "kernel.shmall = 18446744073692774399" "$tmp/dropin"
check_contains "OL8: drop-in raises fs.aio-max-nr (65536 in the fixture)" "fs.aio-max-nr = 1048576" "$tmp/dropin"
htrun 2 "OL8: plan oracle (text)" "$h" --color=never plan oracle
check_contains "OL8: text says why fs.file-max is kept" "fs.file-max: 9223372036854775807 kept (at least 6815744)" "$tmp/out"
check_contains "OL8: text says why kernel.sem is kept" \
        "kernel.sem: 32000 1024000000 500 32000 kept (at least 250 32000 100 128)" "$tmp/out"
check_contains "OL8: text says why kernel.shmall is kept" \
        "kernel.shmall: 18446744073692774399 kept (at least 1073741824)" "$tmp/out"
htrun 0 "OL8: show oracle" "$h" --color=never show oracle
check_contains "show: the bound of fs.file-max" "fs.file-max = 6815744 (at least)" "$tmp/out"
check_contains "show: the port range's ends are minimums" "net.ipv4.ip_local_port_range = 9000 65500 (at least)" "$tmp/out"
check_contains "show: the hard stack limit is a range (Oracle: at least 10240 KB, at most 32768 KB)" \
        "limits   oracle hard stack = 10240..32768 (range)" "$tmp/out"
htrun 0 "OL8: show oracle --json" "$h" --json show oracle
check "show --json: bound of kernel.sem" "at-least" \
        "$(jq -r '.settings[] | select(.key == "kernel.sem") | .bound' "$tmp/out")"
check "show --json: vm.swappiness is exact on purpose" "exact" \
        "$(jq -r '.settings[] | select(.key == "vm.swappiness") | .bound' "$tmp/out")"

# --- kernel.sem field by field: below and across --------------------------------
setv "$h" kernel.sem "250${TAB}32000${TAB}32${TAB}128"
ht "$h" --json plan oracle
check "sem below in SEMOPM: only that field raised" "250 32000 100 128" "$(change "$tmp/out" kernel.sem desired)"
check "sem below: a runtime change" "change true" "$(change "$tmp/out" kernel.sem outcome) $(change "$tmp/out" kernel.sem runtime)"
setv "$h" kernel.sem "32000${TAB}1024${TAB}500${TAB}64"
ht "$h" --json plan oracle
check "sem across: SEMMNS and SEMMNI raised, the rest kept" "32000 32000 500 128" "$(change "$tmp/out" kernel.sem desired)"
dropin "$tmp/out" >"$tmp/dropin"
check_contains "sem across: persisted as written at runtime" "kernel.sem = 32000 32000 500 128" "$tmp/dropin"

# --- the port range: each end at least Oracle's (issue 33: the low end "9000 or
# higher", the high end at least 65500); below, across, above ----------------------
for c in "32768 60999|32768 65500" "9000 60999|9000 65500" "1024 60999|9000 65500" "32768 65535|32768 65535" \
        "1024 65535|9000 65535" "8999 65499|9000 65500"; do
        setv "$h" net.ipv4.ip_local_port_range "$(printf '%s' "${c%|*}" | tr ' ' '\t')"
        ht "$h" --json plan oracle
        check "port range ${c%|*} becomes ${c#*|}" "${c#*|}" "$(change "$tmp/out" net.ipv4.ip_local_port_range desired)"
done
setv "$h" net.ipv4.ip_local_port_range "10000${TAB}65535"
ht "$h" --json plan oracle
check "port range 10000 65535 (both ends above) is kept" "kept" "$(change "$tmp/out" net.ipv4.ip_local_port_range outcome)"
# Debian's 1024 65535 used to be kept as "covering" 9000 65500: its low end
# is raised now, its high end kept
setv "$h" net.ipv4.ip_local_port_range "1024${TAB}65535"
ht "$h" --json plan oracle
check "port range 1024 65535: a change, not kept" "change" "$(change "$tmp/out" net.ipv4.ip_local_port_range outcome)"

# --- apply, then an empty re-plan ------------------------------------------------
ol8
setv "$h" net.ipv4.ip_local_port_range "1024${TAB}65535"
htrun 0 "OL8: apply oracle" "$h" --json apply oracle
check "apply: fs.file-max left as it was" "9223372036854775807" "$(getv "$h" fs.file-max)"
check "apply: kernel.shmall left as it was" "18446744073692774399" "$(getv "$h" kernel.shmall)"
check "apply: kernel.sem left as it was" "32000${TAB}1024000000${TAB}500${TAB}32000" "$(getv "$h" kernel.sem)"
check "apply: the port range's low end raised to 9000, its high end kept" "9000${TAB}65535" "$(getv "$h" net.ipv4.ip_local_port_range)"
check "apply: fs.aio-max-nr raised to the minimum" "1048576" "$(getv "$h" fs.aio-max-nr)"
check_contains "apply: drop-in holds the raised port range for the boot" "net.ipv4.ip_local_port_range = 9000 65535" \
        "$h/etc/sysctl.d/90-hosttune.conf"
htrun 0 "re-plan after apply: nothing to do" "$h" --json plan oracle
check "re-plan: changed false, no files" "false 0" "$(jq -r '.changed' "$tmp/out") $(jq '.files | length' "$tmp/out")"

# --- verify: raised further is fine, lowered below the bound is drift ------------
setv "$h" fs.aio-max-nr 3145728
setv "$h" net.core.rmem_max 16777216
ht "$h" --json verify
cp "$tmp/out" "$tmp/verify1.json"
check "verify: fs.aio-max-nr raised further is ok" "ok" "$(status_of "$tmp/verify1.json" fs.aio-max-nr)"
check "verify: net.core.rmem_max raised further is ok" "ok" "$(status_of "$tmp/verify1.json" net.core.rmem_max)"
check "verify: expected says the bound" "at least 1048576" \
        "$(jq -r '.checks[] | select(.key == "fs.aio-max-nr") | .expected' "$tmp/verify1.json")"
check "verify: actual is the host's value" "3145728" \
        "$(jq -r '.checks[] | select(.key == "fs.aio-max-nr") | .actual' "$tmp/verify1.json")"
check "verify: no sysctl drift" "0" \
        "$(jq '[.checks[] | select(.backend == "sysctl" and .status == "drift")] | length' "$tmp/verify1.json")"
htrun 0 "re-plan after raising further: still nothing to do" "$h" plan oracle
setv "$h" fs.aio-max-nr 65536
setv "$h" kernel.sem "250${TAB}32000${TAB}32${TAB}128"
htrun 2 "verify after lowering below the bound: drift" "$h" --json verify
check "verify: fs.aio-max-nr lowered is drift" "drift" "$(status_of "$tmp/out" fs.aio-max-nr)"
check "verify: kernel.sem's SEMOPM lowered is drift" "drift" "$(status_of "$tmp/out" kernel.sem)"
check "verify: kernel.sem expected is the bound" "at least 250 32000 100 128" \
        "$(jq -r '.checks[] | select(.key == "kernel.sem") | .expected' "$tmp/out")"
setv "$h" fs.aio-max-nr 1048576
setv "$h" kernel.sem "32000${TAB}1024000000${TAB}500${TAB}32000"
printf 'fs.aio-max-nr = 65536\n' >"$h/etc/sysctl.d/99-local.conf"
htrun 2 "verify with a later file below the bound: drift" "$h" --json verify
check "verify: overridden at boot is drift" "drift" "$(status_of "$tmp/out" fs.aio-max-nr)"
printf 'fs.aio-max-nr = 4194304\n' >"$h/etc/sysctl.d/99-local.conf"
ht "$h" --json verify
check "verify: a later file above the bound is ok" "ok" "$(status_of "$tmp/out" fs.aio-max-nr)"

# --- the boot-time prediction checks the bound, not equality ---------------------
ol8
printf 'fs.aio-max-nr = 65536\n' >"$h/etc/sysctl.d/99-local.conf"
ht "$h" --json plan oracle
check "later file below the bound: overridden" "overridden" \
        "$(jq -r '[.changes[] | select(.key == "fs.aio-max-nr" and .outcome == "overridden")][0].outcome' "$tmp/out")"
check "later file below the bound: warned" "1" \
        "$(jq '[.warnings[] | select(contains("99-local.conf:1 sets fs.aio-max-nr = 65536") and contains("not at least 1048576"))] | length' "$tmp/out")"
printf 'fs.aio-max-nr = 4194304\n' >"$h/etc/sysctl.d/99-local.conf"
ht "$h" --json plan oracle
check "later file above the bound: no warning about it" "0" \
        "$(jq '[.warnings[] | select(contains("fs.aio-max-nr"))] | length' "$tmp/out")"
check "later file above the bound: nothing overridden" "0" \
        "$(jq '[.changes[] | select(.outcome == "overridden")] | length' "$tmp/out")"
check "runtime below, later file above: raised at runtime only" "1048576" "$(change "$tmp/out" fs.aio-max-nr desired)"
dropin "$tmp/out" >"$tmp/dropin"
if grep -q '^fs.aio-max-nr' "$tmp/dropin"; then not_ok "a persisted file meets the bound: no drop-in line"
else ok "a persisted file meets the bound: no drop-in line"; fi
setv "$h" fs.aio-max-nr 4194304
ht "$h" --json plan oracle
check "runtime and a persisted file above the bound: no change at all" "" \
        "$(change "$tmp/out" fs.aio-max-nr outcome | grep -v kept)"

# --- RHEL 6 with a DBA's larger values in sysctl.conf ----------------------------
rhel6() {
        h=$(prepare_host rhel5-xen); scratch "$h"
        printf '2.6.32-754.el6.x86_64\n' >"$h/proc/sys/kernel/osrelease"
        printf 'Red Hat Enterprise Linux Server release 6.10 (Santiago)\n' >"$h/etc/redhat-release"
        mkdir -p "$h/etc/sysctl.d"
        setv "$h" fs.aio-max-nr 3145728
        setv "$h" net.core.rmem_max 16777216
}
rhel6
printf 'fs.aio-max-nr = 3145728\nnet.core.rmem_max = 16777216\n' >>"$h/etc/sysctl.conf"
ht "$h" --json plan oracle
cp "$tmp/out" "$tmp/rhel6.json"
for k in fs.aio-max-nr net.core.rmem_max; do
        check "RHEL 6: $k kept" "kept" "$(change "$tmp/rhel6.json" $k outcome)"
        check "RHEL 6: $k not overridden" "0" \
                "$(jq --arg k $k '[.changes[] | select(.key == $k and .outcome != "kept")] | length' "$tmp/rhel6.json")"
done
dropin "$tmp/rhel6.json" >"$tmp/dropin"
if grep -Eq '^(fs.aio-max-nr|net.core.rmem_max)' "$tmp/dropin"; then not_ok "RHEL 6: sysctl.conf meets both: no drop-in line"
else ok "RHEL 6: sysctl.conf meets both: no drop-in line"; fi
rhel6
ht "$h" --json plan oracle
dropin "$tmp/out" >"$tmp/dropin"
check_contains "RHEL 6, runtime only: the host's fs.aio-max-nr persisted" "fs.aio-max-nr = 3145728" "$tmp/dropin"
check_contains "RHEL 6, runtime only: the host's net.core.rmem_max persisted" "net.core.rmem_max = 16777216" "$tmp/dropin"

# --- Elasticsearch: vm.max_map_count at least 1048576 (Elastic) ------------------
h=$(prepare_host debian12-kvm); scratch "$h"
setv "$h" vm.max_map_count 1048576
ht "$h" --json plan jvm
check "Elasticsearch host at 1048576: no change" "" "$(change "$tmp/out" vm.max_map_count outcome)"
setv "$h" vm.max_map_count 2097152
ht "$h" --color=never plan jvm
check_contains "above it: kept, and says why" "vm.max_map_count: 2097152 kept (at least 1048576)" "$tmp/out"
setv "$h" vm.max_map_count 262144
ht "$h" --json plan jvm
check "at the old 262144: raised to 1048576" "262144 1048576" \
        "$(change "$tmp/out" vm.max_map_count current) $(change "$tmp/out" vm.max_map_count desired)"

# --- rules still ask for exact values --------------------------------------------
h=$(prepare_host ol8-bls); scratch "$h"
mkdir -p "$tmp/rules"
cp "$RULES"/*.rules "$tmp/rules/"
printf 'rules = ( { name = "exact-file-max"; set = { backend = "sysctl"; key = "fs.file-max"; value = 7000000; }; } );\n' \
        >"$tmp/rules/90-exact.rules"
setv "$h" fs.file-max 9223372036854775807
"$HOSTTUNE" --root "$h" --profile-path "$PROFILES" --rules-path "$tmp/rules" --json plan oracle >"$tmp/out" 2>"$tmp/err"
check "a rule's exact value is planned as it is" "change 7000000 exact" \
        "$(change "$tmp/out" fs.file-max outcome) $(change "$tmp/out" fs.file-max desired) $(change "$tmp/out" fs.file-max bound)"
finish
