#!/bin/sh
# verify after a simulated reboot: apply on a fixture copy, then change the
# fixture the way a boot would (boot id, /proc/cmdline, HugePages) — one
# good boot and the bad ones — and check status, exit codes and JSON.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq is not installed"; exit 0; }
export HOSTTUNE_NO_AUDIT=1
P="--profile-path $top_srcdir/profiles --rules-path $top_srcdir/rules"

fresh() {
        h=$(copy_host debian12-kvm)
        "$HOSTTUNE" --root "$h" $P --quiet apply oracle --set sga_max_size=4G >/dev/null 2>&1 ||
                { echo "Bail out! apply failed"; exit 99; }
}
reboot_host() { # reboot_host ROOT CMDLINE-WORD HUGEPAGES
        echo "0b7e2c3a-9d4f-4e1a-8c6b-5f2d1e0a9b87" >"$1/proc/sys/kernel/random/boot_id"
        if [ -n "$2" ]; then sed -i "s/\$/ $2/" "$1/proc/cmdline"; fi
        sed -i "s/^HugePages_Total:.*/HugePages_Total:    $3/; s/^HugePages_Free:.*/HugePages_Free:     $3/" "$1/proc/meminfo"
}
status_of() { jq -r --arg k "$2" '.checks[] | select(.key == $k) | .status' "$1"; }

h=$(copy_host debian12-kvm)
run 1 "verify with nothing applied" --root "$h" verify
check_contains "nothing applied: says so" "nothing to verify" "$tmp/err"

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
sed -i 's/^vm.swappiness = 1$/vm.swappiness = 5/' "$h/etc/sysctl.d/90-hosttune.conf"
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

# after a rollback there is nothing applied to verify
"$HOSTTUNE" --root "$h" --quiet rollback >/dev/null 2>&1
run 1 "verify after rollback of the only apply" --root "$h" verify

finish
