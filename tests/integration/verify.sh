#!/bin/sh
# verify after a simulated reboot: apply on a fixture copy, then change the
# fixture the way a boot would (boot id, /proc/cmdline, HugePages) — one
# good boot and the bad ones — and check status, exit codes and JSON.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq is not installed"; exit 0; }
export HOSTTUNE_NO_AUDIT=1
P="--profile-path $top_srcdir/profiles --rules-path $top_srcdir/rules"

fresh() {
        h=$(copy_host debian12-kvm); scratch "$h"
        "$HOSTTUNE" --root "$h" $P --quiet apply oracle --set sga_max_size=4G >/dev/null 2>&1 ||
                { echo "Bail out! apply failed"; exit 99; }
}
reboot_host() { # reboot_host ROOT CMDLINE-WORD HUGEPAGES
        echo "0b7e2c3a-9d4f-4e1a-8c6b-5f2d1e0a9b87" >"$1/proc/sys/kernel/random/boot_id"
        if [ -n "$2" ]; then sed -i "s/\$/ $2/" "$1/proc/cmdline"; fi
        sed -i "s/^HugePages_Total:.*/HugePages_Total:    $3/; s/^HugePages_Free:.*/HugePages_Free:     $3/" "$1/proc/meminfo"
}
status_of() { jq -r --arg k "$2" '.checks[] | select(.key == $k) | .status' "$1"; }

h=$(copy_host debian12-kvm); scratch "$h"
run 1 "verify with nothing ever applied (no journal)" --root "$h" verify
check "nothing applied: says so" \
        "hosttune: nothing to verify: no journal in $h/var/lib/hosttune, so nothing was applied there; run 'hosttune apply PROFILE' first" \
        "$(cat "$tmp/err")"

fresh
run 3 "before the reboot: pending" --root "$h" --json verify
check "status reboot-pending" "reboot-pending" "$(jq -r .status "$tmp/out")"
check "cmdline word pending" "reboot-pending" "$(status_of "$tmp/out" transparent_hugepage)"
check "HugePages pending" "reboot-pending" "$(status_of "$tmp/out" HugePages_Total)"
check "not rebooted" "false" "$(jq -r .rebooted_since_apply "$tmp/out")"
check "checks carry the contract fields" "true" \
        "$(jq '[.checks[] | has("backend") and has("key") and has("expected") and has("actual") and has("status")] | all' "$tmp/out")"

reboot_host "$h" transparent_hugepage=never 2050
run 0 "good boot: ok" --root "$h" --json verify
check "status ok" "ok" "$(jq -r .status "$tmp/out")"
check "rebooted" "true" "$(jq -r .rebooted_since_apply "$tmp/out")"
check "no failing check" "0" "$(jq '[.checks[] | select(.status != "ok")] | length' "$tmp/out")"
run 0 "text report" --root "$h" verify
check_contains "text: status line" "Status: ok" "$tmp/out"

fresh
reboot_host "$h" "" 2050
run 2 "boot without the command line word: drift" --root "$h" --json verify
check "cmdline drift" "drift" "$(status_of "$tmp/out" transparent_hugepage)"
run 2 "text report puts failures first" --root "$h" verify
check "first line after the header is the drift" "DRIFT" "$(sed -n 2p "$tmp/out" | cut -c1-5)"

fresh
reboot_host "$h" transparent_hugepage=never 100
run 2 "boot with HugePages short: drift" --root "$h" --json verify
check "HugePages drift" "drift" "$(status_of "$tmp/out" HugePages_Total)"
check "HugePages actual" "100" "$(jq -r '.checks[] | select(.key == "HugePages_Total") | .actual' "$tmp/out")"

fresh
reboot_host "$h" transparent_hugepage=never 2050
sed -i 's/^vm.swappiness = 10$/vm.swappiness = 5/' "$h/etc/sysctl.d/90-hosttune.conf"
run 2 "someone edited the sysctl drop-in: drift" --root "$h" --json verify
check "file hash drift" "drift" "$(status_of "$tmp/out" /etc/sysctl.d/90-hosttune.conf)"

fresh
reboot_host "$h" transparent_hugepage=never 2050
printf '# local\nvm.swappiness = 60\n' >"$h/etc/sysctl.d/99-local.conf"
run 2 "a later sysctl.d file overrides a value: drift" --root "$h" --json verify
check "override drift" "drift" "$(status_of "$tmp/out" vm.swappiness)"
check "hint names the file" "true" \
        "$(jq '[.checks[] | select(.key == "vm.swappiness") | .hint | test("99-local.conf:2")] | any' "$tmp/out")"

fresh
reboot_host "$h" transparent_hugepage=never 2050
echo 60 >"$h/proc/sys/vm/swappiness"
run 2 "runtime value changed since apply: drift" --root "$h" --json verify
check "runtime drift" "60" "$(jq -r '.checks[] | select(.key == "vm.swappiness") | .actual' "$tmp/out")"

# The hints name a command that works: the profile, its --set parameters
# (from the journal) and where the profile was found. The rules come from
# the root's /etc/hosttune/rules, a default place, so that the command is
# run exactly as printed.
h=$(copy_host debian12-kvm); scratch "$h"
mkdir -p "$h/etc/hosttune/rules"
cp "$top_srcdir"/rules/*.rules "$h/etc/hosttune/rules/"
"$HOSTTUNE" --root "$h" --profile-path "$top_srcdir/profiles" --quiet apply oracle --set sga_max_size=4G \
        --set "hugepage_slack=3" >/dev/null 2>&1 || { echo "Bail out! apply for the hint failed"; exit 99; }
echo 60 >"$h/proc/sys/vm/swappiness"
run 2 "runtime drift for the hint" --root "$h" --json verify
hint=$(jq -r '.checks[] | select(.key == "vm.swappiness") | .hint' "$tmp/out")
cmd=$(printf '%s\n' "$hint" | sed -n "s/.*; run '\(hosttune .*\)' again or find who changed it$/\1/p")
profiles_dir=$(cd "$top_srcdir/profiles" && pwd -P)
check "the hint names profile and parameters" \
        "hosttune --root $h --profile-path $profiles_dir apply oracle --set sga_max_size=4G --set hugepage_slack=3" "$cmd"
# the command as printed (with this build's binary for "hosttune")
(eval "set -- ${cmd#hosttune }" && HOSTTUNE_NO_AUDIT=1 "$HOSTTUNE" "$@" >"$tmp/hint.out" 2>"$tmp/hint.err")
check "the hinted apply runs" "0" "$?"
check "it was the same apply: only vm.swappiness changed back" "10" "$(cat "$h/proc/sys/vm/swappiness")"
run 3 "after the hinted apply: no drift, only the reboot pending" --root "$h" --json verify
check "after the hinted apply: swappiness ok" "ok" "$(status_of "$tmp/out" vm.swappiness)"
h=$(copy_host debian12-kvm); scratch "$h"
mkdir -p "$h/etc/hosttune/rules"
cp "$top_srcdir"/rules/*.rules "$h/etc/hosttune/rules/"
"$HOSTTUNE" --root "$h" --profile-path "$top_srcdir/profiles" --quiet apply oracle --set sga_max_size=4G \
        --set "hugepage_slack=3" >/dev/null 2>&1 || { echo "Bail out! apply for the hint failed"; exit 99; }
sed -i 's/^vm.swappiness = 10$/vm.swappiness = 5/' "$h/etc/sysctl.d/90-hosttune.conf"
run 2 "file drift for the plan hint" --root "$h" --json verify
hint=$(jq -r '.checks[] | select(.key == "/etc/sysctl.d/90-hosttune.conf") | .hint' "$tmp/out")
cmd=$(printf '%s\n' "$hint" | sed -n "s/^edited since apply; see the diff with '\(hosttune .*\)', re-apply or roll back$/\1/p")
check "the plan hint names profile and parameters" \
        "hosttune --root $h --profile-path $profiles_dir plan oracle --set sga_max_size=4G --set hugepage_slack=3" "$cmd"
(eval "set -- ${cmd#hosttune }" && "$HOSTTUNE" "$@" >"$tmp/hint.out" 2>"$tmp/hint.err")
check "the hinted plan runs and shows the change" "2" "$?"
check_contains "the hinted plan shows the edited line" "-vm.swappiness = 5" "$tmp/hint.out"
# a --set value the shell would split is quoted in the hint, and the
# hinted command gives the value back as it was
h=$(copy_host debian12-kvm); scratch "$h"
mkdir -p "$h/etc/hosttune/rules"
cp "$top_srcdir"/rules/*.rules "$h/etc/hosttune/rules/"
"$HOSTTUNE" --root "$h" --profile-path "$top_srcdir/profiles" --quiet apply oracle --set sga_max_size=4G \
        --set "workload=a b'c" >/dev/null 2>&1
check "apply with an odd --set value" "0" "$?"
echo 60 >"$h/proc/sys/vm/swappiness"
"$HOSTTUNE" --root "$h" --json verify >"$tmp/out" 2>/dev/null
hint=$(jq -r '.checks[] | select(.key == "vm.swappiness") | .hint' "$tmp/out")
printf '%s\n' "$hint" >"$tmp/hint"
check_contains "a --set value with a blank and a quote is shell-quoted" "--set 'workload=a b'\\''c'" "$tmp/hint"
cmd=$(printf '%s\n' "$hint" | sed -n "s/.*; run '\(hosttune .*\)' again or find who changed it$/\1/p")
(eval "set -- ${cmd#hosttune }" && HOSTTUNE_NO_AUDIT=1 "$HOSTTUNE" "$@" --json >"$tmp/hint.out" 2>"$tmp/hint.err")
check "the hinted apply with the quoted value runs" "0" "$?"
last=$(ls "$h/var/lib/hosttune/journal" | tail -1)
check "the value came back as it was" "a b'c" "$(jq -r .params.workload "$h/var/lib/hosttune/journal/$last/manifest.json")"

# ---- after a rollback --------------------------------------------------------
# The journal stays (so the unit's ConditionDirectoryNotEmpty holds), but
# nothing hosttune applied is in effect: verify says so and exits 0, also
# at boot (--boot), so the unit does not fail on every boot.
h=$(copy_host debian12-kvm); scratch "$h"
"$HOSTTUNE" --root "$h" $P --quiet apply oracle --set sga_max_size=4G >/dev/null 2>&1 ||
        { echo "Bail out! apply failed"; exit 99; }
applied=$(ls "$h/var/lib/hosttune/journal")
"$HOSTTUNE" --root "$h" --quiet rollback >/dev/null 2>&1 || { echo "Bail out! rollback failed"; exit 99; }
rolled=$(ls "$h/var/lib/hosttune/journal" | grep -vx "$applied")
run 0 "verify after the rollback of the only apply" --root "$h" verify
# the time is the one the journal records for the rollback of that apply
# (the rollback's own commit may fall in the next second)
check "text: says what was rolled back, by which transaction" \
        "Verify: nothing to verify: the last apply (transaction $applied, profile oracle) was rolled back by $rolled at $(jq -r .rolled_back_at "$h/var/lib/hosttune/journal/$applied/manifest.json"); none of hosttune's tuning is in effect; the rollback takes full effect at the next boot" \
        "$(sed -n 1p "$tmp/out")"
check "text: status line" "Status: ok (nothing applied)" "$(sed -n 2p "$tmp/out")"
check "text: nothing on stderr" "" "$(cat "$tmp/err")"
run 0 "verify --json after the rollback" --root "$h" --json verify
check "json: status ok, applied false, no checks" "ok false 0" \
        "$(jq -r '[.status, .applied, (.checks | length)] | map(tostring) | join(" ")' "$tmp/out")"
check "json: the rolled-back apply and the rollback" "$applied oracle $rolled true" \
        "$(jq -r '.rolled_back | [.txid, .profile, .by, .reboot_pending] | map(tostring) | join(" ")' "$tmp/out")"
check "json: txid and profile are null (nothing applied)" "null null" "$(jq -c '.txid, .profile' "$tmp/out" | paste -sd' ' -)"
check_contains "json: message" "nothing to verify: the last apply" "$tmp/out"
run 0 "verify --boot after the rollback (the unit's command)" --root "$h" verify --boot
check "verify --boot: same status line" "Status: ok (nothing applied)" "$(sed -n 2p "$tmp/out")"
reboot_host "$h" "" 0
run 0 "after the reboot that completes the rollback" --root "$h" --json verify
check "json: rollback no longer waits for a reboot" "false" "$(jq -r .rolled_back.reboot_pending "$tmp/out")"
run 0 "verify --boot after that reboot" --root "$h" verify --boot
# applied again after the rollback: verify checks the new apply
"$HOSTTUNE" --root "$h" $P --quiet apply oracle --set sga_max_size=4G >/dev/null 2>&1
run 3 "apply again after the rollback: verified again" --root "$h" --json verify
check "json: applied true again" "true" "$(jq -r .applied "$tmp/out")"

# Two applies, the second rolled back: the first is in effect and verified.
h=$(copy_host debian12-kvm); scratch "$h"
"$HOSTTUNE" --root "$h" $P --quiet apply base >/dev/null 2>&1
first=$(ls "$h/var/lib/hosttune/journal")
"$HOSTTUNE" --root "$h" $P --quiet apply oracle --set sga_max_size=4G >/dev/null 2>&1
"$HOSTTUNE" --root "$h" --quiet rollback >/dev/null 2>&1
"$HOSTTUNE" --root "$h" --json verify >"$tmp/out" 2>"$tmp/err"
check "second apply rolled back: the first is verified" "$first base true" \
        "$(jq -r '[.txid, .profile, .applied] | map(tostring) | join(" ")' "$tmp/out")"

# A journal whose only apply never took effect (it crashed, and the next
# run cleared what it left, down to an empty journal): nothing in effect either, exit 0 — the unit would
# otherwise fail at every boot after a first apply that did not make it.
h=$(copy_host debian12-kvm); scratch "$h"
HOSTTUNE_FAULT_AFTER=1 HOSTTUNE="$HOSTTUNE" P="$P" h="$h" \
        sh -c '"$HOSTTUNE" --root "$h" $P --quiet apply oracle --set sga_max_size=4G' >/dev/null 2>&1
if [ -d "$h/var/lib/hosttune/journal" ]; then
        run 0 "verify after a first apply that crashed" --root "$h" --json verify
        check "crashed apply: applied false, nothing rolled back by hand" "false null" \
                "$(jq -c '.applied, .rolled_back' "$tmp/out" | paste -sd' ' -)"
        check_contains "crashed apply: message" "holds no apply in effect" "$tmp/out"
        run 0 "verify --boot after a first apply that crashed" --root "$h" verify --boot
else
        ok "verify after a first apply that crashed # SKIP the fault left no journal"
fi

finish
