#!/bin/sh
# A real JVM (Debian's openjdk-17-jdk-headless), started by the test as
# an unprivileged user (issue 20, part 4), with -XX:+UseLargePages and a
# 256 MiB heap; the plan is sized from its flags (issue 20, part 2). First it runs before the apply (no pages yet: verify
# reports it was not restarted since); restarted, its heap takes the
# pages and status and verify see them in use; restarted with
# -XX:-UseLargePages the pages sit idle, which verify reports as drift
# (exit 2). Then rollback, and the host is checked to be as before. Root
# only (real-workload-lib.sh).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 ||
        skip_all "no java and javac (openjdk-17-jdk-headless)"
command -v setpriv >/dev/null 2>&1 || skip_all "no setpriv (util-linux)"
user=nobody
group=$(id -gn "$user" 2>/dev/null) || skip_all "no user $user"
rw_dropins="/etc/sysctl.d/90-hosttune.conf /etc/security/limits.d/90-hosttune.conf"
rw_stop() {
        [ -n "${jvm_pid:-}" ] || return 0
        kill "$jvm_pid" 2>/dev/null
        i=0
        while kill -0 "$jvm_pid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$jvm_pid" 2>/dev/null
        wait "$jvm_pid" 2>/dev/null
        jvm_pid=""
}
. "$top_srcdir/tests/integration/real-workload-lib.sh"

# a program that only waits, so the JVM's memory is what its flags ask for
cat >"$rw_work/Idle.java" <<'EOF'
public class Idle {
        public static void main(String[] args) throws Exception {
                System.out.println("ready");
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
        }
}
EOF
javac -d "$rw_work" "$rw_work/Idle.java" 2>"$rw_work/javac.log"
check "javac compiles the test program" 0 $?
chmod -R a+rX "$rw_work"

# HotSpot's large pages (JDK documentation, "Large Pages"; "Java Support
# for Large Memory Pages"): -XX:+UseLargePages on Linux maps the heap with
# mmap(MAP_HUGETLB), reserving it whole when the JVM starts (so -Xms =
# -Xmx). The code cache takes large pages too, and first, when it holds
# several of them: at 12 MiB it stays in ordinary pages, so the heap gets
# the pages hosttune sized for it. -Xshare:off: no CDS archive mapping.
start_jvm() {
        memlock=$(awk -v u="$user" '$1 == u && $2 == "hard" && $3 == "memlock" { print $4 }' \
                "$CROOT/etc/security/limits.d/90-hosttune.conf" 2>/dev/null)
        : >"$rw_work/jvm.out"
        chmod 0666 "$rw_work/jvm.out"
        # the limit the JVM's user gets at login (pam_limits), when this
        # machine lets root raise it (mmap(MAP_HUGETLB) does not count
        # against RLIMIT_MEMLOCK: kernel Documentation/admin-guide/mm/hugetlbpage.rst)
        ( [ -z "$memlock" ] || ulimit -l "$memlock" 2>/dev/null ||
                echo "# cannot raise the memlock limit to $memlock kB here; kept $(ulimit -l) kB"
          exec setpriv --reuid="$user" --regid="$group" --clear-groups java "$1" -Xms256m -Xmx256m \
                -XX:ReservedCodeCacheSize=12m -Xshare:off -cp "$rw_work" Idle </dev/null >>"$rw_work/jvm.out" 2>&1 ) &
        jvm_pid=$!
        i=0
        until grep -q '^ready' "$rw_work/jvm.out" || ! kill -0 "$jvm_pid" 2>/dev/null || [ $i -ge 600 ]
        do sleep 0.1; i=$((i + 1)); done
        if grep -q '^ready' "$rw_work/jvm.out" && kill -0 "$jvm_pid" 2>/dev/null; then ok "java $1 started (pid $jvm_pid)"
        else not_ok "java did not start: $(head -c 600 "$rw_work/jvm.out")"; jvm_pid=""; fi
}
start_jvm -XX:+UseLargePages
sleep 2  # its start time must be before the apply's, second by second

# ---- apply jvm, sized by the JVM's own flags: no --set heap_size. What
# it needs, from its command line as the test reads it: -Xmx, plus the
# code cache when it holds 8 large pages or more (HotSpot's codeCache.cpp,
# CodeCache::initialize_heaps; 12m does not, so it stays out), plus the
# rules' 2 pages of slack. The JVM runs as nobody, started by the test
# (not root's, in no system service): hosttune uses it only for the user
# the administrator names (issue 32), so --set jvm_user names it; jvm_unit=
# keeps the drop-in for the unit this test runs in (if any) out of the plan.
# thp= keeps THP and the kernel command line out (the test cannot restore
# a bootloader change).
pagesz=$(($(meminfo Hugepagesize) * 1024))
arg() { tr '\0' '\n' <"/proc/$jvm_pid/cmdline" | sed -n "s/^$1//p" | tail -n1; }
to_bytes() { case $1 in *[kK]) echo $((${1%?} * 1024));; *[mM]) echo $((${1%?} * 1048576));;
        *[gG]) echo $((${1%?} * 1073741824));; *) echo "$1";; esac; }
heap=$(to_bytes "$(arg -Xmx)") cc=$(to_bytes "$(arg -XX:ReservedCodeCacheSize=)")
[ $((cc / pagesz)) -ge 8 ] || cc=0
# G1 (the collector on this server-class machine: 2 processors or more,
# 1792 MiB or more) also maps its block offset table, card table and
# card counts (heap / 512 each) and its two marking bitmaps (heap / 64
# each) on large pages when each holds one (issue 39; facts-jvm.c cites
# HotSpot): with -Xmx256m the bitmaps, 4 MiB each
aux() { [ "$1" -ge "$pagesz" ] && echo $(( ($1 + pagesz - 1) / pagesz * pagesz )) || echo 0; }
g1=$(( 3 * $(aux $((heap / 512))) + 2 * $(aux $((heap / 64))) ))
want_pages=$(( (heap + cc + g1 + pagesz - 1) / pagesz + 2 ))
set_args="--set jvm_user=$user --set jvm_group=$group --set jvm_unit= --set thp="
# without it, nobody's JVM is found and not used (issue 32)
hr 2 "plan jvm without naming the JVM's user" --json plan jvm --set jvm_group=$group --set jvm_unit= --set thp=
check "plan: nobody's JVM is listed as not used, with the --set that uses it" "jvm_user=$user" \
        "$(jq -r --argjson p "$jvm_pid" '.not_used[] | select(.pid == $p) | .set' "$tmp/out")"
# shellcheck disable=SC2086
hr 2 "plan jvm on the real host" --json plan jvm $set_args
cp "$tmp/out" "$tmp/plan.json"
if [ -n "$(pgrep -x java | grep -vx "$jvm_pid")" ]; then
        skip "plan: HugePages for this JVM alone" "other JVMs run on this host"
else
        check "plan: HugePages for -Xmx + code cache + G1's structures from the JVM's command line ($heap + $cc + $g1 bytes)" "$want_pages" \
                "$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/plan.json")"
fi
check "plan: the limits go to the JVM's owner" "$user" \
        "$(jq -r '[.changes[] | select(.backend == "limits") | .key | split(" ")[0]] | unique | join(",")' "$tmp/plan.json")"
rw_check_plan "$tmp/plan.json"
if [ "$failed" -gt 0 ]; then
        echo "# the plan would touch more than this test restores; not applying"
        finish
fi
# shellcheck disable=SC2086
shm_group_before=$(cat /proc/sys/vm/hugetlb_shm_group)
hr 0 "apply jvm on the real host" --json apply jvm $set_args
asked=$(cat /proc/sys/vm/nr_hugepages)
if [ "$asked" -ge 128 ]; then ok "vm.nr_hugepages covers the heap ($asked)"; else not_ok "vm.nr_hugepages is $asked"; fi
check "the kernel has them all" "$asked" "$(meminfo HugePages_Total)"
# HotSpot maps its large pages (mmap MAP_HUGETLB) unless -XX:+UseSHM, so
# the SysV group is left alone (issue 33); the JVM below still gets its
# pages, which is what proves it
check "vm.hugetlb_shm_group left as it was (the JVM maps its pages)" "$shm_group_before" \
        "$(cat /proc/sys/vm/hugetlb_shm_group)"

# ---- not restarted since the apply: the heap is in ordinary pages
hr 2 "verify: java runs without its pages" --json verify
check "the check: drift" '"drift"' "$(use_check .status)"
use_check .hint >"$tmp/hint"
check_contains "hint: not restarted since the apply" "not restarted since the apply:" "$tmp/hint"
sed -n 's/.*not restarted since the apply: \(.*\) started before it.*/\1/p' "$tmp/hint" >"$tmp/stale"
check_contains "hint: this java started before the apply" "java (pid $jvm_pid)" "$tmp/stale"

# ---- restarted: the heap takes its pages
rw_stop
start_jvm -XX:+UseLargePages
used=$(rw_in_use)
if [ "$used" -ge 128 ]; then ok "the heap took its pages ($used in use, read from /proc/meminfo)"
else not_ok "only $used HugePages in use after the restart: $(head -c 600 "$rw_work/jvm.out")"; fi
check_process "$jvm_pid" java
# every large-page reservation succeeded: HotSpot warns "Failed to
# reserve and commit memory ... page size 2097152 (errno = 12)" on its
# output for each one that did not fit (issue 39: the G1 bitmaps)
if grep -q "Failed to reserve" "$rw_work/jvm.out"; then not_ok "no large-page reservation failure in the JVM's output: $(grep -m2 "Failed to reserve" "$rw_work/jvm.out")"
else ok "no large-page reservation failure in the JVM's output"; fi
# the heap is mapped whole, reserved or faulted in: 256 MiB at least
check_between "status: HugePages mapped cover the heap" 262144 "$(jq "$sel | .hugetlb_mapped_kb" "$tmp/status.json")" \
        "$(($(meminfo HugePages_Total) * $(meminfo Hugepagesize)))"
rw_check_pages_in_use

# ---- -XX:-UseLargePages: the pages sit idle while the JVM runs
rw_stop
start_jvm -XX:-UseLargePages
check "-XX:-UseLargePages: none in use (/proc/meminfo)" 0 "$(rw_in_use)"
check "-XX:-UseLargePages: java maps no HugePages (smaps_rollup)" 0 "$(hugetlb_kb "$jvm_pid")"
hr 2 "verify: pages unused is drift" --json verify
check "the check: drift" '"drift"' "$(use_check .status)"
use_check .hint >"$tmp/hint"
check_contains "hint: all free" "all HugePages free while" "$tmp/hint"
# another server of the host may run too: this one is named among them
check_contains "hint: names java" "java (pid $jvm_pid)" "$tmp/hint"
check_contains "hint: large pages off in its configuration" "-XX:+UseLargePages" "$tmp/hint"
hr 0 "status: text" status
check_contains "status: the process" "java pid $jvm_pid (java)" "$tmp/out"
check_contains "status: verify's drift" "Verify:           drift" "$tmp/out"

# ---- the settle window (issue 39, item 1): a workload that takes its
# pages a few seconds after verify starts, as a JVM the boot-time verify
# unit starts right after. A small program named java (its comm is what
# the facts classify) waits 3 s, then maps half the pool and more with
# mmap(MAP_HUGETLB), which reserves the pages at once (HugePages_Rsvd).
rw_stop
cat >"$rw_work/late.c" <<'EOC'
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv) {
        size_t bytes = strtoull(argv[1], NULL, 10);
        sleep(3);
        if (mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0) == MAP_FAILED)
                return 1;
        pause();
        return 0;
}
EOC
if cc -O0 -o "$rw_work/java" "$rw_work/late.c" 2>"$rw_work/cc.log"; then
        chmod a+rx "$rw_work/java"
        half=$(( (asked + 1) / 2 + 1 ))
        setpriv --reuid="$user" --regid="$group" --clear-groups "$rw_work/java" $((half * pagesz)) &
        jvm_pid=$!
        sleep 0.3  # exec'd: its comm is java
        hr 0 "verify --settle 30: the late process takes its pages within the window" --json verify --settle 30
        check "settle: the check is ok" '"ok"' "$(use_check .status)"
        use_check .hint >"$tmp/hint"
        check_contains "settle: it says verify waited for it" "after verify started: pid $jvm_pid" "$tmp/hint"
        check_between "settle: the pages are reserved now" "$half" "$(rw_in_use)" "$asked"
        rw_stop
        setpriv --reuid="$user" --regid="$group" --clear-groups "$rw_work/java" $((half * pagesz)) &
        jvm_pid=$!
        sleep 0.3
        hr 2 "verify --settle 0: the same process judged at once is drift" --json verify --settle 0
        check "no window: drift" '"drift"' "$(use_check .status)"
        rw_stop
else
        skip "the settle window on the real kernel" "no C compiler: $(head -c 200 "$rw_work/cc.log")"
fi

# ---- restore
rw_stop
hr 0 "rollback" rollback
rw_check_restored
check "no java of this test left" no "$(pgrep -f "$rw_work" >/dev/null && echo yes || echo no)"
finish
