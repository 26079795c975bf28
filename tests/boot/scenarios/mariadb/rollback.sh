# mariadb, boot 2 after verify.sh: `hosttune rollback` exits 0 and names
# mariadbd, which keeps its HugePages until it restarts; the runtime
# values the plan changed are back now (sysctl, sysfs, as boot 1 read
# them), the files are as before the apply (the unit's drop-in gone),
# verify finds nothing applied.
. /payload/lib.sh
pid=$(systemctl show -p MainPID --value mariadb.service)
hosttune rollback >$OUT/rollback.txt 2>&1
rc=$?
cat $OUT/rollback.txt
check "hosttune rollback exit" "$rc" 0
if grep -q "mariadbd (pid $pid) keeps the .* kB of HugePages it maps until it restarts" $OUT/rollback.txt; then
        pass "rollback names mariadbd (pid $pid) and its pages"; else fail "rollback does not name mariadbd's pages"; fi
grep -E '^(sysctl |sysfs )' $ORIG >$OUT/orig-runtime
while IFS= read -r line; do check_one "$line"; done <$OUT/orig-runtime
files_state | diff $ORIG_DIR/files - || true
check "files as before the apply" "$(files_state | sha256sum)" "$(sha256sum <$ORIG_DIR/files)"
hosttune --json verify >$OUT/verify-rolled-back.json 2>&1
check "verify after the rollback: exit" "$?" 0
check "verify after the rollback: applied" "$(jq -r .applied $OUT/verify-rolled-back.json 2>&1)" false
checks_done
