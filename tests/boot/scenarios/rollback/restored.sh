# rollback, boot 3: after the reboot the original state holds: the same
# kernel command line, every sysctl, sysfs value and login limit the plan
# touched as boot 1 read it before the apply, the same files; the verify
# unit found nothing to verify.
. /payload/lib.sh
check "/proc/cmdline as before the apply" "$(cat /proc/cmdline)" "$(cat $ORIG_DIR/cmdline)"
if grep -qw 'transparent_hugepage=never' $ORIG_DIR/cmdline; then
        fail "the original command line already had transparent_hugepage=never: the test proves nothing"
fi
check_expectations_in $ORIG
files_state | diff $ORIG_DIR/files - || true
check "files as before the apply (none left behind)" "$(files_state | sha256sum)" "$(sha256sum <$ORIG_DIR/files)"
check "$UNIT exit status" "$(systemctl show -p ExecMainStatus --value $UNIT)" 0
run_verify restored 0 ok
check "verify: applied" "$(jq -r .applied $OUT/restored.json 2>&1)" false
checks_done
