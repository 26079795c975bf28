# cloud-init, boot 2: the guest rebooted (cloud-init's power_state, after
# hosttune verify said a reboot is pending); every check of the
# provisioning against what boot 1 recorded and what holds now.
. /payload/lib.sh
. ./checks.sh
mkdir -p $OUT/boot1
cp -r $REC/. $OUT/boot1/
# cloud-init runs in this boot too (its per-boot modules): let it finish
timeout 600 cloud-init status --wait --long >$OUT/status-boot2.txt 2>&1
echo "cloud-init in boot 2: exit $?"
cat $OUT/status-boot2.txt
check "power_state's decision in boot 1" "$(cat $REC/decision 2>&1)" reboot
[ "$HT_CLOUDINIT_EXAMPLE" != broken ] || fail "example broken rebooted the guest"
record_state $REC2 noverify
check_provisioned 2
checks_done
