# rollback, boot 2 after verify.sh: `hosttune rollback` exits 0, says a
# reboot completes it (the command line changed), and every runtime value
# is back now, before that reboot, as read with plain tools: sysctl,
# sysfs, and systemd-logind's settings over D-Bus (the rollback's follow-up).
. /payload/lib.sh
hosttune --json rollback >$OUT/rollback.json 2>$OUT/rollback.err
rc=$?
cat $OUT/rollback.err
jq . $OUT/rollback.json || cat $OUT/rollback.json
check "hosttune rollback exit" "$rc" 0
check "rollback: reboot_required (the command line was restored)" \
        "$(jq -r .reboot_required $OUT/rollback.json 2>&1)" true
check "rollback: one transaction undone" "$(jq -r '.txids | length' $OUT/rollback.json 2>&1)" 1
# runtime values now, logind's included (rollback's SIGHUP makes it re-read
# its configuration, as apply's did); limits and the command line take a
# new session/boot
grep -E '^(sysctl |sysfs |systemd logind\.)' $ORIG >$OUT/orig-runtime
grep -q '^systemd logind\.RemoveIPC ' $OUT/orig-runtime || fail "the plan has no logind RemoveIPC change to undo"
check "rollback: logind followed up, once" \
        "$(jq -r '.messages[] | select(startswith("followed up: make systemd-logind"))' $OUT/rollback.json 2>&1 | wc -l)" 1
while IFS= read -r line; do check_one "$line"; done <$OUT/orig-runtime
check "files as before the apply" "$(files_state | sha256sum)" "$(sha256sum <$ORIG_DIR/files)"
hosttune --json verify >$OUT/verify-rolled-back.json 2>&1
check "verify after the rollback: exit" "$?" 0
check "verify after the rollback: applied" "$(jq -r .applied $OUT/verify-rolled-back.json 2>&1)" false
checks_done
