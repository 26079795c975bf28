# jvm, boot 2 (issue 39): the verify unit, started right after the JVM
# stand-in and before it took its pages, succeeded (the settle window);
# the pages are in use; the service's and appsvc's limits are at least
# what they were (nofile raised to 65535 soft, its 524288 hard kept, nproc
# never lowered); no reservation failure in the JVM's output; the
# sabotage (-XX:-UseLargePages) is drift; rollback names what keeps the
# pages and the limits, and restores the files.
. /payload/lib.sh
systemctl show -p ExecMainStartTimestampMonotonic demo-app.service $UNIT
check_verify_unit 0 ok
# the unit started before the stand-in mapped its pages (20 s after its
# start) and succeeded: the settle window carried it
grep "HugePages in use" $OUT/unit-journal.txt
v_start=$(systemctl show -p ExecMainStartTimestampMonotonic --value $UNIT)
mapped=$(journalctl -b -u demo-app.service -o cat | sed -n 's/.*mapped in HugePages at monotonic \([0-9]*\) us.*/\1/p' | head -1)
if [ -n "$mapped" ] && [ "$v_start" -lt "$mapped" ]; then
        pass "the verify unit started ($v_start us) before java mapped its pages ($mapped us) and succeeded"
else fail "the settle window was not exercised: verify started at $v_start us, the pages were mapped at '$mapped' us"; fi
check_expectations
pid=$(systemctl show -p MainPID --value demo-app.service)
mi() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
used=$(( $(mi HugePages_Total) - $(mi HugePages_Free) + $(mi HugePages_Rsvd) ))
if [ "$used" -ge 64 ]; then pass "HugePages in use: $used"; else fail "HugePages in use: $used, want 64 or more"; fi
journalctl -b -u demo-app.service --no-pager >$OUT/demo-app.txt
cat $OUT/demo-app.txt
if grep -q "Failed to reserve" $OUT/demo-app.txt; then fail "the JVM's output shows a reservation failure"
else pass "no reservation failure in the JVM's output"; fi
# the service's limits: never below what it had, nofile at least 65535
lim() { awk -v r="$2" 'index($0, r) == 1 { n = split(substr($0, length(r) + 1), f, " +"); print f[2], f[3] }' "$1"; }
grep -E '^Max (open files|processes)' /proc/$pid/limits | tee $OUT/unit-limits-after
for r in "Max open files" "Max processes"; do
        set -- $(lim $ORIG_DIR/unit-limits-before "$r") $(lim $OUT/unit-limits-after "$r")
        if [ "$3" -ge "$1" ] && [ "$4" -ge "$2" ]; then pass "demo-app.service $r: $1 $2 -> $3 $4, not lowered"
        else fail "demo-app.service $r lowered: $1 $2 -> $3 $4"; fi
done
check "demo-app.service soft nofile" "$(lim $OUT/unit-limits-after 'Max open files' | cut -d' ' -f1)" 65535
i=0
for t in S H; do for f in n u; do
        i=$((i + 1))
        was=$(sed -n "${i}p" $ORIG_DIR/login-limits-before)
        now=$(su -l appsvc -s /bin/bash -c "ulimit -$t$f")
        if [ "$now" = unlimited ] || { [ "$was" != unlimited ] && [ "$now" -ge "$was" ]; }; then
                pass "appsvc login ulimit -$t$f: $was -> $now, not lowered"
        else fail "appsvc login ulimit -$t$f lowered: $was -> $now"; fi
done; done
run_verify post 0 ok --boot
json_check post '^hugepages HugePages in use' 'ok'

# sabotage: the JVM restarted without large pages leaves the pool idle
mkdir -p /run/systemd/system/demo-app.service.d
printf '[Service]\nExecStart=\nExecStart=/usr/local/bin/java -Xmx128m -XX:-UseLargePages -XX:ReservedCodeCacheSize=12m -cp /srv/app Main\n' \
        >/run/systemd/system/demo-app.service.d/sabotage.conf
systemctl daemon-reload && systemctl restart demo-app.service && sleep 2
run_verify sabotaged 2 drift
json_check sabotaged '^hugepages HugePages in use' 'drift'
rm -rf /run/systemd/system/demo-app.service.d
systemctl daemon-reload && systemctl restart demo-app.service && sleep 22
pid=$(systemctl show -p MainPID --value demo-app.service)

# rollback: names the JVM that keeps its pages and the unit that keeps
# its limits, and the files go
hosttune rollback >$OUT/rollback.txt 2>&1
rc=$?
cat $OUT/rollback.txt
check "rollback exit" "$rc" 0
if grep -q "java (pid $pid) keeps the .* kB of HugePages it maps until it restarts" $OUT/rollback.txt; then
        pass "rollback names java (pid $pid) and its pages"; else fail "rollback does not name java's pages"; fi
if grep -q "demo-app.service (pid $pid) keeps the limits it started with until it restarts" $OUT/rollback.txt; then
        pass "rollback names demo-app.service and its limits"; else fail "rollback does not name the unit's limits"; fi
for f in /etc/systemd/system/demo-app.service.d/hosttune.conf /etc/security/limits.d/90-hosttune.conf \
        /etc/sysctl.d/90-hosttune.conf; do
        if [ -e "$f" ]; then fail "$f still there after the rollback"; else pass "$f gone"; fi
done
checks_done
