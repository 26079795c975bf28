#!/bin/sh
# On the real machine (root "/"): the memory and HugePages facts agree
# with /proc/meminfo read independently. Read-only. Needs jq.
set -u
. "${top_srcdir:-.}/tests/integration/lib.sh"
top_builddir=${top_builddir:-.}
DUMP=$top_builddir/tests/facts-dump
# real-host-apply.sh resizes the HugePages pool: not while this reads it
real_host_lock

command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq is not installed"; exit 0; }
[ -r /proc/meminfo ] || { echo "1..0 # SKIP no /proc/meminfo"; exit 0; }

json=$("$DUMP") || { echo "Bail out! facts-dump failed"; exit 1; }
n=0
failed=0
check() {
        n=$((n + 1))
        got=$(printf '%s' "$json" | jq -c "$1")
        if [ "$got" = "$2" ]; then
                echo "ok $n - $1 = $2"
        else
                failed=$((failed + 1))
                echo "not ok $n - $1: facts say $got, /proc/meminfo says $2"
        fi
}
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

check .memory.total_kb "$(meminfo MemTotal)"
if grep -q '^HugePages_Total:' /proc/meminfo; then
        check .hugepages.supported true
        check .hugepages.default_size_kb "$(meminfo Hugepagesize)"
        # the pool can change between the two reads only if someone resizes
        # it meanwhile; this test does not
        check .hugepages.total "$(meminfo HugePages_Total)"
        check .hugepages.free "$(meminfo HugePages_Free)"
else
        check .hugepages.supported false
        check .hugepages.total null
fi
check .kernel.release "$(jq -Rc . /proc/sys/kernel/osrelease)"
echo "1..$n"
[ "$failed" -eq 0 ]
