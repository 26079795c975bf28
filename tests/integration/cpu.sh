#!/bin/sh
# The cpu backend on fixture copies: a dual-socket intel_pstate server (the
# cpu tree of tests/hosts/baremetal-numa: 8 CPUs, one policy each, active
# mode, governors "performance powersave", EPP and EPB), the same host
# with acpi-cpufreq (shared policies, the generic governors, no EPP) and
# with intel_pstate in passive mode, and debian12-kvm, a VM without
# cpufreq. Plan, apply with read-back, verify, rollback; the errors the
# kernel would give (a governor or preference it does not offer, EPP
# under the performance governor: EBUSY); an offline image, which gets
# only the tmpfiles.d file; a governor whose module is not loaded yet
# (the write loads it), and amd-pstate-epp's two governors. Expected
# values come from the fixture and the kernel's documentation, not from
# hosttune's output.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
HOSTTUNE_INSECURE_PROFILES=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES LC_ALL
mkdir -p "$tmp/profiles"
CPU=sys/devices/system/cpu
FREQ=$CPU/cpufreq
TMPFILES=etc/tmpfiles.d/hosttune-cpu.conf

profile() { # NAME BODY
        printf 'summary = "cpu test";\n%s\n' "$2" >"$tmp/profiles/$1.profile"
}
# cht ROOT ARGS...: output in $tmp/out (stdout and stderr), status in $rc
cht() {
        r=$1
        shift
        "$HOSTTUNE" --root "$r" --profile-path "$tmp/profiles" --rules-path "$top_srcdir/rules" --color=never "$@" \
                >"$tmp/out" 2>&1
        rc=$?
}
chtrun() { # EXPECTED DESCRIPTION ROOT ARGS...
        want=$1 desc=$2
        shift 2
        cht "$@"
        if [ "$rc" = "$want" ]; then ok "$desc (exit $rc)"; else
                not_ok "$desc: exit $rc, expected $want: $(head -c 800 "$tmp/out")"; fi
}
# server: a VM fixture copy with the bare-metal cpu tree (the rest of
# baremetal-numa is the block backend's)
server() {
        s=$(prepare_host debian12-kvm); scratch "$s"
        mkdir -p "$s/sys/devices/system"
        cp -a "$HOSTS/baremetal-numa/$CPU" "$s/$CPU"
        printf '%s\n' "$s"
}
# changes FILE KEY: the runtime paths planned for cpu KEY, one a line
paths() { jq -r --arg k "$2" '.changes[] | select(.backend == "cpu" and .key == $k and .outcome == "change") | .path' "$1"; }
# each ROOT FILE-BELOW-POLICY: the file's value in every policy, one line
each() { for p in "$1/$FREQ"/policy*; do cat "$p/$2"; done | sort | uniq -c | sed 's/^ *//'; }

# --- intel_pstate, active mode: the governor per policy ----------------------
profile gov 'cpu = { governor = "performance"; };'
h=$(server); scratch "$h"
cp -a "$h" "$tmp/before"
chtrun 2 "intel_pstate: plan governor performance" "$h" --json plan gov
cp "$tmp/out" "$tmp/gov.json"
expected=""
for i in 0 1 2 3 4 5 6 7; do expected="$expected/$FREQ/policy$i/scaling_governor
"; done
check "one change per policy, each with its path, in policy order" "$expected" "$(paths "$tmp/gov.json" governor)
"
check "each from the fixture's powersave" "8 powersave" \
        "$(jq -r '[.changes[] | select(.key == "governor") | .current] | "\(length) \(unique | join(" "))"' "$tmp/gov.json")"
jq -r '.files[] | select(.path == "/etc/tmpfiles.d/hosttune-cpu.conf") | .after' "$tmp/gov.json" >"$tmp/conf"
check_contains "persisted as one tmpfiles.d glob line" \
        "w /sys/devices/system/cpu/cpufreq/policy*/scaling_governor - - - - performance" "$tmp/conf"
check "nothing else persisted" 1 "$(grep -c '^w ' "$tmp/conf")"
chtrun 0 "intel_pstate: apply governor performance" "$h" apply gov
check "every policy reads performance back" "8 performance" "$(each "$h" scaling_governor)"
check "the file is written" "w /sys/devices/system/cpu/cpufreq/policy*/scaling_governor - - - - performance" \
        "$(grep '^w ' "$h/$TMPFILES")"
chtrun 0 "intel_pstate: plan after apply is empty" "$h" plan gov
chtrun 0 "intel_pstate: verify" "$h" verify
check_contains "verify: the governor holds" "ok       cpu governor: expected performance, actual performance" "$tmp/out"
echo powersave >"$h/$FREQ/policy5/scaling_governor"
chtrun 2 "intel_pstate: verify finds one policy changed behind hosttune's back" "$h" verify
check_contains "... as drift of the governor" "DRIFT    cpu governor: expected performance, actual powersave" "$tmp/out"
echo performance >"$h/$FREQ/policy5/scaling_governor"
chtrun 0 "intel_pstate: rollback" "$h" rollback
check "every policy is powersave again" "8 powersave" "$(each "$h" scaling_governor)"
rm -f "$h/run/hosttune.lock" "$tmp/before/run/hosttune.lock"
if d=$(diff -r --no-dereference -x hosttune "$tmp/before" "$h" 2>&1); then ok "rollback: the tree is as before (file removed)"; else
        not_ok "rollback: $(printf '%s' "$d" | head -c 600)"; fi
rm -rf "$h" "$tmp/before"

# an inactive policy (its CPU offline: affected_cpus empty) answers EBUSY
# to every write (cpufreq.c store()): left alone
h=$(server); scratch "$h"
echo 0 >"$h/$CPU/cpu7/online"
: >"$h/$FREQ/policy7/affected_cpus"
chtrun 2 "inactive policy: plan" "$h" --json plan gov
check "... seven changes, none for policy7" "7 0" \
        "$(jq -r '[.changes[] | select(.key == "governor")] | "\(length) \([.[] | select(.path | test("policy7"))] | length)"' "$tmp/out")"
rm -rf "$h"

# policy10 sorts after policy9, as the kernel numbers them
h=$(server); scratch "$h"
for i in 8 9 10; do cp -a "$h/$FREQ/policy7" "$h/$FREQ/policy$i"; echo "$i" >"$h/$FREQ/policy$i/affected_cpus"; done
cht "$h" --json plan gov
check "policies in number order" "policy7 policy8 policy9 policy10" \
        "$(jq -r '[.changes[] | select(.key == "governor") | .path | capture("(?<p>policy[0-9]+)").p] | .[7:] | join(" ")' "$tmp/out")"
rm -rf "$h"

# --- a governor the driver does not offer -----------------------------------
profile ondemand 'cpu = { governor = "ondemand"; };'
h=$(server); scratch "$h"
cp -a "$h" "$tmp/before"
chtrun 1 "intel_pstate active: governor ondemand is an error" "$h" plan ondemand
check_contains "... naming the policy and what it offers" \
        "governor 'ondemand' is not offered by policy0 (CPU 0) and 7 more policies (scaling_driver intel_pstate, scaling_available_governors: performance powersave)" "$tmp/out"
check_contains "... with the file and line" "$tmp/profiles/ondemand.profile:2: cpu governor = ondemand" "$tmp/out"
check_contains "... and the passive mode as the way out" "intel_pstate=passive" "$tmp/out"
chtrun 1 "... apply refuses it" "$h" apply ondemand
rm -f "$h/run/hosttune.lock" "$tmp/before/run/hosttune.lock"
if d=$(diff -r --no-dereference -x hosttune "$tmp/before" "$h" 2>&1); then ok "... nothing written"; else
        not_ok "... written: $(printf '%s' "$d" | head -c 600)"; fi
profile ondemandopt 'cpu = { governor = { value = "ondemand"; optional = true; }; };'
chtrun 0 "optional governor ondemand: skipped" "$h" plan ondemandopt
check "... on one line" 1 "$(grep -c '^skipped (optional): cpu governor = ondemand: governor .ondemand. is not offered by policy0' "$tmp/out")"
check "... and no file" "" "$(ls "$h/etc/tmpfiles.d" 2>/dev/null)"
rm -rf "$h" "$tmp/before"

# intel_pstate in passive mode registers as intel_cpufreq and offers the
# generic governors (Documentation/admin-guide/pm/intel_pstate.rst,
# "Passive Mode")
h=$(server); scratch "$h"
echo passive >"$h/$CPU/intel_pstate/status"
for p in "$h/$FREQ"/policy*; do
        echo intel_cpufreq >"$p/scaling_driver"
        echo "conservative ondemand userspace powersave performance schedutil" >"$p/scaling_available_governors"
        echo schedutil >"$p/scaling_governor"
done
chtrun 2 "intel_pstate passive: governor ondemand is planned" "$h" --json plan ondemand
check "... on every policy" 8 "$(paths "$tmp/out" governor | wc -l | tr -d ' ')"
# powersave there is the generic governor: the lowest frequency, always
# (admin-guide/pm/cpufreq.rst), not active mode's dynamic one
profile powersave 'cpu = { governor = "powersave"; };'
chtrun 2 "intel_pstate passive: governor powersave is planned" "$h" plan powersave
check_contains "... with a warning that it holds the lowest frequency" \
        "cpu governor = powersave on policy0 (CPU 0) (scaling_driver intel_cpufreq) is the generic powersave governor, which holds the lowest frequency the policy allows" \
        "$tmp/out"
check "... once, not per policy" 1 "$(grep -c 'is the generic powersave governor' "$tmp/out")"
a=$(server); scratch "$a"
chtrun 2 "intel_pstate active: governor powersave (its own, dynamic): only the boot file" "$a" plan powersave
check "... and no warning" 0 "$(grep -c 'generic powersave' "$tmp/out")"
rm -rf "$h"

# --- acpi-cpufreq: shared policies, no EPP ------------------------------------
acpi() {
        a=$(server); scratch "$a"
        rm -rf "$a/$CPU/intel_pstate" "$a/$FREQ"/policy*
        for first in 0 4; do
                p="$a/$FREQ/policy$first"
                mkdir -p "$p"
                echo "$first $((first + 1)) $((first + 2)) $((first + 3))" >"$p/affected_cpus"
                cp "$p/affected_cpus" "$p/related_cpus"
                echo acpi-cpufreq >"$p/scaling_driver"
                echo "conservative ondemand userspace powersave performance schedutil" >"$p/scaling_available_governors"
                echo schedutil >"$p/scaling_governor"
                echo "2400000 2100000 1800000 1200000" >"$p/scaling_available_frequencies"
        done
        for i in 0 1 2 3 4 5 6 7; do
                rm -f "$a/$CPU/cpu$i/cpufreq"
                ln -s "../cpufreq/policy$((i / 4 * 4))" "$a/$CPU/cpu$i/cpufreq"
        done
        printf '%s\n' "$a"
}
h=$(acpi); scratch "$h"
chtrun 2 "acpi-cpufreq: plan governor ondemand" "$h" --json plan ondemand
check "one change per policy, not per CPU" "/$FREQ/policy0/scaling_governor
/$FREQ/policy4/scaling_governor" "$(paths "$tmp/out" governor)"
check "the note names the policy's CPUs" "policy0 (CPUs 0 1 2 3)" \
        "$(jq -r '[.changes[] | select(.key == "governor")][0].note' "$tmp/out")"
profile epp 'cpu = { energy_performance_preference = "balance_power"; };'
chtrun 1 "acpi-cpufreq: EPP is an error" "$h" plan epp
check_contains "... naming the policy and the driver" \
        "policy0 (CPUs 0 1 2 3) and 1 more policy has no energy_performance_preference (scaling_driver acpi-cpufreq" "$tmp/out"
profile eppopt 'cpu = { energy_performance_preference = { value = "balance_power"; optional = true; }; };'
chtrun 0 "acpi-cpufreq: optional EPP skipped" "$h" plan eppopt
check "... on one line" 1 "$(grep -c '^skipped (optional): cpu energy_performance_preference' "$tmp/out")"
profile pct 'cpu = { min_perf_pct = 50; };'
chtrun 1 "acpi-cpufreq: min_perf_pct is an error (no intel_pstate)" "$h" plan pct
check_contains "... saying so" "no intel_pstate on this host" "$tmp/out"
chtrun 0 "acpi-cpufreq: apply" "$h" apply ondemand
check "both policies read ondemand back" "2 ondemand" "$(each "$h" scaling_governor)"
rm -rf "$h"

# --- EPP under intel_pstate ----------------------------------------------------
h=$(server); scratch "$h"
chtrun 2 "EPP balance_power under powersave: plan" "$h" --json plan epp
check "... one change per policy" 8 "$(paths "$tmp/out" energy_performance_preference | wc -l | tr -d ' ')"
check "... from the fixture's balance_performance" "balance_performance" \
        "$(jq -r '[.changes[] | select(.key == "energy_performance_preference") | .current] | unique | join(" ")' "$tmp/out")"
chtrun 0 "EPP: apply" "$h" apply epp
check "every policy reads balance_power back" "8 balance_power" "$(each "$h" energy_performance_preference)"
chtrun 0 "EPP: rollback" "$h" rollback
check "every policy is balance_performance again" "8 balance_performance" "$(each "$h" energy_performance_preference)"
profile eppbad 'cpu = { energy_performance_preference = "balanced"; };'
chtrun 1 "EPP not offered: an error" "$h" plan eppbad
check_contains "... naming the policy and the offered ones" \
        "energy_performance_preference 'balanced' is not offered by policy0 (CPU 0) and 7 more policies (energy_performance_available_preferences: default performance balance_performance balance_power power)" "$tmp/out"
# intel_pstate refuses any EPP but performance under the performance
# governor in active mode (EBUSY, intel_pstate_set_energy_pref_index)
profile eppbusy 'cpu = { governor = "performance"; energy_performance_preference = "balance_power"; };'
chtrun 1 "EPP balance_power with governor performance: an error" "$h" plan eppbusy
check_contains "... saying why" "cannot be set on policy0 (CPU 0) while its governor is performance: intel_pstate refuses" "$tmp/out"
for p in "$h/$FREQ"/policy*; do echo performance >"$p/scaling_governor"; done
chtrun 1 "EPP balance_power while the host's governor is performance: an error" "$h" plan epp
check_contains "... the same" "while its governor is performance" "$tmp/out"
for p in "$h/$FREQ"/policy*; do echo powersave >"$p/scaling_governor"; done
profile eppperf 'cpu = { governor = "performance"; energy_performance_preference = "performance"; };'
chtrun 2 "EPP performance with governor performance: plan" "$h" --json plan eppperf
check "... the governor is written on every policy" 8 "$(paths "$tmp/out" governor | wc -l | tr -d ' ')"
# the performance governor holds EPP at performance itself; a write of it
# would make the rollback restore balance_performance under the
# performance governor first, which the kernel refuses
check "... the preference is not (the governor sets it)" 0 "$(paths "$tmp/out" energy_performance_preference | wc -l | tr -d ' ')"
jq -r '.files[] | select(.path == "/etc/tmpfiles.d/hosttune-cpu.conf") | .after' "$tmp/out" | grep '^w ' >"$tmp/conf"
check "... both persisted, the governor first (tmpfiles keeps the order of glob lines)" \
        "w /sys/devices/system/cpu/cpufreq/policy*/scaling_governor - - - - performance
w /sys/devices/system/cpu/cpufreq/policy*/energy_performance_preference - - - - performance" "$(cat "$tmp/conf")"
profile order 'cpu = { energy_performance_preference = "balance_power"; governor = "powersave"; };'
for p in "$h/$FREQ"/policy*; do echo performance >"$p/scaling_governor"; done
chtrun 2 "EPP with governor powersave, written in the other order: plan" "$h" --json plan order
check "... the governor's changes come first" "governor energy_performance_preference" \
        "$(jq -r '[.changes[] | select(.backend == "cpu") | .key] | "\(.[0]) \(.[-1])"' "$tmp/out")"
rm -rf "$h"

# --- EPB per CPU ----------------------------------------------------------------
profile epb 'cpu = { energy_perf_bias = "performance"; };'
h=$(server); scratch "$h"
echo 0 >"$h/$CPU/cpu3/online"
rm -f "$h/$CPU/cpu3/power/energy_perf_bias"  # the attribute goes with the CPU (intel_epb.c)
chtrun 2 "EPB performance: plan" "$h" --json plan epb
check "... one change per online CPU, as the number it reads back as (intel_epb.c: performance is 0)" \
        "7 0" "$(jq -r '[.changes[] | select(.key == "energy_perf_bias")] | "\(length) \([.[].desired] | unique | join(" "))"' "$tmp/out")"
check "... not the offline one" "" "$(paths "$tmp/out" energy_perf_bias | grep cpu3)"
chtrun 0 "EPB: apply" "$h" apply epb
check "cpu0 reads 0 back" 0 "$(cat "$h/$CPU/cpu0/power/energy_perf_bias")"
check_contains "persisted for every CPU at boot" "w /sys/devices/system/cpu/cpu[0-9]*/power/energy_perf_bias - - - - 0" "$h/$TMPFILES"
chtrun 0 "EPB: rollback" "$h" rollback
check "cpu0 is 6 (normal) again" 6 "$(cat "$h/$CPU/cpu0/power/energy_perf_bias")"
profile epbbad 'cpu = { energy_perf_bias = "turbo"; };'
chtrun 1 "EPB turbo: an error" "$h" plan epbbad
check_contains "... with the names it takes" "'turbo' must be 0..15 or performance, balance-performance, normal, balance-power or power" "$tmp/out"
rm -rf "$h"

# --- intel_pstate min_perf_pct: a floor ------------------------------------------
h=$(server); scratch "$h"
chtrun 2 "min_perf_pct 50 over the fixture's 20: plan" "$h" --json plan pct
check "... raised" "20 50 at-least" \
        "$(jq -r '.changes[] | select(.key == "min_perf_pct") | "\(.current) \(.desired) \(.bound)"' "$tmp/out")"
echo 60 >"$h/$CPU/intel_pstate/min_perf_pct"
chtrun 2 "min_perf_pct 50 under the host's 60: kept" "$h" plan pct
check_contains "... and said so" "min_perf_pct: 60 kept (at least 50)" "$tmp/out"
check_contains "... no runtime change (the file still gives the floor at boot)" "0 runtime changes, 1 file to write" "$tmp/out"
echo 20 >"$h/$CPU/intel_pstate/min_perf_pct"
echo 40 >"$h/$CPU/intel_pstate/max_perf_pct"
chtrun 1 "min_perf_pct above max_perf_pct: an error (the kernel would clamp it)" "$h" plan pct
check_contains "... saying so" "min_perf_pct 50 is above max_perf_pct 40" "$tmp/out"
echo 100 >"$h/$CPU/intel_pstate/max_perf_pct"
echo off >"$h/$CPU/intel_pstate/status"
chtrun 1 "intel_pstate off: min_perf_pct is an error" "$h" plan pct
check_contains "... saying so" "intel_pstate is off" "$tmp/out"
rm -rf "$h"

# --- a VM without cpufreq (debian12-kvm, like most VMs) --------------------------
profile vmopt 'cpu = { governor = { value = "performance"; optional = true; }; };'
h=$(prepare_host debian12-kvm); scratch "$h"
chtrun 0 "VM: optional governor: nothing to do" "$h" plan vmopt
check "... one quiet skip line" 1 "$(grep -c '^skipped (optional): cpu governor = performance: no cpufreq on this host' "$tmp/out")"
check "... and no warning" 0 "$(grep -c '^warning:' "$tmp/out")"
chtrun 0 "VM: apply writes nothing" "$h" apply vmopt
check "... no tmpfiles.d file" "" "$(ls "$h/etc/tmpfiles.d" 2>/dev/null)"
chtrun 1 "VM: required governor is an error" "$h" plan gov
check_contains "... with the fix" "no cpufreq on this host (/sys/devices/system/cpu/cpufreq has no policy; most virtual machines have none); mark the setting optional" "$tmp/out"
rm -rf "$h"

# --- rules: set and skip name the backend and its key -----------------------------
mkdir -p "$tmp/rules"
cp "$top_srcdir"/rules/*.rules "$tmp/rules/"
cat >"$tmp/rules/80-cpu.rules" <<'EOF'
rules = (
        { name = "cpu-set"; set = { backend = "cpu"; key = "governor"; value = "performance"; optional = true; }; },
        { name = "cpu-skip"; skip = { backend = "cpu"; key = "energy_perf_bias"; }; }
);
EOF
h=$(server); scratch "$h"
"$HOSTTUNE" --root "$h" --profile-path "$tmp/profiles" --rules-path "$tmp/rules" --json plan epb >"$tmp/out" 2>"$tmp/err"
check "rules: exit" 2 "$?"
check "rules: set adds the governor, skip drops the bias" "8 0" \
        "$(jq -r '"\([.changes[] | select(.key == "governor")] | length) \([.changes[] | select(.key == "energy_perf_bias")] | length)"' "$tmp/out")"
"$HOSTTUNE" --root "$h" --profile-path "$tmp/profiles" --rules-path "$tmp/rules" --color=never show epb >"$tmp/out" 2>&1
check_contains "rules: show names the rule" "governor = performance (optional)  rule cpu-set ($tmp/rules/80-cpu.rules:2)" "$tmp/out"
printf 'rules = ( { name = "bad"; set = { backend = "cpu"; key = "govenor"; value = "performance"; }; } );\n' \
        >"$tmp/rules/81-bad.rules"
"$HOSTTUNE" --root "$h" --profile-path "$tmp/profiles" --rules-path "$tmp/rules" plan epb >"$tmp/out" 2>&1
check "rules: an unknown cpu key is an error" 1 "$?"
check_contains "... naming the rules file and line" "$tmp/rules/81-bad.rules:1: " "$tmp/out"
check_contains "... with a suggestion" "unknown cpu key 'govenor' (did you mean 'governor'?)" "$tmp/out"
rm -rf "$h"

# --- an offline image: only the tmpfiles.d file ----------------------------------
i=$(offline_image img debian12-kvm)
chtrun 2 "image: plan governor performance" "$i" --json plan gov
check "... no runtime change" 0 "$(jq '[.changes[] | select(.runtime)] | length' "$tmp/out")"
check "... the first boot's value, from no file" "null performance" \
        "$(jq -r '.changes[] | select(.key == "governor") | "\(.current) \(.desired)"' "$tmp/out")"
chtrun 0 "image: apply" "$i" apply gov
check_contains "image: the glob line, for whatever CPUs the image boots on" \
        "w /sys/devices/system/cpu/cpufreq/policy*/scaling_governor - - - - performance" "$i/$TMPFILES"
chtrun 0 "image: plan again is empty" "$i" plan gov
profile govps 'cpu = { governor = "powersave"; };'
cht "$i" --json plan govps
check "image: another value is a change from the file's" "performance powersave" \
        "$(jq -r '.changes[] | select(.key == "governor") | "\(.current) \(.desired)"' "$tmp/out")"
profile none 'sysctl = { vm = { swappiness = 10; }; };'
cht "$i" --json plan none
check "image: a profile without a cpu section removes the file" "remove" \
        "$(jq -r '.files[] | select(.path == "/etc/tmpfiles.d/hosttune-cpu.conf") | .action' "$tmp/out")"

# --- a governor not loaded yet: the write loads its module ------------------
# Debian 12's kernel (6.1.0-18-amd64, the fixture's) builds ondemand,
# conservative, powersave and userspace as modules: until one is loaded,
# scaling_available_governors does not list it, and a write of its name
# makes the kernel load cpufreq_NAME (drivers/cpufreq/cpufreq.c,
# cpufreq_parse_governor: request_module). Drivers with a policy of their
# own (intel_pstate active, amd-pstate-epp) take none of them.
MODDIR=lib/modules/6.1.0-18-amd64/kernel/drivers/cpufreq
h=$(acpi); scratch "$h"
for p in "$h/$FREQ"/policy*; do echo "performance schedutil" >"$p/scaling_available_governors"; done
chtrun 1 "acpi-cpufreq, ondemand not registered, no module: an error" "$h" plan ondemand
mkdir -p "$h/$MODDIR"
: >"$h/$MODDIR/cpufreq_ondemand.ko.xz"
chtrun 2 "acpi-cpufreq, ondemand not registered, its module installed: planned" "$h" --json plan ondemand
check "... one change per policy" "/$FREQ/policy0/scaling_governor
/$FREQ/policy4/scaling_governor" "$(paths "$tmp/out" governor)"
check "... the note says the write loads it" "policy0 (CPUs 0 1 2 3); the write loads the governor's module (cpufreq_ondemand)" \
        "$(jq -r '[.changes[] | select(.key == "governor")][0].note' "$tmp/out")"
h=$(server); scratch "$h"
for p in "$h/$FREQ"/policy*; do echo amd-pstate-epp >"$p/scaling_driver"; done
mkdir -p "$h/$MODDIR"
: >"$h/$MODDIR/cpufreq_ondemand.ko.xz"
chtrun 1 "amd-pstate-epp: ondemand is an error, module or not" "$h" plan ondemand
check_contains "... the error names the kernel options that bring the generic governors" \
        "amd-pstate in active mode (amd-pstate-epp) offers only performance and powersave, amd_pstate=passive or amd_pstate=guided on the kernel command line the generic governors" \
        "$tmp/out"

finish
