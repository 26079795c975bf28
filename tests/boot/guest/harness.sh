#!/bin/sh
# In-guest driver of the boot test. The per-run payload disk (/dev/vdb)
# carries scenario/apply.sh (boot 1) and scenario/verify.sh (boot 2).
# Boot 1 runs apply.sh then reboots; boot 2 runs verify.sh then powers
# off (a scenario marked `cloud-init` is provisioned and rebooted by
# cloud-init: see below). A scenario without verify.sh is a single boot (the image's prime
# boot). A scenario with rollback.sh runs it after verify.sh in boot 2
# and reboots once more: boot 3 runs restored.sh (a rollback is only
# complete once the restored kernel command line is booted). Everything goes to the serial console and /payload/results.txt;
# files the scripts leave in /payload/out come back to the host too.
P=/payload
STATE=/var/lib/ht-harness
mkdir -p $P $STATE
if ! mount /dev/vdb $P; then
        echo "HARNESS: cannot mount the payload disk"
        systemctl poweroff
        exit 1
fi
mkdir -p $P/out
stage=$(cat $STATE/stage 2>/dev/null || echo 1)
log() { echo "HARNESS[boot$stage] $*" | tee -a $P/results.txt; }
# The boot's journal with monotonic times: what ran, where the time went.
save_journal() { journalctl -b -o short-monotonic --no-pager >$P/out/journal-boot$stage.txt 2>&1; }
finish() {
        save_journal
        log "RESULT $1"
        rm -rf $STATE
        umount $P
        sync
        systemctl poweroff
        exit 0
}
# run_step NAME: scenario/NAME.sh, its output live on the console and
# kept in results.txt; the exit code lands in $rc.
run_step() {
        { (cd $P/scenario && sh ./"$1".sh); echo $? >$STATE/rc; } 2>&1 |
                tee $P/out/"$1".log | tee -a $P/results.txt
        rc=$(cat $STATE/rc)
}
log "uptime=$(cut -d' ' -f1 /proc/uptime)s cmdline=$(cat /proc/cmdline)"

reboot_to() { # STAGE
        echo "$1" >$STATE/stage
        save_journal
        umount $P
        sync
        systemctl reboot
        exit 0
}

# A scenario provisioned by cloud-init (marker file `cloud-init`): its
# apply.sh only waits for cloud-init and records what boot 1 did, and the
# guest reboots when cloud-init's power_state says so, possibly while
# apply.sh is still recording. So the next stage is written first, and
# TERM is ignored here and in every child (an ignored signal stays
# ignored across exec): a shutdown then waits for the record (systemd
# sends TERM and waits up to TimeoutStopSec before KILL).
# apply.sh exits 0 when no reboot is due (the harness powers off), 3 when
# one is (the harness waits for it), else the boot failed.
if [ "$stage" = 1 ] && [ -f $P/scenario/cloud-init ]; then
        echo 2 >$STATE/stage
        sync
        trap '' TERM
        run_step apply
        log "apply rc=$rc"
        case $rc in
        0) finish PASS ;;
        3) ;;
        *) finish FAIL ;;
        esac
        log "waiting for cloud-init's reboot"
        save_journal
        i=0
        while [ $i -lt 240 ]; do
                # the reboot has begun: let it go on without this unit
                [ "$(systemctl is-system-running 2>/dev/null)" = stopping ] && exit 0
                sleep 1
                i=$((i + 1))
        done
        echo 1 >$STATE/stage
        log "no reboot within 240 s although one was due"
        finish FAIL
fi

if [ "$stage" = 1 ]; then
        run_step apply
        log "apply rc=$rc"
        [ "$rc" = 0 ] || finish FAIL
        [ -f $P/scenario/verify.sh ] || finish PASS
        reboot_to 2
fi

if [ "$stage" = 3 ]; then
        run_step restored
        log "restored rc=$rc"
        if [ "$rc" = 0 ]; then finish PASS; else finish FAIL; fi
fi

run_step verify
log "verify rc=$rc"
[ "$rc" = 0 ] || finish FAIL
[ -f $P/scenario/rollback.sh ] || finish PASS
run_step rollback
log "rollback rc=$rc"
[ "$rc" = 0 ] || finish FAIL
reboot_to 3
