# powercut, boot 1: the state before the apply is recorded (the files
# hosttune manages, and files_state as the rollback scenario takes it),
# one whole apply of good's profile is traced (how many fault points, how
# long) and its result recorded as the "new" state, rolled back (the tree
# must be as before), then the first power cut is armed.
. /payload/lib.sh
. ./powercut.sh
getent group oinstall >/dev/null || groupadd oinstall
getent group dba >/dev/null || groupadd dba
id oracle >/dev/null 2>&1 || useradd -m -g oinstall -G dba -s /bin/bash oracle
install_hosttune $P/hosttune
# The verify unit would be the first hosttune command after a cut and
# recover before verify.sh could see what the cut left: off here.
systemctl disable $UNIT

$HT --json plan $PROFILE $SETS >$OUT/plan.json
rc=$?
[ "$rc" = 2 ] || { echo "FAIL plan exit $rc, want 2"; cat $OUT/plan.json; exit 1; }
# every backend and the bootloader, as in good
for b in cmdline sysctl sysfs limits; do
        jq -e --arg b $b '[.changes[] | select(.backend == $b)] | length > 0' $OUT/plan.json >/dev/null ||
                { echo "FAIL the plan has no $b change"; exit 1; }
done
{
        jq -r '.files[].path' $OUT/plan.json
        jq -r '.actions[]? | .generates // empty' $OUT/plan.json
        echo /boot/grub/grub.cfg
        echo /etc/default/grub
} | sort -u >$PC/paths
grep -qx /boot/grub/grub.cfg $PC/paths || { echo "FAIL grub.cfg is not managed"; exit 1; }
echo "managed files:"
cat $PC/paths
managed_state >$PC/pre
files_state >$PC/files-pre
runtime_state >$PC/runtime-pre

t0=$(now_ms)
HOSTTUNE_FAULT_TRACE=1 $HT apply $PROFILE $SETS 2>$OUT/trace.err
rc=$?
echo $(( $(now_ms) - t0 )) >$PC/apply-ms
check "whole apply: exit" "$rc" 0
grep -c '^hosttune: fault point' $OUT/trace.err >$PC/points
grep '^hosttune: fault point' $OUT/trace.err
echo "whole apply: $(cat $PC/points) fault points, $(cat $PC/apply-ms) ms"
[ "$(cat $PC/points)" -gt 0 ] || fail "the traced apply reached no fault point"
managed_state >$PC/new
if cmp -s $PC/pre $PC/new; then fail "the apply changed no managed file"; fi
cat $PC/new
$HT rollback >$OUT/rollback-0.log 2>&1
check "rollback of the whole apply: exit" "$?" 0
check "managed files after the rollback" "$(managed_state | sha256sum)" "$(sha256sum <$PC/pre)"
check "files after the rollback" "$(files_state | sha256sum)" "$(sha256sum <$PC/files-pre)"
[ "$n_fail" = 0 ] || { checks_done; exit 1; }
echo "POWERCUT-SETUP points=$(cat $PC/points) apply_ms=$(cat $PC/apply-ms) runs=$RUNS"
arm_cut 1
