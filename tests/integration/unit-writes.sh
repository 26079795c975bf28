#!/bin/sh
# Issue 38: "verify blames a unit's own ExecStartPre". Besides
# "sysctl -w KEY=VALUE" (tuners.sh), units write values with the shell:
# ExecStartPre=/bin/sh -c 'echo never > /sys/kernel/mm/transparent_hugepage/enabled'
# and "echo 60 >/proc/sys/vm/swappiness" or "| tee". plan names each such
# write that undoes hosttune's value with the unit file's line, explain
# lists it, and verify blames the unit when the value is the one it writes.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
thp=/sys/kernel/mm/transparent_hugepage/enabled

h=$(prepare_host ol8-bls); scratch "$h"
mkdir -p "$h/usr/lib/systemd/system" "$h/etc/systemd/system/multi-user.target.wants"
cat >"$h/usr/lib/systemd/system/dbprep.service" <<UNIT
[Unit]
Description=database host preparation

[Service]
Type=oneshot
ExecStartPre=/bin/sh -c 'echo always > $thp'
ExecStart=/bin/sh -c "echo 60 >/proc/sys/vm/swappiness; echo -n 1 | tee -a /proc/sys/kernel/numa_balancing"
ExecStartPost=/bin/true
UNIT
ln -s /usr/lib/systemd/system/dbprep.service "$h/etc/systemd/system/multi-user.target.wants/dbprep.service"
unit=$h/usr/lib/systemd/system/dbprep.service
who="dbprep.service (enabled: /etc/systemd/system/multi-user.target.wants/dbprep.service)"

htrun 2 "plan oracle with a unit that writes THP's mode and swappiness" "$h" --color=never plan oracle
check_contains "plan: the unit's sysfs write, its file and line" \
        "warning: $who sets $thp = always ($unit:6) at dbprep.service's start (ExecStartPre=): it undoes hosttune's" "$tmp/out"
check_contains "plan: the unit's /proc/sys write" \
        "warning: $who sets vm.swappiness = 60 ($unit:7) at dbprep.service's start (ExecStart=)" "$tmp/out"
check_contains "plan: what to do" "remove the write from dbprep.service, or give the profile the same value" "$tmp/out"

htrun 0 "explain $thp" "$h" --json explain "$thp"
check "explain: the unit's write listed" "unit always $unit:6" \
        "$(jq -r '.tuners[] | "\(.tuner) \(.value) \(.source)"' "$tmp/out")"
htrun 0 "explain kernel.numa_balancing (| tee -a)" "$h" --json explain kernel.numa_balancing
check "explain: a tee write listed" "unit 1 $unit:7" \
        "$(jq -r '.tuners[] | "\(.tuner) \(.value) \(.source)"' "$tmp/out")"

htrun 0 "apply oracle" "$h" apply oracle
# the unit starts after the apply and writes its mode
echo '[always] madvise never' >"$h$thp"
htrun 2 "verify after the unit wrote THP's mode" "$h" --json verify
check "verify blames the unit's ExecStartPre, with its line" \
        "always changed since apply: $who sets $thp = always ($unit:6) at dbprep.service's start (ExecStartPre=); remove the write from dbprep.service, or give the profile the same value" \
        "$(jq -r --arg k "$thp" '.checks[] | select(.key == $k) | "\(.actual) \(.hint)"' "$tmp/out")"
echo "1..$n"
[ "$failed" -eq 0 ]
