#!/bin/sh
# status on fixtures (figures checked against the fixture files read with
# awk), after an apply (what the profile asked for, pending reboot), and
# on the real machine against /proc read independently (read-only).
# Needs jq. TAP output.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq is not installed"; exit 0; }
HOSTTUNE_NO_AUDIT=1 HOSTTUNE_INSECURE_PROFILES=1
export HOSTTUNE_NO_AUDIT HOSTTUNE_INSECURE_PROFILES
H=$(cd "$HOSTS" && pwd)
P=$(cd "$PROFILES" && pwd)
R=$(cd "$top_srcdir/rules" && pwd)

mi() { awk -v k="$2:" '$1 == k { print $2 }' "$1"; }
vm() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }
q() { jq -c "$1" "$tmp/s.json"; }

# ---- a fixture: MariaDB on Alibaba Cloud Linux with text in huge pages
A=$H/alinux3-hugetext
"$HOSTTUNE" --root "$A" status --json >"$tmp/s.json" 2>"$tmp/err"
check "alinux3: status exits 0" 0 $?
check "alinux3: page tables" "$(mi "$A/proc/meminfo" PageTables)" "$(q .memory.page_tables_kb)"
for f in Total:total Free:free Rsvd:rsvd Surp:surp; do
        check "alinux3: HugePages_${f%%:*}" "$(mi "$A/proc/meminfo" "HugePages_${f%%:*}")" "$(q ".hugepages.${f#*:}")"
done
check "alinux3: truly free = free - rsvd" \
        "$(($(mi "$A/proc/meminfo" HugePages_Free) - $(mi "$A/proc/meminfo" HugePages_Rsvd)))" "$(q .hugepages.truly_free)"
check "alinux3: page size" "$(mi "$A/proc/meminfo" Hugepagesize)" "$(q .hugepages.page_size_kb)"
for c in pgmajfault pswpin pswpout; do
        check "alinux3: $c" "$(vm "$A/proc/vmstat" $c)" "$(q ".vmstat.since_boot.$c")"
done
check "alinux3: no interval, no rate" "null" "$(q .vmstat.per_second)"
check "alinux3: hugetext mode" "$(cat "$A/sys/kernel/mm/transparent_hugepage/hugetext_enabled")" "$(q .hugetext.enabled)"
check "alinux3: FilePmdMapped of mariadbd" \
        "$(awk '$1 == "FilePmdMapped:" { s += $2 } END { print s }' "$A/proc/812/smaps")" \
        "$(q '.hugetext.processes[] | select(.pid == 812) | .file_pmd_mapped_kb')"
check "alinux3: THP" "\"$(sed 's/.*\[\(.*\)\].*/\1/' "$A/sys/kernel/mm/transparent_hugepage/enabled")\"" "$(q .thp.enabled)"
check "alinux3: nothing applied" "null null false" "$(q '.applied, .last_transaction, .reboot_pending' | paste -sd' ' -)"
check "alinux3: verify hint" '"nothing applied yet"' "$(q .verify.hint)"

run 0 "alinux3: text" --root "$A" status
check_contains "text: page tables" "Page tables:  $(mi "$A/proc/meminfo" PageTables) kB" "$tmp/out"
check_contains "text: huge-page text" "mariadbd             pid 812" "$tmp/out"
check_contains "text: verify" "Verify:           nothing applied yet" "$tmp/out"

"$HOSTTUNE" --root "$A" status --interval 1 --json >"$tmp/s.json" 2>"$tmp/err"
check "alinux3: --interval 1 exits 0" 0 $?
check "alinux3: static counters, zero rates" '{"pgmajfault":0,"pswpin":0,"pswpout":0} 1' \
        "$(q '.vmstat.per_second, .vmstat.interval_seconds' | paste -sd' ' -)"

# ---- after an apply: what the profile asked for, the pending reboot
O=$(copy_host oracle-running); scratch "$O"
"$HOSTTUNE" --root "$O" --profile-path "$P" --rules-path "$R" --json apply oracle --set hugepages_from=shm \
        >"$tmp/apply.out" 2>"$tmp/apply.err"
check "oracle-running: apply exits 0" 0 $?
"$HOSTTUNE" --root "$O" status --json >"$tmp/s.json" 2>"$tmp/err"
check "oracle-running: status exits 0" 0 $?
# the transaction the apply reported, not what status or history read
txid=$(jq -r .txid "$tmp/apply.out")
# what the profile asks for, from the fixture itself: the sum over the
# SysV segments of ceil(size / Hugepagesize), plus the rule's slack of 2
# (rules/10-hugepages.rules)
asked=$(awk -v page="$(mi "$O/proc/meminfo" Hugepagesize)" \
        'NR > 1 { s += int(($4 + page * 1024 - 1) / (page * 1024)) } END { print s + 2 }' "$O/proc/sysvipc/shm")
check "oracle-running: asked for = the segments' pages + slack" "$asked" "$(q .hugepages.requested)"
check "oracle-running: in bytes" "$((asked * 2048 * 1024))" "$(q .hugepages.requested_bytes)"
check "oracle-running: applied profile and txid" "\"oracle\" \"$txid\"" "$(q '.applied.profile, .applied.txid' | paste -sd' ' -)"
check "oracle-running: last transaction" "\"$txid\"" "$(q .last_transaction.txid)"
check "oracle-running: HugePages stayed short (fixture): reboot pending" true "$(q .reboot_pending)"
check "oracle-running: verify's verdict before the reboot" '"reboot-pending"' "$(q .verify.status)"
check "oracle-running: pmon's text mapped" 0 "$(q '.hugetext.processes[] | select(.pid == 1234) | .file_pmd_mapped_kb')"
run 0 "oracle-running: text" --root "$O" status
check_contains "text: asked for" "asked for                            $asked pages  18.0 GiB (vm.nr_hugepages of profile oracle, $txid): short of it" "$tmp/out"
check_contains "text: reboot pending" "Reboot pending:   yes (transaction $txid needs one)" "$tmp/out"
# a new boot id: the reboot happened
echo 0f3e2d1c-aaaa-4bbb-8ccc-123456789abc >"$O/proc/sys/kernel/random/boot_id"
"$HOSTTUNE" --root "$O" status --json >"$tmp/s.json" 2>/dev/null
check "oracle-running: after a reboot, nothing pending" false "$(q .reboot_pending)"
check "oracle-running: rates over the fixture's vmstat" "$(vm "$O/proc/vmstat" pswpout)" "$(q .vmstat.since_boot.pswpout)"

# ---- bad input
run 1 "--interval 0 is refused" --root "$A" status --interval 0
check_contains "says the range" "--interval wants whole seconds from 1 to 3600" "$tmp/err"
run 1 "--interval junk is refused" --root "$A" status --interval 1x
run 1 "--interval is for status only" --root "$A" plan base --interval 2
check_contains "says so" "'plan' does not take --interval" "$tmp/err"
I=$tmp/image
mkdir -p "$I/etc"
run 1 "an offline image has no status" --root "$I" status
check_contains "says why" "is an offline image: status reads a running kernel" "$tmp/err"
G=$(copy_host debian12-kvm); scratch "$G"
printf 'FilePmdMapped: junk kB\n\001\377' >"$G/proc/3001/smaps"
printf 'pgmajfault -5\npswpin 99999999999999999999999\n' >"$G/proc/vmstat"
"$HOSTTUNE" --root "$G" status --json >"$tmp/s.json" 2>"$tmp/err"
check "garbage smaps and vmstat: exit 0" 0 $?
check "garbage: counters unknown" "null null" "$(q '.vmstat.since_boot.pgmajfault, .vmstat.since_boot.pswpin' | paste -sd' ' -)"

# ---- the real machine, read only: figures against /proc read independently
if [ -r /proc/meminfo ] && [ -r /proc/vmstat ]; then
        # real-host-apply.sh resizes the HugePages pool: not while this reads it
        real_host_lock
        before=$(vm /proc/vmstat pgmajfault)
        "$HOSTTUNE" status --json >"$tmp/s.json" 2>"$tmp/err"
        check "real host: status exits 0" 0 $?
        after=$(vm /proc/vmstat pgmajfault)
        got=$(q .vmstat.since_boot.pgmajfault)
        if [ "$got" -ge "$before" ] && [ "$got" -le "$after" ]; then ok "real host: pgmajfault $before <= $got <= $after"
        else not_ok "real host: pgmajfault $got not within [$before, $after]"; fi
        pt=$(mi /proc/meminfo PageTables) gpt=$(q .memory.page_tables_kb)
        # page tables move as processes come and go: within 50% and 64 MB
        if [ "$gpt" -gt 0 ] && [ $((gpt > pt ? gpt - pt : pt - gpt)) -le $((pt / 2 + 65536)) ]; then
                ok "real host: page tables $gpt kB ~ $pt kB"
        else not_ok "real host: page tables $gpt kB vs $pt kB"; fi
        check "real host: HugePages_Total" "$(mi /proc/meminfo HugePages_Total)" "$(q .hugepages.total)"
        check "real host: Hugepagesize" "$(mi /proc/meminfo Hugepagesize)" "$(q .hugepages.page_size_kb)"
        check "real host: boot id" "\"$(cat /proc/sys/kernel/random/boot_id)\"" "$(q .boot_id)"
        "$HOSTTUNE" status --interval 1 --json >"$tmp/s.json" 2>"$tmp/err"
        check "real host: --interval 1 exits 0" 0 $?
        check "real host: rates are >= 0" true "$(q '[.vmstat.per_second[] | select(. != null) | . >= 0] | all')"
else
        skip "real host: status against /proc" "/proc/meminfo or /proc/vmstat not readable"
fi

finish
