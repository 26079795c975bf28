# good, boot 1: `hosttune apply` of the shipped oracle profile (or
# $HT_BOOT_PROFILE with $HT_BOOT_SETS): kernel command line through
# /etc/default/grub and update-grub run by hosttune itself, sysctl
# drop-ins, THP through sysfs persisted by tmpfiles.d, limits.d entries,
# the virtio disk's I/O scheduler persisted by hosttune's udev rule.
# The plan's changes become the expectations verify.sh checks after the
# reboot with plain tools.
. /payload/lib.sh
PROFILE=${HT_BOOT_PROFILE:-oracle}
# A small SGA so HugePages fit the 1 GB guest; the owner and group the
# profile's limits and vm.hugetlb_shm_group refer to.
SETS=${HT_BOOT_SETS:---set sga_max_size=64M --set oracle_user=oracle --set oracle_group=dba}
getent group oinstall >/dev/null || groupadd oinstall
getent group dba >/dev/null || groupadd dba
id oracle >/dev/null 2>&1 || useradd -m -g oinstall -G dba -s /bin/bash oracle

save_grub_cfg
install_hosttune $P/hosttune
# The tree's profiles and rules, whatever prefix the binary was built for.
HT="hosttune --profile-path $P/profiles --rules-path $P/rules"

# plan: exit 2 (changes pending) and the changes of each kind the test is about
$HT --json plan $PROFILE $SETS >$OUT/plan.json
rc=$?
jq . $OUT/plan.json || cat $OUT/plan.json
[ "$rc" = 2 ] || { echo "FAIL plan exit $rc, want 2"; exit 1; }
need() { # WHAT JQ-FILTER
        if jq -e "[.changes[] | $2] | length > 0" $OUT/plan.json >/dev/null; then
                echo "ok   plan changes $1"
        else
                echo "FAIL plan has no change of $1: the profile does not cover it"
                missing=1
        fi
}
missing=
need "the kernel command line (transparent_hugepage)" 'select(.backend == "cmdline" and (.key | test("transparent_hugepage")))'
need "sysctl vm.swappiness" 'select(.backend == "sysctl" and .key == "vm.swappiness")'
need "sysfs THP enabled" 'select(.backend == "sysfs" and (.key | endswith("transparent_hugepage/enabled")))'
need "limits" 'select(.backend == "limits")'
# The guest's virtio disk is rotational and, with a queue per vCPU, has no
# scheduler by default (blk-mq picks mq-deadline only for single-queue
# devices): oracle's rotational mq-deadline is a change, which only
# hosttune's udev rule can bring back after the reboot.
need "the virtio disk's I/O scheduler (vda)" 'select(.backend == "block" and .key == "vda queue/scheduler" and .current != .desired)'
[ -z "$missing" ] || exit 1

$HT apply $PROFILE $SETS
rc=$?
echo "hosttune apply: exit $rc"
[ "$rc" = 0 ] || exit 1
grep -n transparent_hugepage /etc/default/grub /boot/grub/grub.cfg | head -5
# logind re-read its configuration at once: apply's SIGHUP, not the reboot
if jq -e '[.changes[] | select(.backend == "systemd" and .key == "logind.RemoveIPC" and .outcome == "change")] | length > 0' \
        $OUT/plan.json >/dev/null; then
        jq -r '.actions[] | .action' $OUT/plan.json
        v=$(busctl get-property org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager RemoveIPC)
        echo "systemd-logind RemoveIPC after apply, before the reboot: $v"
        [ "$v" = "b false" ] || { echo "FAIL logind still has RemoveIPC $v after apply's SIGHUP"; exit 1; }
fi
ls -l /etc/sysctl.d /etc/security/limits.d /etc/tmpfiles.d /etc/udev/rules.d /var/lib/hosttune

# Expectations from the plan: every change, checked after the reboot.
plan_expectations $OUT/plan.json >>$EXPECT
# ... and what the test is about, whatever the rules chose.
expect cmdline transparent_hugepage=never
expect sysfs /sys/kernel/mm/transparent_hugepage/enabled never
sort -u -o $EXPECT $EXPECT
cat $EXPECT
swp=$(awk '$1 == "sysctl" && $2 == "vm.swappiness" { print $3 }' $EXPECT)
[ -n "$swp" ] && [ "$swp" != 60 ] || { echo "FAIL vm.swappiness '$swp' proves nothing (default 60)"; exit 1; }

# Before the reboot the command line change is pending, not drift.
hosttune --json verify >$OUT/pre-verify.json
echo $? >$OUT/pre-verify.rc
cat $OUT/pre-verify.json
exit 0
