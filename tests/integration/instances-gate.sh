#!/bin/sh
# Issue 37, instances: several mariadb@NAME.service instances enabled at
# once. No one unit runs them all, so the mysql profile names their
# template, mariadb@.service, whose drop-in systemd reads for every
# instance (systemd.unit(5): "For templates, dropins for the template ...
# are read"): the gate line runs "hosttune gate %n" (each instance's own
# name), the LimitMEMLOCK is the largest instance's (a per-process limit),
# rollback removes the drop-in, and each instance's gate checks its own
# pages.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/instances-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
P="--profile-path $top_srcdir/profiles --rules-path $top_srcdir/rules"

# the compose-finish.sh fixture: Debian 12 with Debian's mariadb@.service
# (MariaDB's support-files/mariadb@.service.in) and two enabled instances
h=$(copy_host debian12-kvm); scratch "$h"
add_instances "$h"
echo 'mysql:x:991:991::/var/lib/mysql:/usr/sbin/nologin' >>"$h/etc/passwd"
echo 'mysql:x:991:' >>"$h/etc/group"
D=$h/etc/systemd/system/mariadb@.service.d/hosttune.conf
ht() { "$HOSTTUNE" --root "$h" $P "$@" >"$tmp/out" 2>"$tmp/err"; }

ht --json facts
check "facts: the instances' template, the largest instance's large pages (2G + 32M + 128M + 2 * 64M)" \
        "mariadb@.service 2449473536" \
        "$(jq -r '.workload.mysql | "\(.template) \(.instance_large_pages_max)"' "$tmp/out")"

# hugepages_sysv=true: MariaDB 10.4 and older (SysV segments), where the
# unit needs LimitMEMLOCK
ht --json plan mysql --set hugepages_sysv=true
check "plan: the template's gate, warn" "warn" \
        "$(jq -r '.changes[] | select(.key == "mariadb@.service StartGate") | .desired' "$tmp/out")"
# sales: 2449473536 bytes = 1168 pages of 2 MB (not the pool's 1842)
check "plan: the template's LimitMEMLOCK, the largest instance's pages" "$((1168 * 2097152))" \
        "$(jq -r '.changes[] | select(.key == "mariadb@.service LimitMEMLOCK") | .bound_value' "$tmp/out")"
check "plan: the notes name the instances, not the template (which cannot be restarted)" \
        "takes effect when mariadb@*.service is restarted" \
        "$(jq -r '.changes[] | select(.key == "mariadb@.service LimitMEMLOCK") | .note' "$tmp/out")"
check "plan: no gate or memlock for mysqld.service (main's fallback)" "0" \
        "$(jq '[.changes[] | select(.key == "mysqld.service StartGate" or .key == "mysqld.service LimitMEMLOCK")] | length' "$tmp/out")"
ht apply mysql --set hugepages_sysv=true
check "apply: exit 0" 0 $?
check "apply: the template's drop-in runs the gate for each instance (%n)" "ok" \
        "$(grep -qE '^ExecStartPre=-\+/[^ ]*/hosttune gate %n$' "$D" && echo ok)"
check "apply: ... with the largest instance's memlock" "ok" \
        "$(grep -qx "LimitMEMLOCK=$((1168 * 2097152))" "$D" && echo ok)"
check "apply: no instance or mysqld.service drop-in" "" \
        "$(ls "$h/etc/systemd/system" | grep -E '^(mariadb@[a-z]+|mysqld|mariadb)\.service\.d$')"
# systemd reads the template's drop-in for an instance, with %n expanded
if command -v systemd-analyze >/dev/null 2>&1; then
        SYSTEMD_LOG_LEVEL=debug systemd-analyze --root="$h" verify mariadb@sales.service >"$tmp/sd" 2>&1
        check "systemd: the instance runs the gate on its own name" "ok" \
                "$(grep -q '^[[:space:]]*Command Line: /.*/hosttune gate mariadb@sales.service$' "$tmp/sd" &&
                        ! grep -q 'hosttune.conf:.*ignoring' "$tmp/sd" && echo ok)"
else
        skip "systemd: the instance runs the gate on its own name" "systemd-analyze is not installed"
fi
ht --json verify
check "verify: the template's gate and memlock are kept" "ok ok" \
        "$(jq -r '[.checks[] | select(.key == "mariadb@.service StartGate" or .key == "mariadb@.service LimitMEMLOCK") | .status] | join(" ")' "$tmp/out")"

# each instance's gate: its own pages (sales 1168, reports 1409286144
# bytes = 672), and the template's memlock as the instance gets it
sed -i -e "s/^HugePages_Total:.*/HugePages_Total:    1842/" -e "s/^HugePages_Free:.*/HugePages_Free:     700/" \
        -e "s/^HugePages_Rsvd:.*/HugePages_Rsvd:     0/" "$h/proc/meminfo"
"$HOSTTUNE" --root "$h" --json gate --refuse mariadb@sales.service >"$tmp/out" 2>"$tmp/err"
check "gate sales, 700 free: its own 1168 pages, refused" "2 short 1168" \
        "$? $(jq -r '[.checks[] | select(.check == "hugepages") | "\(.status) \(.expected)"][0]' "$tmp/out")"
check "gate sales: the template's memlock reaches it" "ok" \
        "$(jq -r '.checks[] | select(.check == "memlock") | .status' "$tmp/out")"
"$HOSTTUNE" --root "$h" --json gate --refuse mariadb@reports.service >"$tmp/out" 2>"$tmp/err"
check "gate reports, 700 free: its own 672 pages, ok" "0 ok 672" \
        "$? $(jq -r '[.checks[] | select(.check == "hugepages") | "\(.status) \(.expected)"][0]' "$tmp/out")"

ht rollback
check "rollback: exit 0, the template's drop-in removed" "0 gone" \
        "$? $(test -e "$D" && echo there || echo gone)"

echo "1..$n"
[ "$failed" = 0 ]
