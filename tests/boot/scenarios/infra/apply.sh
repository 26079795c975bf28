# infra, boot 1: what `hosttune apply` will do, done with sed and
# update-grub, so the harness is proven without the agent: a kernel
# command line word through /etc/default/grub, a sysctl drop-in, a
# limits.d entry, a sysfs value persisted through tmpfiles.d. Then the
# stand-in hosttune and the real verify unit are installed.
set -e
. /payload/lib.sh
save_grub_cfg
sed -i 's/^GRUB_CMDLINE_LINUX="\(.*\)"/GRUB_CMDLINE_LINUX="\1 transparent_hugepage=never"/' /etc/default/grub
t=$(date +%s)
update-grub 2>&1
echo "update-grub took $(( $(date +%s) - t ))s"
grep -q 'transparent_hugepage=never' /boot/grub/grub.cfg
echo 'vm.swappiness = 13' >/etc/sysctl.d/90-boot-test.conf
echo 'nobody soft nofile 12345' >/etc/security/limits.d/90-boot-test.conf
echo 'w /sys/kernel/mm/transparent_hugepage/enabled - - - - never' >/etc/tmpfiles.d/boot-test.conf
# and the runtime values, as apply does; the command line waits for the reboot
sysctl -w vm.swappiness=13
echo never >/sys/kernel/mm/transparent_hugepage/enabled

expect cmdline transparent_hugepage=never
expect sysctl vm.swappiness 13
expect sysfs /sys/kernel/mm/transparent_hugepage/enabled never
expect limits nobody soft nofile 12345
mkdir -p /var/lib/hosttune
grep -v '^limits' $EXPECT >/var/lib/hosttune/expected
cat /proc/sys/kernel/random/boot_id >/var/lib/hosttune/boot_id
install_hosttune $P/scenarios/infra/hosttune-standin

# Before the reboot the command line change is pending, not drift.
hosttune --json verify >$OUT/pre-verify.json && rc=0 || rc=$?
echo $rc >$OUT/pre-verify.rc
cat $OUT/pre-verify.json
exit 0
