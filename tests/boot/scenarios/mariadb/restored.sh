# mariadb, boot 3: after the rollback and a reboot, everything is as boot
# 1 read it before the apply: the kernel command line, every value the
# plan touched, the files, mariadbd's limits (its process's and systemd's)
# and no HugePages; the server runs (without large pages: there are
# none), the verify unit exited 0 and verify finds nothing applied.
. /payload/lib.sh
check "/proc/cmdline as before the apply" "$(cat /proc/cmdline)" "$(cat $ORIG_DIR/cmdline)"
check_expectations_in $ORIG
files_state | diff $ORIG_DIR/files - || true
check "files as before the apply (none left behind)" "$(files_state | sha256sum)" "$(sha256sum <$ORIG_DIR/files)"
check "mariadb.service" "$(systemctl is-active mariadb.service)" active
pid=$(systemctl show -p MainPID --value mariadb.service)
grep -E '^Max (open files|locked memory|processes)' /proc/$pid/limits >$OUT/unit-limits-restored
diff $ORIG_DIR/unit-limits-before $OUT/unit-limits-restored || true
check "mariadbd's limits (/proc/$pid/limits) as before the apply" \
        "$(cat $OUT/unit-limits-restored)" "$(cat $ORIG_DIR/unit-limits-before)"
check "mariadb.service's limits (systemctl show) as before the apply" \
        "$(systemctl show -p LimitNOFILE,LimitNOFILESoft,LimitMEMLOCK,LimitMEMLOCKSoft mariadb.service)" \
        "$(cat $ORIG_DIR/unit-props-before)"
check "HugePages_Total" "$(awk '$1 == "HugePages_Total:" { print $2 }' /proc/meminfo)" \
        "$(awk '$1 == "HugePages_Total:" { print $2 }' $ORIG_DIR/meminfo-before)"
check "$UNIT exit status" "$(systemctl show -p ExecMainStatus --value $UNIT)" 0
run_verify restored 0 ok
check "verify: applied" "$(jq -r .applied $OUT/restored.json 2>&1)" false
checks_done
