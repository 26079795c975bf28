#!/bin/sh
# Issue 39, item 1: verify's settle window. At boot the verify unit may
# start right after a JVM or a database, before it maps its HugePages:
# a workload process younger than the window that has not taken them yet
# is waited for, /proc/meminfo re-read every half second, until it has
# them (ok) or is as old as the window (drift, saying how long verify
# waited). On a copy of the oracle-running fixture after an apply and a
# "reboot": pmon's start (stat field 22) against /proc/uptime makes it
# young or old, and a background job rewrites /proc/meminfo a second
# after verify starts, as the kernel's counters move when the process
# maps its pages (once verify waits in its window).
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
HOSTTUNE_NO_AUDIT=1 HOSTTUNE_INSECURE_PROFILES=1
export HOSTTUNE_NO_AUDIT HOSTTUNE_INSECURE_PROFILES
P=$(cd "$PROFILES" && pwd)
R=$(cd "$top_srcdir/rules" && pwd)
O=$(copy_host oracle-running); scratch "$O"
ticks=$(getconf CLK_TCK)
# pmon started 10 s after boot
printf '1234 (ora_pmon_ORCL) S 1 1234 1234 0 -1 4194560 5120 0 37 0 12 9 0 0 20 0 1 0 %s 8407318528 13079\n' \
        "$((10 * ticks))" >"$O/proc/1234/stat"
"$HOSTTUNE" --root "$O" --profile-path "$P" --rules-path "$R" --json apply oracle --set hugepages_from=shm \
        >"$tmp/apply.out" 2>"$tmp/apply.err"
check "apply exits 0" 0 $?
asked=$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/apply.out")
echo 0f3e2d1c-aaaa-4bbb-8ccc-123456789abc >"$O/proc/sys/kernel/random/boot_id"
printf 'cpu  1 2 3 4\nbtime %s\nprocesses 5\n' "$(($(date +%s) - 11))" >"$O/proc/stat"
mem() {  # total free rsvd
        sed -i -e "s/^HugePages_Total:.*/HugePages_Total: $1/" -e "s/^HugePages_Free:.*/HugePages_Free: $2/" \
                -e "s/^HugePages_Rsvd:.*/HugePages_Rsvd: $3/" "$O/proc/meminfo"
}
use() { jq -c '.checks[] | select(.key == "HugePages in use") | '"$1" "$tmp/out"; }

# ---- 1 s old, all pages free; a second later it reserves them: ok
mem "$asked" "$asked" 0
echo "11.00 20.00" >"$O/proc/uptime"
# the pages come once verify sleeps in its window (its /proc/PID/syscall
# shows nanosleep, 35, or clock_nanosleep, 230): a fixed delay would race
# a slow start (valgrind)
in_window() {
        for p in $(pgrep -f -- "--settle 10" 2>/dev/null); do
                case $(cut -d' ' -f1 "/proc/$p/syscall" 2>/dev/null) in 35 | 230) return 0 ;; esac
        done
        return 1
}
(i=0; until in_window || [ $i -ge 600 ]; do sleep 0.05; i=$((i + 1)); done
 mem "$asked" "$asked" "$asked") &
bg=$!
run 0 "young process that takes its pages during the window: ok" --root "$O" --json verify --settle 10
wait "$bg"
check "the check: ok" '"ok"' "$(use .status)"
check "actual: the re-read meminfo" "\"$asked in use ($asked free, $asked reserved)\"" "$(use .actual)"
use .hint >"$tmp/hint"
check_contains "hint: how long after verify started, for which process" \
        "after verify started: pid 1234 had started 1.0 s before it (settle window 10 s)" "$tmp/hint"

# ---- 1 s old and the pages stay free: waited until it is 2 s old, drift
mem "$asked" "$asked" 0
run 2 "young process still without pages after the window: drift" --root "$O" --json verify --settle 2
check "the check: drift" '"drift"' "$(use .status)"
use .hint >"$tmp/hint"
check_contains "hint: all free, as without a window" "all HugePages free while ora_pmon_ORCL (pid 1234)" "$tmp/hint"
check_contains "hint: waited the rest of the window" \
        "still so after waiting 1.0 s for pid 1234, which had started 1.0 s before verify (settle window 2 s)" "$tmp/hint"

# ---- no window (--settle 0, verify's default without --boot): at once
run 2 "--settle 0: drift at once" --root "$O" --json verify --settle 0
use .hint >"$tmp/hint"
if grep -q "after waiting" "$tmp/hint"; then not_ok "--settle 0: no wait"; else ok "--settle 0: no wait"; fi
run 2 "no --settle, no --boot: no wait either" --root "$O" --json verify
use .hint >"$tmp/hint"
if grep -q "after waiting" "$tmp/hint"; then not_ok "default: no wait"; else ok "default: no wait"; fi

# ---- started before the window: judged at once, no wait
echo "300.00 20.00" >"$O/proc/uptime"
run 2 "a process up for minutes: drift without waiting" --root "$O" --json verify --settle 120
use .hint >"$tmp/hint"
if grep -q "after waiting" "$tmp/hint"; then not_ok "old process: no wait"; else ok "old process: no wait"; fi

# ---- rollback names what it cannot take back (issue 39): the database
# keeps the HugePages it maps until it restarts
cat >"$O/proc/1234/smaps_rollup" <<'S'
00400000-7ffd1c3f9000 ---p 00000000 00:00 0                              [rollup]
Shared_Hugetlb:  2097152 kB
Private_Hugetlb:       0 kB
S
run 0 "rollback" --root "$O" rollback
check_contains "rollback: the process that keeps its pages" \
        "ora_pmon_ORCL (pid 1234) keeps the 2097152 kB of HugePages it maps until it restarts" "$tmp/out"

# ---- the option's bounds
run 1 "--settle above 240: usage error" --root "$O" verify --settle 241
check_contains "usage error names the option" "--settle wants whole seconds from 0 to 240" "$tmp/err"
run 1 "--settle on another command: usage error" --root "$O" status --settle 5
finish
