# mariadb, boot 2 (issue 39): after the reboot the verify unit succeeded
# and logged ok; every planned value holds (plain tools); mariadbd holds
# its HugePages (/proc/meminfo and its own /proc/PID/smaps, the server's
# own word, no allocation failure in its log); its limits are never below
# what it had before the apply (/proc/PID/limits, systemd's); `verify
# --boot` ok. Then the sabotage: large_pages=OFF in the DBA's option file
# and a restart make `verify` drift naming mariadbd; back to ON, ok.
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
if grep -qi 'failed to allocate\|large page.*\(fail\|error\)' $OUT/mariadb-journal.txt; then
        fail "mariadbd's log shows a large-page allocation failure: $(grep -i 'failed to allocate\|large page' $OUT/mariadb-journal.txt | head -3)"
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
checks_done
