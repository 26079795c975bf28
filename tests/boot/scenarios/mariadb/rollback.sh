# mariadb, boot 2 after verify.sh: `hosttune rollback TXID` (boot 1's
# apply and verify.sh's start_gate=refuse) exits 0 and names mariadbd,
# which keeps its HugePages until it restarts; the gate's drop-in is gone
# and mariadb.service runs no gate (daemon-reloaded); the runtime
# values the plan changed are back now (sysctl, sysfs, as boot 1 read
# them), the files are as before the apply (the unit's drop-in gone),
# verify finds nothing applied.
. /payload/lib.sh
pid=$(systemctl show -p MainPID --value mariadb.service)
# boot 1's apply and every later one (verify.sh's start_gate=refuse)
tx=$(jq -r .txid $OUT/pre-verify.json)
hosttune rollback "$tx" >$OUT/rollback.txt 2>&1
rc=$?
cat $OUT/rollback.txt
check "hosttune rollback exit" "$rc" 0
if grep -q "mariadbd (pid $pid) keeps the .* kB of HugePages it maps until it restarts" $OUT/rollback.txt; then
        pass "rollback names mariadbd (pid $pid) and its pages"; else fail "rollback does not name mariadbd's pages"; fi
# the start gate (issue 37) is gone with the drop-in
if [ -e /etc/systemd/system/mariadb.service.d/hosttune.conf ]; then fail "the gate's drop-in is still there"
else pass "the gate's drop-in is gone"; fi
if systemctl show -p ExecStartPre mariadb.service | grep -q 'hosttune'; then
        fail "mariadb.service still runs the gate: $(systemctl show -p ExecStartPre mariadb.service)"
else pass "mariadb.service runs no gate (systemctl show -p ExecStartPre)"; fi
grep -E '^(sysctl |sysfs )' $ORIG >$OUT/orig-runtime
while IFS= read -r line; do check_one "$line"; done <$OUT/orig-runtime
files_state | diff $ORIG_DIR/files - || true
check "files as before the apply" "$(files_state | sha256sum)" "$(sha256sum <$ORIG_DIR/files)"
hosttune --json verify >$OUT/verify-rolled-back.json 2>&1
check "verify after the rollback: exit" "$?" 0
check "verify after the rollback: applied" "$(jq -r .applied $OUT/verify-rolled-back.json 2>&1)" false
checks_done
