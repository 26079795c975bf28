# mariadb, boot 2 (issue 39): after the reboot the verify unit succeeded
# and logged ok; every planned value holds (plain tools); mariadbd holds
# its HugePages (/proc/meminfo and its own /proc/PID/smaps, the server's
# own word, no allocation failure in its log); its limits are never below
# what it had before the apply (/proc/PID/limits, systemd's); `verify
# --boot` ok. Then the sabotage: large_pages=OFF in the DBA's option file
# and a restart make `verify` drift naming mariadbd; back to ON, ok.
# Then the start gate (issue 37): hugehog takes the HugePages while
# mariadbd is stopped; in warn mode its start logs the gate's shortfall
# and goes on (on 4 KB pages); with start_gate=refuse (applied again) the
# start fails with the gate's message; the pages freed, it starts on them.
. /payload/lib.sh
check_pre_reboot_verify
check_verify_unit 0 ok
check_expectations
check "mariadb.service" "$(systemctl is-active mariadb.service)" active
pid=$(systemctl show -p MainPID --value mariadb.service)
echo "mariadbd: pid $pid"

# HugePages: in use system-wide, and mapped by mariadbd itself
grep -E '^HugePages_' /proc/meminfo | tee $OUT/meminfo-after
mi() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
total=$(mi HugePages_Total)
used=$(( total - $(mi HugePages_Free) + $(mi HugePages_Rsvd) ))
# the buffer pool alone is 128 pages of 2 MB
if [ "$used" -ge 128 ]; then pass "HugePages in use (Total-Free+Rsvd): $used of $total"
else fail "HugePages in use: $used of $total, want the buffer pool's 128 at least"; fi
# the hugetlb mappings of mariadbd (KernelPageSize 2048 kB), their size
huge_kb=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { size = 0 } $1 == "Size:" { size = $2 }
        $1 == "KernelPageSize:" && $2 == 2048 { sum += size } END { print sum + 0 }' /proc/$pid/smaps)
if [ "$huge_kb" -ge 262144 ]; then pass "mariadbd (pid $pid) maps $huge_kb kB of HugePages (smaps), the 256M pool at least"
else fail "mariadbd (pid $pid) maps $huge_kb kB of HugePages (smaps), want 262144 (the pool) at least"; fi
check "the server's large_pages" "$(mariadb -N -e 'SELECT @@large_pages')" 1
journalctl -b -u mariadb.service --no-pager >$OUT/mariadb-journal.txt 2>&1
# (MariaDB 10.11 says "Couldn't allocate N bytes (Large/HugeTLB memory
# page size 2097152); errno 12; continuing to smaller size", seen below)
alloc_failed='couldn.t allocate .*hugetlb\|failed to allocate\|large page.*\(fail\|error\)'
if grep -qi "$alloc_failed" $OUT/mariadb-journal.txt; then
        fail "mariadbd's log shows a large-page allocation failure: $(grep -i "$alloc_failed" $OUT/mariadb-journal.txt | head -3)"
else pass "no large-page allocation failure in mariadbd's log"; fi

# limits: never below what the server had before the apply
lim() { awk -v r="$2" 'index($0, r) == 1 { n = split(substr($0, length(r) + 1), f, " +"); print f[2], f[3] }' "$1"; }
num() { case $1 in unlimited) echo 18446744073709551615 ;; *) echo "$1" ;; esac; }
ge() { [ "$(num "$1")" = 18446744073709551615 ] || { [ "$(num "$2")" != 18446744073709551615 ] && [ "$1" -ge "$2" ]; }; }
grep -E '^Max (open files|locked memory|processes)' /proc/$pid/limits | tee $OUT/unit-limits-after
for r in "Max open files" "Max locked memory" "Max processes"; do
        set -- $(lim $ORIG_DIR/unit-limits-before "$r") $(lim $OUT/unit-limits-after "$r")
        if ge "$3" "$1" && ge "$4" "$2"; then pass "mariadbd $r: $1 $2 -> $3 $4, not lowered"
        else fail "mariadbd $r lowered: $1 $2 -> $3 $4"; fi
done
systemctl show -p LimitNOFILE,LimitNOFILESoft,LimitMEMLOCK,LimitMEMLOCKSoft mariadb.service | tee $OUT/unit-props-after
while IFS='=' read -r k v; do
        now=$(sed -n "s/^$k=//p" $OUT/unit-props-after)
        if ge "$(limit_norm "$now")" "$(limit_norm "$v")"; then pass "mariadb.service $k: $v -> $now, not lowered"
        else fail "mariadb.service $k lowered: $v -> $now"; fi
done <$ORIG_DIR/unit-props-before
check "mariadbd soft nofile at least the profile's 32768" \
        "$([ "$(lim $OUT/unit-limits-after 'Max open files' | cut -d' ' -f1)" -ge 32768 ] && echo yes)" yes

run_verify post 0 ok --boot
json_check post '^hugepages HugePages in use' 'ok'

# sabotage: the DBA's option file turns large pages off, the server
# restarts without them: drift, naming mariadbd
sed -i 's/^large_pages = ON$/large_pages = OFF/' /etc/mysql/mariadb.conf.d/90-dba.cnf
grep -q '^large_pages = OFF$' /etc/mysql/mariadb.conf.d/90-dba.cnf || fail "the sabotage did not take"
systemctl restart mariadb.service
pid=$(systemctl show -p MainPID --value mariadb.service)
run_verify sabotaged 2 drift
json_check sabotaged '^hugepages HugePages in use' 'drift'
hint=$(jq -r '.checks[] | select(.backend == "hugepages") | .hint // empty' $OUT/sabotaged.json)
case $hint in
*"mariadbd (pid $pid)"*) pass "the drift names mariadbd (pid $pid)" ;;
*) fail "the drift does not name mariadbd (pid $pid): '$hint'" ;;
esac
sed -i 's/^large_pages = OFF$/large_pages = ON/' /etc/mysql/mariadb.conf.d/90-dba.cnf
systemctl restart mariadb.service
run_verify restored-pages 0 ok

# --- the start gate (issue 37) -------------------------------------------
# warn mode: the drop-in's ExecStartPre= carries systemd's "-"; at this
# boot the gate ran before mariadbd and found its pages
dropin=/etc/systemd/system/mariadb.service.d/hosttune.conf
cat $dropin
# the binary the guest has, where a package puts it (this build's own
# sbindir is /usr/local/sbin: the drop-in names the hosttune the host has)
if grep -qx "ExecStartPre=-+/usr/sbin/hosttune gate mariadb.service" $dropin; then
        pass "the drop-in runs the gate in warn mode (ExecStartPre=-+...)"
else fail "no warn-mode gate line in $dropin"; fi
if grep -q 'hosttune gate: mariadb.service: ready (free HugePages' $OUT/mariadb-journal.txt; then
        pass "at boot the gate found mariadbd's pages: $(grep -o 'hosttune gate: mariadb.service: ready.*' $OUT/mariadb-journal.txt | head -1)"
else fail "the gate did not say ready at boot"; fi
# the journal's newest entry: what a start logs comes after it
cursor() { journalctl -n 1 -o json | jq -r .__CURSOR; }
# another program takes the HugePages while mariadbd is stopped
systemctl stop mariadb.service
systemd-run --unit=ht-hugehog --collect $P/scenario/hugehog all
i=0
until journalctl -u ht-hugehog.service -o cat | grep -q 'hugehog: holding'; do
        i=$((i + 1))
        [ $i -lt 30 ] || break
        sleep 1
done
journalctl -u ht-hugehog.service -o cat
grep -E '^HugePages_' /proc/meminfo
check "HugePages free for mariadbd (Free-Rsvd)" "$(( $(mi HugePages_Free) - $(mi HugePages_Rsvd) ))" 0
# warn: the start goes on, the journal has the gate's warning
cur=$(cursor)
systemctl start mariadb.service
check "warn mode: systemctl start mariadb.service exit" "$?" 0
check "warn mode: mariadb.service" "$(systemctl is-active mariadb.service)" active
journalctl --no-pager -o cat --after-cursor "$cur" -u mariadb.service >$OUT/gate-warn.txt
journalctl --no-pager -o json --after-cursor "$cur" -u mariadb.service >$OUT/gate-warn.json
cat $OUT/gate-warn.txt
# the gate's lines with the priority journald gave them ("<4>" prefix)
jq -r 'select(.MESSAGE | type == "string" and startswith("hosttune gate:")) | "\(.PRIORITY) \(.MESSAGE)"' \
        $OUT/gate-warn.json | cut -c1-160
prio=$(jq -r 'select(.MESSAGE | type == "string" and test("^hosttune gate: mariadb.service: needs [0-9]+ free HugePages .*, but 0 are free")) | .PRIORITY' \
        $OUT/gate-warn.json | head -1)
case $prio in
[0-4]) pass "warn mode: the journal has the gate's shortfall 'needs N free HugePages ..., but 0 are free' (priority $prio)" ;;
'') fail "warn mode: no gate warning 'needs N free HugePages ..., but 0 are free' in the unit's journal" ;;
*) fail "warn mode: the gate's shortfall is in the journal at priority $prio, not warning (4) or above" ;;
esac
if grep -q 'hosttune gate: mariadb.service: starts anyway (start gate: warn' $OUT/gate-warn.txt; then
        pass "warn mode: the gate says the unit starts anyway"
else fail "warn mode: the gate does not say it starts anyway"; fi
if grep -qi "$alloc_failed" $OUT/gate-warn.txt; then
        pass "warn mode: mariadbd says it got no large pages: $(grep -i "$alloc_failed" $OUT/gate-warn.txt | head -1)"
else fail "warn mode: mariadbd's log does not say it got no large pages"; fi
pid=$(systemctl show -p MainPID --value mariadb.service)
check "warn mode: mariadbd (pid $pid) on 4 KB pages, as the gate warned (smaps hugetlb kB)" \
        "$(awk '/^[0-9a-f]+-[0-9a-f]+ / { size = 0 } $1 == "Size:" { size = $2 }
                $1 == "KernelPageSize:" && $2 == 2048 { sum += size } END { print sum + 0 }' /proc/$pid/smaps)" 0
# refuse: as an administrator chooses it, applied again
hosttune --profile-path $P/profiles --rules-path $P/rules apply mysql --set start_gate=refuse >$OUT/apply-refuse.txt 2>&1
rc=$?
cat $OUT/apply-refuse.txt
check "hosttune apply mysql --set start_gate=refuse exit" "$rc" 0
if grep -qx "ExecStartPre=+/usr/sbin/hosttune gate --refuse mariadb.service" $dropin; then
        pass "the drop-in runs the gate in refuse mode (ExecStartPre=+... --refuse, no '-')"
else fail "no refuse-mode gate line in $dropin: $(grep ExecStartPre $dropin)"; fi
cur=$(cursor)
systemctl restart mariadb.service
rc=$?
if [ "$rc" != 0 ]; then pass "refuse mode: systemctl restart mariadb.service fails (exit $rc)"
else fail "refuse mode: systemctl restart mariadb.service succeeded"; fi
check "refuse mode: mariadb.service" "$(systemctl is-active mariadb.service)" failed
journalctl --no-pager -o cat --after-cursor "$cur" -u mariadb.service >$OUT/gate-refuse.txt
cat $OUT/gate-refuse.txt
if grep -q 'hosttune gate: mariadb.service: refused: it would start without the HugePages' $OUT/gate-refuse.txt; then
        pass "refuse mode: the journal has the gate's refusal"
else fail "refuse mode: no 'refused' line from the gate in the unit's journal"; fi
# the unit stopped in its ExecStartPre=: mariadbd never ran
check "refuse mode: mariadb.service Result, MainPID" \
        "$(systemctl show -p Result --value mariadb.service) $(systemctl show -p MainPID --value mariadb.service)" "exit-code 0"
if grep -q '\[Note\] Starting MariaDB\|ready for connections' $OUT/gate-refuse.txt; then
        fail "refuse mode: mariadbd started after the gate refused"
else pass "refuse mode: mariadbd never started (nothing of its own in the journal after the gate)"; fi
# the pages free again: the refuse gate lets it start, on its pages
systemctl stop ht-hugehog.service
systemctl reset-failed mariadb.service
cur=$(cursor)
systemctl start mariadb.service
check "refuse mode, pages free: systemctl start mariadb.service exit" "$?" 0
journalctl --no-pager -o cat --after-cursor "$cur" -u mariadb.service | grep 'hosttune gate' || true
pid=$(systemctl show -p MainPID --value mariadb.service)
huge_kb=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { size = 0 } $1 == "Size:" { size = $2 }
        $1 == "KernelPageSize:" && $2 == 2048 { sum += size } END { print sum + 0 }' /proc/$pid/smaps)
if [ "$huge_kb" -ge 262144 ]; then pass "mariadbd (pid $pid) maps $huge_kb kB of HugePages again"
else fail "mariadbd (pid $pid) maps $huge_kb kB of HugePages after the hog left, want 262144"; fi
checks_done
