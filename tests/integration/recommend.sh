#!/bin/sh
# recommend on the fixture hosts: the profile, its evidence (files and
# pids, checked against the fixture's own files), ties, no match, an
# offline image, bad input. Needs jq. TAP output.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq is not installed"; exit 0; }
H=$(cd "$HOSTS" && pwd)

rec() { # HOST: recommend --json into $tmp/HOST.json
        "$HOSTTUNE" --root "$2" recommend --json >"$tmp/$1.json" 2>"$tmp/$1.err"
        check "$1: recommend exits 0" 0 $?
}
q() { jq -c "$2" "$tmp/$1.json"; }

# ---- the workload facts, field by field against the fixture files
for h in oracle-running debian12-kvm alinux3-hugetext; do
        "$HOSTTUNE" --root "$H/$h" facts --json >"$tmp/facts-$h.json" 2>/dev/null
        want=$(for d in "$H/$h"/proc/[0-9]*; do
                c=$(cat "$d/comm"); a=$(tr '\0' '\n' <"$d/cmdline" | head -n1); a=${a##*/}
                case "$a:$c" in ora_*|*:ora_*|mysqld:*|*:mysqld|mariadbd:*|*:mariadbd|java:*|*:java) basename "$d";; esac
        done | sort -n | paste -sd, -)
        check "$h: workload.processes are the ora_*/mysqld/mariadbd/java pids" "[$want]" \
                "$(jq -c '[.workload.processes[].pid]' "$tmp/facts-$h.json")"
done
check "oracle-running: oracle uid from /etc/passwd" \
        "$(awk -F: '$1 == "oracle" { print $3 }' "$H/oracle-running/etc/passwd")" \
        "$(jq -c .workload.oracle.uid "$tmp/facts-oracle-running.json")"
check "oracle-running: oratab SIDs" \
        "$(grep -v '^#' "$H/oracle-running/etc/oratab" | grep : | cut -d: -f1 | jq -Rsc 'split("\n") | map(select(. != ""))')" \
        "$(jq -c .workload.oracle.sids "$tmp/facts-oracle-running.json")"
check "oracle-running: the OEM agent's -Xmx1024m" 1073741824 \
        "$(jq -c '.workload.processes[] | select(.pid == 2210) | .max_heap_bytes' "$tmp/facts-oracle-running.json")"
check "debian12-kvm: -Xmx8g and -Xmx512m" "[8589934592,536870912]" \
        "$(jq -c '[.workload.processes[] | .max_heap_bytes]' "$tmp/facts-debian12-kvm.json")"
check "alinux3-hugetext: mariadb unit and binary" \
        '["/usr/lib/systemd/system/mariadb.service"]["/usr/libexec/mariadbd"]' \
        "$(jq -c '.workload.mysql.units, .workload.mysql.binaries' "$tmp/facts-alinux3-hugetext.json" | tr -d '\n')"
check "debian12-kvm: no oracle" '{"user":null,"uid":null,"oratab":null,"sids":null,"databases":null,"sga_bytes":0,"sga_bytes_from":null,"use_large_pages_true":null,"owner":null,"owner_from":null,"unit":null,"unit_from":null,"inventory_group":null,"inventory_group_from":null,"not_used":[]}' \
        "$(jq -c .workload.oracle "$tmp/facts-debian12-kvm.json")"

# ---- Oracle running, with an OEM agent JVM beside it
H_OR=$H/oracle-running
rec oracle "$H_OR"
check "oracle-running: oracle" '"oracle"' "$(q oracle .profile)"
check "oracle-running: score 1+2+5+3" 11 "$(q oracle .score)"
check "oracle-running: pmon evidence names pid 1234" '[1234]' \
        "$(q oracle '[.candidates[0].evidence[] | select(.what | startswith("ora_pmon_ORCL")) | .pid]')"
check "oracle-running: evidence sources" '["/etc/passwd","/etc/oratab","/proc/1234","/proc/sysvipc/shm"]' \
        "$(q oracle '[.candidates[0].evidence[].source]')"
segs=$(awk 'NR > 1 && $8 == 54321 { n++ } END { print n }' "$H_OR/proc/sysvipc/shm")
check "oracle-running: the segments of uid 54321 counted" true \
        "$(q oracle "[.candidates[0].evidence[].what] | any(startswith(\"$segs SysV shared memory segments\"))")"
# the OEM agent runs in the oracle user's login session (its cgroup): found,
# not trusted, no points (issue 32)
check "oracle-running: the agent's JVM is evidence with no points" '[2210] 0' \
        "$(q oracle '[.candidates[2].evidence[].pid], .candidates[2].score' | paste -sd' ' -)"
check "oracle-running: why: only oracle's evidence" true "$(q oracle '.why | contains("only oracle")')"
check "oracle-running: size HugePages from the running SGA" '["hugepages_from=shm"]' "$(q oracle .sets)"
run 0 "oracle-running: text" --root "$H_OR" recommend
check_contains "text: the recommendation" "Recommended profile: oracle (score 11)" "$tmp/out"
check_contains "text: evidence with pid and file" "ora_pmon_ORCL is running (instance ORCL) (pid 1234, /proc/1234)" "$tmp/out"
check_contains "text: the next command" "Next: hosttune plan oracle --set hugepages_from=shm" "$tmp/out"

# ---- MariaDB, a JVM host, nothing
rec mysql "$H/alinux3-hugetext"
check "alinux3-hugetext: mysql, score 2+2+5" '"mysql" 9' "$(q mysql '.profile, .score' | paste -sd' ' -)"
# mariadbd runs in mariadb.service (its cgroup), which the plain plan finds
# itself: nothing to name (issue 39)
check "alinux3-hugetext: no --set: the plan finds the server's unit" '[]' "$(q mysql .sets)"
check "alinux3-hugetext: mariadbd pid" '[812]' "$(q mysql '[.candidates[1].evidence[] | select(.pid) | .pid]')"
# the server runs in mariadb.service (its cgroup): the plain plan takes
# that unit itself, so recommend names no --set for it (issue 39)
A=$(copy_host alinux3-hugetext); scratch "$A"
echo "0::/system.slice/mariadb.service" >"$A/proc/812/cgroup"
rec mysql-unit "$A"
check "a server running in its unit: no --set mysql_unit" '[]' "$(q mysql-unit .sets)"
check_contains "its plan command is the plain one" '"hosttune plan mysql"' "$tmp/mysql-unit.json"
rec jvm "$H/debian12-kvm"
check "debian12-kvm: jvm, running + large heap" '"jvm" 5' "$(q jvm '.profile, .score' | paste -sd' ' -)"
check "debian12-kvm: both JVMs are evidence" '[3001,3050]' "$(q jvm '[.candidates[2].evidence[].pid]')"
for h in ol8-bls rhel5-xen container; do
        rec "$h" "$H/$h"
        check "$h: base" '"base" 0' "$(q "$h" '.profile, .score' | paste -sd' ' -)"
        check "$h: no match explained" true "$(q "$h" '.why | startswith("no Oracle Database, MySQL/MariaDB or JVM was found")')"
done
run 0 "ol8-bls: text" --root "$H/ol8-bls" recommend
check_contains "base: the reason" "Why: no Oracle Database" "$tmp/out"

# ---- Debian 12's mariadb-server (issue 33): merged /usr (/lib a link to
# usr/lib), mariadb.service in /usr/lib/systemd/system with mysql.service
# and mysqld.service linked to it there, as `dpkg -L mariadb-server` lists
# them (under /lib: the package's paths, which merged /usr keeps as the
# same files): one unit, one evidence line, scored once
D=$(copy_host debian12-kvm); scratch "$D"
mkdir -p "$D/usr/lib/systemd/system" "$D/usr/sbin"
rm -rf "$D/lib"; ln -s usr/lib "$D/lib"
printf '[Unit]\nDescription=MariaDB 10.11.14 database server\n[Service]\nType=notify\nUser=mysql\nExecStart=/usr/sbin/mariadbd $MYSQLD_OPTS\n[Install]\nWantedBy=multi-user.target\nAlias=mysql.service\nAlias=mysqld.service\n' \
        >"$D/usr/lib/systemd/system/mariadb.service"
ln -s mariadb.service "$D/usr/lib/systemd/system/mysql.service"
ln -s mariadb.service "$D/usr/lib/systemd/system/mysqld.service"
: >"$D/usr/sbin/mariadbd"; chmod 755 "$D/usr/sbin/mariadbd"
rec deb "$D"
check "debian12 mariadb: one evidence line for the unit, its aliases folded in" \
        '["unit mariadb.service is installed (aliases mysql.service, mysqld.service)","server binary mariadbd is installed"]' \
        "$(q deb '[.candidates[1].evidence[].what]')"
check "debian12 mariadb: the unit's source is its file, not a link or the /lib copy" \
        '"/usr/lib/systemd/system/mariadb.service"' "$(q deb '.candidates[1].evidence[0].source')"
check "debian12 mariadb: score 2 (unit, once) + 2 (binary)" 4 "$(q deb '.candidates[1].score')"
"$HOSTTUNE" --root "$D" facts --json >"$tmp/facts-deb.json" 2>/dev/null
check "debian12 mariadb: facts still list every path (six: three names, /usr/lib and /lib)" 6 \
        "$(jq '.workload.mysql.units | length' "$tmp/facts-deb.json")"
run 0 "debian12 mariadb: text" --root "$D" recommend
check "debian12 mariadb: text names the unit once" 1 "$(grep -c 'unit .*\.service is installed' "$tmp/out")"
# a unit of its own under /etc beside the vendor's: one line too (systemd
# loads one unit of a name), its source the /etc file systemd reads
mkdir -p "$D/etc/systemd/system"; cp "$D/usr/lib/systemd/system/mariadb.service" "$D/etc/systemd/system/"
rec deb2 "$D"
check "debian12 mariadb + /etc copy: still one line, from /etc" \
        '[["unit mariadb.service is installed (aliases mysql.service, mysqld.service)","/etc/systemd/system/mariadb.service"]]' \
        "$(q deb2 '[.candidates[1].evidence[] | select(.what | startswith("unit ")) | [.what, .source]]')"
# MySQL's own mysqld.service beside MariaDB's unit: two units, two lines, scored once
rm "$D/etc/systemd/system/mariadb.service" "$D/usr/lib/systemd/system/mysqld.service"
cp "$D/usr/lib/systemd/system/mariadb.service" "$D/usr/lib/systemd/system/mysqld.service"
rec deb3 "$D"
check "two real units: two lines" '["unit mysqld.service is installed","unit mariadb.service is installed (alias mysql.service)"]' \
        "$(q deb3 '[.candidates[1].evidence[] | select(.what | startswith("unit ")) | .what]')"
check "two real units: the unit points counted once" 4 "$(q deb3 '.candidates[1].score')"

# ---- a tie: a big JVM and a running mysqld, 5 each: the database wins
T=$(copy_host ol8-bls); scratch "$T"
mkdir -p "$T/proc/500" "$T/proc/600"
echo java >"$T/proc/500/comm"; printf '/usr/bin/java\0-Xmx16g\0-jar\0x.jar\0' >"$T/proc/500/cmdline"
echo mysqld >"$T/proc/600/comm"; printf '/usr/sbin/mysqld\0' >"$T/proc/600/cmdline"
# system services (OL8: cgroup v1), so both count
printf '1:name=systemd:/system.slice/app.service\n' >"$T/proc/500/cgroup"
printf '1:name=systemd:/system.slice/mysqld.service\n' >"$T/proc/600/cgroup"
rec tie "$T"
check "tie: mysql and jvm score 5" '[0,5,5]' "$(q tie '[.candidates[].score]')"
check "tie: mysql chosen" '"mysql"' "$(q tie .profile)"
check "tie: explained" true "$(q tie '.why | contains("mysql and jvm tie at score 5") and contains("database profiles come before jvm")')"

# ---- an offline image: installed evidence only
I=$tmp/image
mkdir -p "$I"
(cd "$H_OR" && tar cf - --exclude=./proc --exclude=./sys .) | (cd "$I" && tar xf -)
rec image "$I"
check "image: oracle from passwd and oratab" '"oracle" 3' "$(q image '.profile, .score' | paste -sd' ' -)"

# ---- bad input
run 1 "an argument is refused" --root "$H_OR" recommend oracle
check_contains "says why" "takes no arguments" "$tmp/err"
run 1 "a missing root" --root "$tmp/nonexistent" recommend
check_contains "names it" "cannot open root directory" "$tmp/err"
# junk in the process table: no crash, nothing recognised
J=$(copy_host debian12-kvm); scratch "$J"
printf '\001\377ora_\n' >"$J/proc/3001/comm"; printf '\377\376' >"$J/proc/3001/cmdline"
printf 'java\0-Xmx\0-Xmx99999999999999999999g\0-Xmxjunk\0' >"$J/proc/3050/cmdline"
printf '0::/system.slice/tool.service\n' >"$J/proc/3050/cgroup"  # trusted: its evidence counts
mkdir -p "$J/proc/99999999999" "$J/proc/12ab"
rec junk "$J"
check "junk: the garbled process is not taken" '[3050]' "$(q junk '[.candidates[2].evidence[].pid]')"
check "junk: no heap from junk -Xmx" true "$(q junk '.candidates[2].evidence[0].what | contains("heap size not given")')"

finish
