#!/bin/sh
# Did the database take its pages? (issue 20, part 3) On fixture copies:
# status's per-process figures (VmPTE, Hugetlb, majflt, FilePmdMapped)
# against the fixture's /proc/PID files read with awk, and verify's
# "HugePages in use" check: all pages free while the database runs is
# drift (exit 2), with the likely causes and "not restarted since the
# apply" when the process started before it; the pages in use is ok; no
# database running, nothing to judge. Needs jq. TAP output.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
HOSTTUNE_NO_AUDIT=1 HOSTTUNE_INSECURE_PROFILES=1
export HOSTTUNE_NO_AUDIT HOSTTUNE_INSECURE_PROFILES
P=$(cd "$PROFILES" && pwd)
R=$(cd "$top_srcdir/rules" && pwd)
q() { jq -c "$1" "$tmp/s.json"; }
kb() { awk -v k="$2:" '$1 == k { s += $2; seen = 1 } END { if (seen) print s; else print "null" }' "$1"; }
# field N of a stat line (after the command in parentheses)
statf() { sed 's/.*) //' "$1" | awk -v n="$2" '{ print $(n - 2) }'; }

O=$(copy_host oracle-running); scratch "$O"
pid=1234
pd=$O/proc/$pid
# what the kernel shows of an Oracle background process attached to an
# SGA in HugePages: shared HugeTLB pages, a few private, page tables
printf 'Name:\tora_pmon_orcl\nVmPTE:\t     2148 kB\nHugetlbPages:\t  2101248 kB\n' >"$pd/status"
cat >"$pd/smaps_rollup" <<'EOF'
00400000-7ffd1c3f9000 ---p 00000000 00:00 0                              [rollup]
Rss:               52316 kB
FilePmdMapped:      4096 kB
Shared_Hugetlb:  2097152 kB
Private_Hugetlb:    4096 kB
Swap:                  0 kB
EOF
# the SGA in smaps: a SysV segment in 2 MiB pages (KernelPageSize is the
# huge page size), 2 GiB of it mapped, 1 GiB faulted in
cat >>"$pd/smaps" <<'EOF'
7f2c00000000-7f2c80000000 rw-s 00000000 00:0f 3                          /SYSV00000000 (deleted)
Size:            2097152 kB
KernelPageSize:     2048 kB
MMUPageSize:        2048 kB
Rss:                   0 kB
Shared_Hugetlb:  1048576 kB
Private_Hugetlb:       0 kB
VmFlags: rd wr sh mr mw me ms de ht sd
EOF
# Size of the mappings whose page size is above the smallest (the base)
mapped_kb() {
        awk '$1 == "Size:" { s = $2 } $1 == "KernelPageSize:" { by[$2] += s; if (min == "" || $2 < min) min = $2 }
             END { for (k in by) if (k + 0 > min + 0) t += by[k]; print t + 0 }' "$1"
}
ticks=$(getconf CLK_TCK)
# a command with spaces and a parenthesis: fields count from the last ')'
printf '%s (ora_pmon (x) ORCL) S 1 %s %s 0 -1 4194560 5120 0 37 0 12 9 0 0 20 0 1 0 %s 8407318528 13079\n' \
        "$pid" "$pid" "$pid" "$((10 * ticks))" >"$pd/stat"

"$HOSTTUNE" --root "$O" --profile-path "$P" --rules-path "$R" --json apply oracle --set hugepages_from=shm \
        >"$tmp/apply.out" 2>"$tmp/apply.err"
check "apply exits 0" 0 $?
# what the profile asked for, from the fixture (status.sh checks the sum)
asked=$(awk -v page=2048 'NR > 1 { s += int(($4 + page * 1024 - 1) / (page * 1024)) } END { print s + 2 }' \
        "$O/proc/sysvipc/shm")
now=$(date +%s)

# ---- status: the process's own figures
"$HOSTTUNE" --root "$O" status --json >"$tmp/s.json" 2>"$tmp/err"
check "status exits 0" 0 $?
sel=".processes[] | select(.pid == $pid)"
check "pmon: kind" '"oracle"' "$(q "$sel | .kind")"
check "pmon: VmPTE" "$(kb "$pd/status" VmPTE)" "$(q "$sel | .vm_pte_kb")"
check "pmon: Shared_Hugetlb" "$(kb "$pd/smaps_rollup" Shared_Hugetlb)" "$(q "$sel | .shared_hugetlb_kb")"
check "pmon: Private_Hugetlb" "$(kb "$pd/smaps_rollup" Private_Hugetlb)" "$(q "$sel | .private_hugetlb_kb")"
check "pmon: Hugetlb = private + shared" \
        "$(($(kb "$pd/smaps_rollup" Shared_Hugetlb) + $(kb "$pd/smaps_rollup" Private_Hugetlb)))" "$(q "$sel | .hugetlb_kb")"
check "pmon: HugePages mapped (Size of its HugeTLB mappings in smaps)" "$(mapped_kb "$pd/smaps")" \
        "$(q "$sel | .hugetlb_mapped_kb")"
check "pmon: FilePmdMapped" "$(kb "$pd/smaps_rollup" FilePmdMapped)" "$(q "$sel | .file_pmd_mapped_kb")"
check "pmon: majflt (stat field 12)" "$(statf "$pd/stat" 12)" "$(q "$sel | .majflt")"
check "pmon: no rate without --interval" null "$(q "$sel | .majflt_per_second")"
check "every database and JVM process listed" "[1234,1236,1240,2210]" "$(q '[.processes[].pid]')"
check "java's kind" '"java"' "$(q '.processes[] | select(.pid == 2210) | .kind')"
check "a process without status or smaps: unknown, not 0" "null null" \
        "$(q '.processes[] | select(.pid == 1236) | .vm_pte_kb, .hugetlb_kb' | paste -sd' ' -)"
"$HOSTTUNE" --root "$O" status --interval 1 --json >"$tmp/s.json" 2>"$tmp/err"
check "--interval: the fixture's counter stands still: 0 per second" 0 "$(q "$sel | .majflt_per_second")"
"$HOSTTUNE" --root "$O" status >"$tmp/out" 2>"$tmp/err"
check_contains "text: the process" "ora_pmon_ORCL pid $pid (oracle)" "$tmp/out"
check_contains "text: VmPTE" "$(printf '    %-40s %12s kB' 'page tables (VmPTE)' "$(kb "$pd/status" VmPTE)")" "$tmp/out"
check_contains "text: Hugetlb" "$(printf '    %-40s %12s kB' 'HugePages in use (Hugetlb)' 2101248)" "$tmp/out"
check_contains "text: majflt" "$(printf '    %-40s %12s' 'major faults (majflt)' "$(statf "$pd/stat" 12)")" "$tmp/out"
check_contains "text: FilePmdMapped says what it is" "file text in THP (FilePmdMapped)" "$tmp/out"

mem() {  # total free rsvd
        sed -i -e "s/^HugePages_Total:.*/HugePages_Total: $1/" -e "s/^HugePages_Free:.*/HugePages_Free: $2/" \
                -e "s/^HugePages_Rsvd:.*/HugePages_Rsvd: $3/" "$O/proc/meminfo"
}
use() { jq -c '.checks[] | select(.key == "HugePages in use") | '"$1" "$tmp/out"; }
# ---- verify before the reboot the apply waits for: the database runs
# since before the apply (a server started by its package, as at
# provisioning), so its pages come when the reboot restarts it: pending
check "the apply waits for a reboot (the test needs one)" true "$(jq -r .reboot_required "$tmp/apply.out")"
mem "$asked" "$asked" 0
printf 'cpu  1 2 3 4\nbtime %s\nprocesses 5\n' "$((now - 1000))" >"$O/proc/stat"
run 3 "before the pending reboot, pmon started before the apply: reboot pending, not drift" --root "$O" --json verify
check "the check: reboot-pending" '"reboot-pending"' "$(use .status)"
use .hint >"$tmp/hint"
check_contains "hint: the pending reboot restarts it" \
        "ora_pmon_ORCL (pid 1234) started before the apply and runs without its HugePages until the pending reboot restarts it" \
        "$tmp/hint"
printf 'cpu  1 2 3 4\nbtime %s\nprocesses 5\n' "$((now - 5))" >"$O/proc/stat"
run 2 "before the pending reboot, pmon started after the apply and takes none: drift" --root "$O" --json verify
check "the check: drift" '"drift"' "$(use .status)"

# ---- verify: the pages came (a boot later) but all sit free while pmon runs
echo 0f3e2d1c-aaaa-4bbb-8ccc-123456789abc >"$O/proc/sys/kernel/random/boot_id"
mem "$asked" "$asked" 0
# pmon started 10 s after a boot 1000 s ago: before the apply
printf 'cpu  1 2 3 4\nbtime %s\nprocesses 5\n' "$((now - 1000))" >"$O/proc/stat"
run 2 "all pages free while the database runs: drift" --root "$O" --json verify
check "the check: drift" '"drift"' "$(use .status)"
check "expected: the pages asked for" "\"$asked in use (at least half of them)\"" "$(use .expected)"
check "actual: none in use" "\"0 in use ($asked free, 0 reserved)\"" "$(use .actual)"
use .hint >"$tmp/hint"
check_contains "hint: all free" "all HugePages free while ora_pmon_ORCL (pid 1234)" "$tmp/hint"
check_contains "hint: large pages off" "large pages off in its configuration" "$tmp/hint"
check_contains "hint: memlock" "memlock" "$tmp/hint"
check_contains "hint: another process" "taken by another process" "$tmp/hint"
check_contains "hint: pmon started before the apply" \
        "not restarted since the apply: ora_pmon_ORCL (pid 1234) started before it" "$tmp/hint"
# the most mapped: smaps_rollup's Hugetlb (2 GiB faulted in) above the
# fixture's smaps, which shows one 2 GiB segment
hi=$(($(kb "$pd/smaps_rollup" Shared_Hugetlb) + $(kb "$pd/smaps_rollup" Private_Hugetlb)))
[ "$(mapped_kb "$pd/smaps")" -gt "$hi" ] && hi=$(mapped_kb "$pd/smaps")
check_contains "hint: the HugePages its processes map, from the fixture" \
        "maps in HugePages is $hi kB" "$tmp/hint"
run 2 "text: drift" --root "$O" verify
check_contains "text: the DRIFT line" "DRIFT    hugepages HugePages in use: expected $asked in use" "$tmp/out"
"$HOSTTUNE" --root "$O" status --json >"$tmp/s.json" 2>"$tmp/err"
check "status: verify's verdict is drift" '"drift"' "$(q .verify.status)"

# restarted after the apply: the same drift, without the restart cause
printf 'cpu  1 2 3 4\nbtime %s\nprocesses 5\n' "$((now - 5))" >"$O/proc/stat"
run 2 "started after the apply, pages still free: drift" --root "$O" --json verify
use .hint >"$tmp/hint"
if grep -q "not restarted since the apply:" "$tmp/hint"; then not_ok "no restart cause for a process started after the apply"
else ok "no restart cause for a process started after the apply"; fi

# far fewer in use than asked: fewer than half (free - rsvd counted as free)
mem "$asked" "$((asked - asked / 4))" 0
run 2 "a quarter in use: drift" --root "$O" --json verify
check_contains "hint: far fewer" "far fewer HugePages in use than asked for" "$(use .hint >"$tmp/hint"; echo "$tmp/hint")"
# most faulted in, or reserved (an mmap(MAP_HUGETLB) not yet touched): ok
mem "$asked" "$((asked - 10))" "$((asked - 20))"
run 0 "pages reserved by the database: ok" --root "$O" --json verify
check "the check: ok" '"ok"' "$(use .status)"
check "actual counts faulted and reserved" "\"$((asked - 10)) in use ($((asked - 10)) free, $((asked - 20)) reserved)\"" \
        "$(use .actual)"

# the database stopped, a JVM still runs: not the pages of an Oracle
# profile, nothing to judge (nor at boot, before the database starts)
mem "$asked" "$asked" 0
rm -rf "$O/proc/1234" "$O/proc/1236" "$O/proc/1240"
check "the fixture still runs java" java "$(cat "$O/proc/2210/comm")"
run 0 "only a JVM runs on a host tuned for Oracle: no check" --root "$O" --json verify
check "no HugePages in use check" "" "$(use .status)"

finish
