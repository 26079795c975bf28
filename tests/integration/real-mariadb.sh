#!/bin/sh
# A real MariaDB (Debian's mariadb-server), started by the test, not as a
# service (issue 20, part 4): a temporary datadir (mariadb-install-db), a
# private socket, no TCP port, large-pages=1 in its option file. First it
# runs before the apply (the pages are not there yet: verify reports it
# was not restarted since); restarted, it takes them, and status and
# verify see them in use; restarted with large-pages=0 the pages sit
# idle, which verify reports as drift (exit 2). Then rollback, and the
# host is checked to be as before. Root only (real-workload-lib.sh).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)
[ -x "$mariadbd" ] && command -v mariadb-install-db >/dev/null 2>&1 ||
        skip_all "mariadb-server is not installed (mariadbd, mariadb-install-db)"
getent passwd mysql >/dev/null || skip_all "no mysql user (mariadb-server makes it)"
# MariaDB maps its pool with mmap(MAP_HUGETLB): no memlock limit and no
# limits.d line since issue 33 (hugepages_sysv off); the mysql profile
# sets no file limits of its own. The unit's drop-in carries the start
# gate (issue 37: ExecStartPre= hosttune gate mariadb.service).
rw_dropins="/etc/sysctl.d/90-hosttune.conf /etc/udev/rules.d/99-hosttune-block.rules /etc/systemd/system/mariadb.service.d/hosttune.conf"
rw_stop() {
        [ -n "${db_pid:-}" ] || return 0
        kill "$db_pid" 2>/dev/null
        i=0
        while kill -0 "$db_pid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$db_pid" 2>/dev/null
        db_pid=""
}
. "$top_srcdir/tests/integration/real-workload-lib.sh"

# the server's option file, where the server reads it (--defaults-file)
# and where the facts read a host's (/etc/mysql/my.cnf, in the tree)
cnf_file=$CROOT/etc/mysql/my.cnf
mkdir -p "$CROOT/etc/mysql"
datadir=$rw_work/data
run=$rw_work/run  # socket, pid file, error log: the server's user writes them
mkdir "$datadir" "$run" && chown mysql:mysql "$datadir" "$run"
# MariaDB's "Huge Pages" (MariaDB documentation, "MariaDB Memory
# Allocation"; the large_pages system variable): large-pages=1 puts the
# InnoDB buffer pool in HugePages with mmap(MAP_HUGETLB). The key cache
# and the Aria page cache take large pages too, and first: at 1M (less
# than one 2 MiB page) they stay in ordinary pages, so the pool gets the
# pages hosttune sized for it. InnoDB's two redo log buffers
# (innodb_log_buffer_size each) take large pages after the pool.
cnf() {
        cat >"$cnf_file" <<EOF
[mariadbd]
datadir=$datadir
socket=$run/mysqld.sock
pid-file=$run/mysqld.pid
log-error=$run/error.log
skip-networking
tmpdir=$run
large-pages=$1
innodb_buffer_pool_size=256M
key_buffer_size=1M
aria_pagecache_buffer_size=1M
innodb_log_buffer_size=16M
EOF
        chmod 0644 "$cnf_file"
}
cnf 1
# the server's command line names its file by the machine's path; the
# facts read that command line (hosttune >= audit-work) inside the
# confined root, where the same path must lead to the same file
mkdir -p "$CROOT$(dirname "$cnf_file")" && ln -s /etc/mysql/my.cnf "$CROOT$cnf_file"
# the server's temporary files go where its user may write: a package
# build's TMPDIR is root's own 0700 directory
TMPDIR=$run mariadb-install-db --defaults-file="$cnf_file" --user=mysql --skip-test-db \
        --auth-root-authentication-method=normal >"$rw_work/install.log" 2>&1
check "mariadb-install-db makes the datadir" 0 $?

# start: as systemd would, with the memlock limit the unit gets (hosttune's
# LimitMEMLOCK, read from the drop-in it wrote). A container without
# CAP_SYS_RESOURCE cannot raise it: mmap(MAP_HUGETLB) does not count
# against RLIMIT_MEMLOCK (only SysV SHM_HUGETLB outside
# vm.hugetlb_shm_group does: kernel Documentation/admin-guide/mm/hugetlbpage.rst),
# so the server still takes its pages with the limit it has.
start_db() {
        memlock=$(sed -n 's/^LimitMEMLOCK=//p' "$CROOT/etc/systemd/system/mariadb.service.d/hosttune.conf" 2>/dev/null)
        rm -f "$run/mysqld.pid"
        ( [ -z "$memlock" ] || ulimit -l $((memlock / 1024)) 2>/dev/null ||
                echo "# cannot raise the memlock limit to $memlock bytes here; kept $(ulimit -l) kB"
          TMPDIR=$run exec "$mariadbd" --defaults-file="$cnf_file" --user=mysql </dev/null >>"$rw_work/stdout.log" 2>&1) &
        bg=$!
        i=0
        until [ -S "$run/mysqld.sock" ] && [ -s "$run/mysqld.pid" ] || ! kill -0 "$bg" 2>/dev/null || [ $i -ge 600 ]
        do sleep 0.1; i=$((i + 1)); done
        db_pid=$(cat "$run/mysqld.pid" 2>/dev/null)
        if [ -n "$db_pid" ] && kill -0 "$db_pid" 2>/dev/null; then ok "mariadbd started (pid $db_pid)"
        else not_ok "mariadbd did not start: $(tail -c 600 "$run/error.log" "$rw_work/stdout.log" 2>&1)"; db_pid=""; fi
}
start_db
# its start time must be before the apply's, second by second
sleep 2

# ---- apply mysql, sized from the server's own option file (no --set of
# the pool): on MariaDB the buffer pool, the key cache and the Aria page
# cache, 256M + 1M + 1M. thp= keeps THP and the kernel command line out
# (the test cannot restore a bootloader change; real-host-apply.sh does
# THP). The server was started by the test, not as a service, and runs
# as mysql: --set mysql_user names that user, so its process is trusted
# (issue 32; the sizes come from the option file either way).
set_args="--set thp= --set mysql_user=mysql"
# shellcheck disable=SC2086
hr 2 "plan mysql on the real host" --json plan mysql $set_args
cp "$tmp/out" "$tmp/plan.json"
rw_check_plan "$tmp/plan.json"
if [ "$failed" -gt 0 ]; then
        echo "# the plan would touch more than this test restores; not applying"
        finish
fi
# shellcheck disable=SC2086
hr 0 "apply mysql on the real host" --json apply mysql $set_args
asked=$(cat /proc/sys/vm/nr_hugepages)
# what the option file asks for in large pages (pool, key cache, Aria
# page cache, the two log buffers), read from the file here, in whole
# pages, and the slack of rules/10-hugepages.rules (hugepage_slack = 2)
pagesz_kb=$(meminfo Hugepagesize)
cnf_kb=$(awk -F= '$1 == "innodb_buffer_pool_size" || $1 == "key_buffer_size" || $1 == "aria_pagecache_buffer_size" {
        v = $2; sub(/M$/, "", v); s += v * 1024 }
        $1 == "innodb_log_buffer_size" { v = $2; sub(/M$/, "", v); s += 2 * v * 1024 } END { print s }' "$cnf_file")
pool_kb=$((256 * 1024)) logbuf_kb=$((16 * 1024))
want_pages=$(( (cnf_kb + pagesz_kb - 1) / pagesz_kb + 2 ))
check "vm.nr_hugepages sized from the server's option file (no --set)" "$want_pages" "$asked"
check "the kernel has them all" "$asked" "$(meminfo HugePages_Total)"

# ---- not restarted since the apply: the server runs without them
hr 2 "verify: mariadbd runs without its pages" --json verify
check "the check: drift" '"drift"' "$(use_check .status)"
check "actual: all free" "\"0 in use ($asked free, 0 reserved)\"" "$(use_check .actual)"
use_check .hint >"$tmp/hint"
check_contains "hint: not restarted since the apply" "not restarted since the apply:" "$tmp/hint"
sed -n 's/.*not restarted since the apply: \(.*\) started before it.*/\1/p' "$tmp/hint" >"$tmp/stale"
check_contains "hint: this mariadbd started before the apply" "mariadbd (pid $db_pid)" "$tmp/stale"

# ---- restarted: the pool takes its pages
rw_stop
start_db
used=$(rw_in_use)
# the pool's pages and then both log buffers' (each a mapping of its
# own): all there only when the plan counted the log buffers
want_used=$(( (pool_kb + 2 * logbuf_kb) / pagesz_kb ))
if [ "$used" -ge "$want_used" ]; then ok "the buffer pool and the two log buffers took their pages ($used in use, read from /proc/meminfo)"
else not_ok "only $used HugePages in use after the restart (the pool and the log buffers need $want_used): $(grep -i 'large\|huge' "$run/error.log" | head -c 600)"; fi
if [ "$(hugetlb_kb "$db_pid")" -gt 0 ]; then ok "mariadbd maps HugePages (smaps_rollup: $(hugetlb_kb "$db_pid") kB)"
else not_ok "mariadbd maps no HugePages (smaps_rollup)"; fi
check_process "$db_pid" mariadbd
# the pool is mapped whole, reserved or faulted in: 256 MiB at least
check_between "status: HugePages mapped cover the pool" 262144 "$(jq "$sel | .hugetlb_mapped_kb" "$tmp/status.json")" \
        "$(($(meminfo HugePages_Total) * $(meminfo Hugepagesize)))"
rw_check_pages_in_use

# ---- large-pages=0: the pages sit idle while the server runs
rw_stop
cnf 0
start_db
check "large-pages=0: none in use (/proc/meminfo)" 0 "$(rw_in_use)"
check "large-pages=0: mariadbd maps no HugePages (smaps_rollup)" 0 "$(hugetlb_kb "$db_pid")"
hr 2 "verify: pages unused is drift" --json verify
check "the check: drift" '"drift"' "$(use_check .status)"
use_check .hint >"$tmp/hint"
check_contains "hint: all free" "all HugePages free while" "$tmp/hint"
# another server of the host may run too: this one is named among them
check_contains "hint: names mariadbd" "mariadbd (pid $db_pid)" "$tmp/hint"
check_contains "hint: large pages off in its configuration" "large_pages=ON" "$tmp/hint"
hr 2 "verify text: the DRIFT line" verify
check_contains "text: DRIFT" "DRIFT    hugepages HugePages in use: expected $asked in use" "$tmp/out"
hr 0 "status: text" status
check_contains "status: the process" "mariadbd pid $db_pid (mysql)" "$tmp/out"
check_contains "status: verify's drift" "Verify:           drift" "$tmp/out"

# ---- restore
rw_stop
hr 0 "rollback" rollback
rw_check_restored
check "no mariadbd of this test left" no "$(pgrep -f "$cnf_file" >/dev/null && echo yes || echo no)"
finish
