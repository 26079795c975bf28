#!/bin/sh
# Issue 37, the start gate: apply adds to the unit HugePages are sized for
# a drop-in line ExecStartPre= running `hosttune gate UNIT` (warn: "-" and
# never stops a start; refuse: stops it, and plan says so), rollback
# removes it; `hosttune gate` checks free HugePages (free minus reserved),
# the unit's effective LimitMEMLOCK, THP and the booted command line
# against the last apply, with no plan. And Oracle, whose instances start
# outside systemd: plan and verify advise use_large_pages=ONLY.
# On copies of fixture hosts: MariaDB (mariadb.service, alias
# mysqld.service) with the mysql profile and a 1 GB buffer pool (512 pages
# of 2 MB; vm.nr_hugepages 514 with the slack).
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
P="--profile-path $top_srcdir/profiles --rules-path $top_srcdir/rules"
d=$(copy_host debian12-kvm); scratch "$d"
mkdir -p "$d/usr/lib/systemd/system"
printf '[Unit]\nDescription=MariaDB\n[Service]\nUser=mysql\nExecStart=/usr/sbin/mariadbd\n[Install]\nAlias=mysqld.service mysql.service\n' \
        >"$d/usr/lib/systemd/system/mariadb.service"
echo 'mysql:x:991:991::/var/lib/mysql:/usr/sbin/nologin' >>"$d/etc/passwd"
echo 'mysql:x:991:' >>"$d/etc/group"
D=$d/etc/systemd/system/mariadb.service.d/hosttune.conf
ht() { "$HOSTTUNE" --root "$d" $P --color=never "$@"; }
# pages TOTAL FREE RSVD: the fixture kernel's HugePages
pages() {
        sed -i -e "s/^HugePages_Total:.*/HugePages_Total:    $1/" -e "s/^HugePages_Free:.*/HugePages_Free:     $2/" \
                -e "s/^HugePages_Rsvd:.*/HugePages_Rsvd:     $3/" "$d/proc/meminfo"
}
gate() { "$HOSTTUNE" --root "$d" gate "$@" >"$tmp/out" 2>"$tmp/err"; }
BP="--set innodb_buffer_pool_size=1G"

# --- plan: the drop-in line and its words, per mode -------------------------
ht plan mysql $BP >"$tmp/plan" 2>&1
check "plan: a start gate for the unit (the profile names its alias)" "mysqld.service StartGate: (unset) → warn (persisted)" \
        "$(grep -o 'mysqld.service StartGate: .*' "$tmp/plan")"
check_contains "plan warn: says it never stops the start" \
        "never keeps it from starting (ExecStartPre=-)" "$tmp/plan"
check "plan warn: the drop-in line, '-' and '+', the installed binary" "ok" \
        "$(grep -qE '^\+ExecStartPre=-\+/[^ ]*/hosttune gate mariadb.service$' "$tmp/plan" && echo ok)"
ht plan mysql $BP --set start_gate=refuse >"$tmp/plan" 2>&1
check_contains "plan refuse: says in words that the unit will not start" \
        "start_gate=refuse: mariadb.service will not start while fewer HugePages are free than it needs" "$tmp/plan"
check_contains "plan refuse: the change's note" "refuse: mariadb.service does not start while" "$tmp/plan"
check "plan refuse: no '-' prefix, --refuse" "ok" \
        "$(grep -qE '^\+ExecStartPre=\+/[^ ]*/hosttune gate --refuse mariadb.service$' "$tmp/plan" && echo ok)"
ht plan mysql $BP --set start_gate=off >"$tmp/plan" 2>&1
check "plan off: no gate, no line" "0" "$(grep -c 'StartGate\|hosttune gate' "$tmp/plan")"
ht plan mysql --set innodb_buffer_pool_size=0 >"$tmp/plan" 2>&1
check "plan: no HugePages sized, no gate" "0" "$(grep -c 'StartGate\|hosttune gate' "$tmp/plan")"
ht plan mysql $BP --set start_gate=sometimes >"$tmp/plan" 2>&1
check "plan: a bad start_gate is an error (exit 1)" 1 $?
check_contains "plan: the error names the values" 'start_gate must be "off", "warn" or "refuse", not "sometimes"' "$tmp/plan"

# the binary the root has (root's, writable by root only), else
# configure's: a build installed in /usr/local/sbin, the packages' /usr/sbin
if [ "$(id -u)" = 0 ]; then
        mkdir -p "$d/usr/local/sbin" "$d/usr/sbin"
        printf '#!/bin/sh\n' >"$d/usr/local/sbin/hosttune"; chmod 0755 "$d/usr/local/sbin/hosttune"
        ht plan mysql $BP >"$tmp/plan" 2>&1
        check "the root's /usr/local/sbin/hosttune" "+ExecStartPre=-+/usr/local/sbin/hosttune gate mariadb.service" \
                "$(grep '^+ExecStartPre=' "$tmp/plan")"
        chmod 0775 "$d/usr/local/sbin/hosttune"
        cp -p "$d/usr/local/sbin/hosttune" "$d/usr/sbin/hosttune"; chmod 0755 "$d/usr/sbin/hosttune"
        ht plan mysql $BP >"$tmp/plan" 2>&1
        check "one group-writable is passed over for root's /usr/sbin/hosttune" \
                "+ExecStartPre=-+/usr/sbin/hosttune gate mariadb.service" "$(grep '^+ExecStartPre=' "$tmp/plan")"
        rm -f "$d/usr/local/sbin/hosttune" "$d/usr/sbin/hosttune"
else
        skip "the root's /usr/local/sbin/hosttune" "not root"
        skip "one group-writable is passed over for root's /usr/sbin/hosttune" "not root"
fi

# --- nothing applied: nothing to check, exit 0 even with --refuse -----------
gate mariadb --refuse
check "gate before any apply: exit 0" 0 $?
check_contains "gate before any apply: says so" "no apply is in effect here: nothing to check" "$tmp/err"

# a journal that cannot be used: warn mode lets the unit start, refuse not
mkdir "$tmp/open-sd"; chmod 0777 "$tmp/open-sd"
"$HOSTTUNE" --root "$d" --state-dir "$tmp/open-sd" gate mariadb >/dev/null 2>"$tmp/err"
check "journal refused, warn: exit 0" 0 $?
check_contains "journal refused: says why" "is writable by group or others" "$tmp/err"
"$HOSTTUNE" --root "$d" --state-dir "$tmp/open-sd" gate --refuse mariadb >/dev/null 2>&1
check "journal refused, --refuse: exit 1" 1 $?

# --- apply (warn), verify ---------------------------------------------------
ht apply mysql $BP >"$tmp/apply" 2>&1
check "apply warn: exit 0" 0 $?
check "apply: the drop-in runs the gate" "ok" \
        "$(grep -qE '^ExecStartPre=-\+/[^ ]*/hosttune gate mariadb.service$' "$D" && echo ok)"
txid=$(ht --json history | jq -r '.transactions[-1].txid')
# systemd's own parser takes the line (prefixes and all): a bad prefix
# would be "Neither a valid executable name nor an absolute path, ignoring"
# sd_parses DESC COMMAND: the unit's ExecStartPre as systemd-analyze reads it
sd_parses() {
        if ! command -v systemd-analyze >/dev/null 2>&1; then skip "$1" "systemd-analyze is not installed"; return; fi
        SYSTEMD_LOG_LEVEL=debug systemd-analyze --root="$d" verify mariadb.service >"$tmp/sd" 2>&1
        check "$1" "ok" "$(grep -q "^[[:space:]]*Command Line: /.*/$2\$" "$tmp/sd" &&
                ! grep -q 'hosttune.conf:.*ignoring' "$tmp/sd" && echo ok)"
}
sd_parses "systemd parses the warn line" "hosttune gate mariadb.service"
ht --json verify >"$tmp/verify.json" 2>/dev/null
check "verify: the gate is kept" "ok" \
        "$(jq -r '.checks[] | select(.key == "mysqld.service StartGate") | .status' "$tmp/verify.json")"

# --- enough free pages: ready --------------------------------------------------
pages 514 514 0
sed -i 's/$/ transparent_hugepage=never/' "$d/proc/cmdline"
gate mariadb
check "enough pages: exit 0" 0 $?
check "enough pages: nothing on stderr" "" "$(cat "$tmp/err")"
check_contains "enough pages: ready, the count and the profile" \
        "hosttune gate: mariadb.service: ready (free HugePages 514 (needs 512), THP never, command line transparent_hugepage=never; profile mysql)" "$tmp/out"
gate mysqld.service --refuse
check "by the alias, --refuse, enough pages: exit 0" 0 $?

# --- too few free: warn (exit 0) with the fix; --refuse exits 2 -------------
pages 514 100 0
gate mariadb.service
check "too few free, warn: exit 0" 0 $?
check_contains "too few free: the shortfall" \
        "needs 512 free HugePages (hugepages_bytes=1073741824 of profile mysql in 2048 kB pages), but 100 are free" "$tmp/err"
check_contains "too few free: who holds them, and how to see it" "fix: other processes hold 414 of them: 'ipcs -m'" "$tmp/err"
check_contains "too few free, warn: starts anyway" "starts anyway (start gate: warn" "$tmp/err"
gate mariadb.service --refuse
check "too few free, --refuse: exit 2" 2 $?
check_contains "too few free, --refuse: refused" "refused: it would start without the HugePages" "$tmp/err"
# free minus reserved: 600 free of which 200 are promised to a mapping
pages 800 600 200
gate mariadb.service --refuse
check "free 600 but 200 reserved: 400 < 512, refused" 2 $?
check_contains "reserved pages named" "(HugePages_Free 600 - HugePages_Rsvd 200, of HugePages_Total 800)" "$tmp/err"
# the pool never allocated: the fix is a reboot
pages 0 0 0
gate mariadb.service
check_contains "pool not allocated: the kernel holds 0 of 514, reboot" "the kernel holds 0 of the 514 pages vm.nr_hugepages asks for" "$tmp/err"
# under systemd, stderr is the journal ($JOURNAL_STREAM names its dev:ino):
# each line with its priority; another stderr gets none
: >"$tmp/j3"; : >"$tmp/j4"
JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/j3") "$HOSTTUNE" --root "$d" gate --refuse mariadb.service >/dev/null 2>>"$tmp/j3"
check "journal stream: the refusal at priority 3 (err)" "ok" \
        "$(grep -q '^<3>hosttune gate: mariadb.service: refused' "$tmp/j3" && echo ok)"
JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/j4") "$HOSTTUNE" --root "$d" gate mariadb.service >/dev/null 2>>"$tmp/j4"
check "journal stream: warn mode at priority 4 (warning)" "ok" \
        "$(grep -q '^<4>hosttune gate: mariadb.service: starts anyway' "$tmp/j4" && echo ok)"
JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/j4") "$HOSTTUNE" --root "$d" gate mariadb.service >/dev/null 2>"$tmp/err"
check "another stderr: no priority prefix" 0 "$(grep -c '^<' "$tmp/err")"

# --- THP wrong, command line missing: reported, never refused ----------------
pages 514 514 0
echo 'always madvise [never]' >"$d/sys/kernel/mm/transparent_hugepage/enabled"
gate mariadb.service
check "THP as wanted in brackets: ready" 0 $?
echo '[always] madvise never' >"$d/sys/kernel/mm/transparent_hugepage/enabled"
sed -i 's/ transparent_hugepage=never//' "$d/proc/cmdline"
gate mariadb.service --refuse
check "THP wrong and a command-line word missing, --refuse: still exit 0" 0 $?
check_contains "THP wrong: said, with the fix" \
        "Transparent HugePages are always, the applied profile wants never (/sys/kernel/mm/transparent_hugepage/enabled); fix: 'echo never >" "$tmp/err"
check_contains "command line: the word missing" \
        "the booted command line lacks what the applied profile persisted: transparent_hugepage=never; fix: reboot" "$tmp/err"
gate mariadb.service --json
jq -r '.checks[] | "\(.check) \(.status) \(.blocks)"' "$tmp/out" >"$tmp/checks"
check "--json: each check, its status, whether it blocks" "hugepages ok true thp short false cmdline short false" \
        "$(tr '\n' ' ' <"$tmp/checks" | sed 's/ $//')"
check "--json: the apply and the mode" "$txid warn warn false" "$(jq -r '"\(.txid) \(.gate) \(.mode) \(.refused)"' "$tmp/out")"
echo 'always madvise [never]' >"$d/sys/kernel/mm/transparent_hugepage/enabled"

# --- rollback removes the gate -------------------------------------------------
ht rollback >/dev/null 2>&1
check "rollback: the drop-in is gone" "no" "$([ -e "$D" ] && echo yes || echo no)"
gate mariadb.service --refuse
check "after rollback: nothing to check, exit 0" 0 $?

# --- refuse recorded by apply; memlock short (SysV segments) -----------------
ht apply mysql $BP --set start_gate=refuse --set hugepages_sysv=true >"$tmp/apply" 2>&1
check "apply refuse with SysV segments: exit 0" 0 $?
check "apply refuse: no '-' prefix" "ok" \
        "$(grep -qE '^ExecStartPre=\+/[^ ]*/hosttune gate --refuse mariadb.service$' "$D" && echo ok)"
sd_parses "systemd parses the refuse line" "hosttune gate --refuse mariadb.service"
check "apply: LimitMEMLOCK in the drop-in" "ok" "$(grep -q '^LimitMEMLOCK=' "$D" && echo ok)"
sed -i 's/$/ transparent_hugepage=never/' "$d/proc/cmdline"
gate mariadb.service
check "memlock as applied, enough pages: exit 0 without --refuse" 0 $?
check_contains "memlock: shown ready" "LimitMEMLOCK" "$tmp/out"
# a drop-in read after hosttune's lowers it
printf '[Service]\nLimitMEMLOCK=64K\n' >"$d/etc/systemd/system/mariadb.service.d/zz-local.conf"
gate mariadb.service
check "memlock short, refuse recorded by apply: exit 2 without --refuse" 2 $?
check_contains "memlock short: the value and the file" \
        "LimitMEMLOCK is 64K ($d/etc/systemd/system/mariadb.service.d/zz-local.conf), below the" "$tmp/err"
rm "$d/etc/systemd/system/mariadb.service.d/zz-local.conf"
ht rollback >/dev/null 2>&1
check "rollback of the refuse apply: the drop-in is gone" "no" "$([ -e "$D" ] && echo yes || echo no)"

# --- gate builds no plan: a fraction of plan's system calls (on a real
# host plan reads far more: devices, processes; the gate the same few) ----
ht apply mysql $BP >/dev/null 2>&1
# System calls on the host's files (every call strace -y shows with a path
# under the root): the binary itself, not a wrapper (tests/json/capture,
# valgrind), and not its loader's or a sanitizer's start
bin=$top_builddir/hosttune
if command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null; then
        onroot() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
                strace -f -y -qq -o "$tmp/trace" "$bin" --root "$d" "$@" >/dev/null 2>&1; grep -c "$d" "$tmp/trace"; }
        g=$(onroot gate mariadb.service)
        p=$(onroot $P plan mysql $BP)
        echo "# system calls on the root's files: gate $g, plan $p"
        check "gate makes under a third of plan's system calls on the host's files" yes \
                "$([ -n "$g" ] && [ -n "$p" ] && [ $((g * 3)) -lt "$p" ] && echo yes || echo "no ($g vs $p)")"
else
        skip "gate makes under a third of plan's system calls on the host's files" "strace is not installed or cannot trace"
fi

# --- Oracle: use_large_pages=ONLY, in plan and verify ------------------------
o=$(copy_host oracle-running); scratch "$o"
"$HOSTTUNE" --root "$o" $P plan oracle >"$tmp/oplan" 2>&1
check_contains "oracle plan: the advice, for the instances TRUE (set or default) sized for HugePages" \
        "oracle ORCL, DEV: use_large_pages is TRUE (set, or by default), so an instance started when too few HugePages are free runs with the rest of its SGA in 4 KB pages; use_large_pages=ONLY makes Oracle itself refuse to start without them" "$tmp/oplan"
sed -i 's/^\*\.use_large_pages=TRUE/*.use_large_pages=ONLY/' "$o/u01/app/oracle/product/19.0.0/dbhome_1/dbs/initDEV.ora"
"$HOSTTUNE" --root "$o" $P apply oracle >"$tmp/oapply" 2>&1
check_contains "oracle plan: DEV at ONLY is not named" "warning: oracle ORCL: use_large_pages is TRUE" "$tmp/oapply"
"$HOSTTUNE" --root "$o" $P --json verify >"$tmp/over.json" 2>/dev/null
check "oracle verify: says it too" "oracle ORCL: use_large_pages is TRUE" \
        "$(jq -r '.warnings[] | select(test("use_large_pages=ONLY")) | sub(" \\(set.*"; "")' "$tmp/over.json")"
"$HOSTTUNE" --root "$o" $P plan oracle --set sga_max_size=0 >"$tmp/oplan" 2>&1
check "oracle without HugePages: no advice" 0 "$(grep -c 'use_large_pages=ONLY' "$tmp/oplan")"
finish
