# cloud-init, boot 1: cloud-init provisions the guest from the NoCloud
# seed (user-data: a shipped example, unchanged); nothing here installs or
# applies. This waits for cloud-init, records what boot 1 did in $REC (on
# the root file system; the harness ignores TERM, so a power_state reboot
# waits for the record) and tells the harness what comes next:
#   exit 3  power_state decided to reboot: the checks run in boot 2
#   exit 0  no reboot, and the checks of a one-boot run passed here
#   else    failed
. /payload/lib.sh
. ./checks.sh
mkdir -p $REC

# `cloud-init status --wait` returns once the final stage has written
# result.json, before power_state's child (forked by the final stage,
# waiting for it to exit) runs the example's condition and maybe reboots.
t0=$(cut -d' ' -f1 /proc/uptime)
timeout 1200 cloud-init status --wait --long >$REC/status.txt 2>&1
echo $? >$REC/status.rc
# status --wait returns when status.json says the final stage is done;
# that stage writes result.json just after it.
i=0
while [ ! -f /run/cloud-init/result.json ] && [ $i -lt 60 ]; do
        sleep 1
        i=$((i + 1))
done
cp /run/cloud-init/result.json /run/cloud-init/status.json $REC/
sync
echo "cloud-init finished at uptime $(cut -d' ' -f1 /proc/uptime)s (waited from ${t0}s), status exit $(cat $REC/status.rc)"
cat $REC/status.txt

# power_state's decision, as its child logs it to cloud-init.log
# (cc_power_state_change.check_condition): "exited 0. condition met." and
# the reboot follows, "exited 1. condition not met." and nothing happens.
decision=
i=0
while [ $i -lt 120 ] && [ -z "$decision" ]; do
        if grep -q 'check_condition command .*exited 0\. condition met' /var/log/cloud-init.log; then
                decision=reboot
        elif grep -q 'check_condition command .*\(exited 1\. condition not met\|unexpected exit\|Unexpected error\)' \
                /var/log/cloud-init.log ||
                grep -q 'no power_state provided\|Not performing power state change' /var/log/cloud-init.log; then
                decision=none
        else
                sleep 1
                i=$((i + 1))
        fi
done
echo "${decision:-unknown}" >$REC/decision
sync
echo "power_state decided: ${decision:-nothing within 120 s}"
record_state $REC
sync
case $decision in
reboot)
        echo "a reboot is due: the checks run in boot 2"
        exit 3 ;;
none) ;;
*)
        echo "FAIL power_state's decision is not in /var/log/cloud-init.log"
        tail -30 /var/log/cloud-init.log
        exit 1 ;;
esac

# No reboot: this is the only boot, so the checks run now.
case $HT_CLOUDINIT_EXAMPLE in
broken) check_refused "no-such-profile" ;;
oracle-db | mysql-db)
        # The shipped sizes (HugePages of 18G, 24G) need a host of 26 GB
        # or more (oracle: 70 %, mysql: 90 % of MemTotal at most).
        mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
        if [ "$mem" -lt $((26 * 1024 * 1024)) ]; then
                echo "MemTotal ${mem} kB: the example's HugePages cannot fit, hosttune must refuse"
                check_refused "rule hugepages-fit"
        else
                check_provisioned 1
        fi ;;
*) check_provisioned 1 ;;
esac
checks_done
