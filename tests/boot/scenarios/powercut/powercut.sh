# powercut: helpers of apply.sh (boot 1) and verify.sh (every later boot),
# sourced after /payload/lib.sh. One cut per boot: the guest arms it,
# prints a marker on the serial console and starts `hosttune apply`; the
# host kills qemu (SIGKILL: the guest's page cache is gone) when the
# marker says so. The next boot checks and recovers, then arms the next.
PROFILE=${HT_BOOT_PROFILE:-oracle}
SETS=${HT_BOOT_SETS:---set sga_max_size=64M --set oracle_user=oracle --set oracle_group=dba}
HT="hosttune --profile-path $P/profiles --rules-path $P/rules"
RUNS=${HT_POWERCUT_RUNS:-3}
PC=$ORIG_DIR/powercut
TTY=/dev/ttyS0
mkdir -p $PC

say() { echo "$*" >$TTY; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
random_below() { echo $(( $(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % $1 )); }

# managed_state: one line per file hosttune writes (the plan's files and
# the generated grub.cfg): "PATH MODE OWNER SHA256", or "PATH absent".
managed_state() {
        while IFS= read -r f; do
                if [ -e "$f" ] || [ -L "$f" ]; then
                        echo "$f $(stat -c '%a %U:%G' "$f") $(sha256sum <"$f" | cut -d' ' -f1)"
                else
                        echo "$f absent"
                fi
        done <$PC/paths
}

# runtime_state: the sysctl and sysfs values the plan changes, read with
# plain tools ("sysctl KEY VALUE", "sysfs PATH VALUE").
runtime_state() {
        jq -r '.changes[] | select(.backend == "sysctl" or .backend == "sysfs") | "\(.backend) \(.key)"' \
                $OUT/plan.json | sort -u | while read -r backend key; do
                case $backend in
                sysctl) echo "sysctl $key $(sysctl -n "$key" | squeeze)" ;;
                sysfs) echo "sysfs $key $(sysfs_value "$key")" ;;
                esac
        done
}
# runtime_reset: back to the values before the first apply, with plain
# tools, so that every cut's apply makes the same changes (and reaches as
# many fault points) as the one boot 1 measured.
runtime_reset() {
        while read -r backend key value; do
                case $backend in
                sysctl) sysctl -q -w "$key=$value" ;;
                sysfs) echo "$value" >"$key" ;;
                esac
        done <$PC/runtime-pre
}

# check_wholly FILE: every managed file in FILE's state equals its
# pre-apply or its applied line, none a mix or a torn write.
check_wholly() {
        bad=0
        while IFS= read -r line; do
                if grep -qxF -- "$line" $PC/pre || grep -qxF -- "$line" $PC/new; then :; else
                        fail "$2: ${line%% *} is neither the old nor the new version: $line"
                        bad=1
                fi
        done <"$1"
        [ $bad = 0 ] && pass "$2: every managed file is wholly old or wholly new"
}

# The cut moments: for cut K of RUNS, fault point N drawn at random from
# the K-th of RUNS equal slices of 1..POINTS+1 (POINTS+1: right after the
# apply exited, nothing synced since), and every second cut a random time
# within the measured length of a whole apply instead (moments between
# fault points: inside grub-mkconfig, between a write and its fsync).
# HT_POWERCUT_AT ("point=N time=MS point=end ...", one word a cut)
# replays chosen moments instead (a cut the table showed failing).
cut_spec() { # K
        points=$(cat $PC/points)
        span=$((points + 1))
        chosen=$(echo "${HT_POWERCUT_AT:-}" | awk -v k="$1" '{ print $k }')
        case $chosen in
        point=end) echo "point=$span"; return ;;
        point=[0-9]* | time=[0-9]*) echo "$chosen"; return ;;
        esac
        if [ $(($1 % 2)) = 0 ] && [ "$RUNS" -gt 1 ]; then
                echo "time=$(random_below "$(cat $PC/apply-ms)")"
                return
        fi
        lo=$(( ($1 - 1) * span / RUNS + 1 ))
        hi=$(( $1 * span / RUNS ))
        [ $hi -ge $lo ] || hi=$lo
        echo "point=$(( lo + $(random_below $((hi - lo + 1))) ))"
}

# arm_cut K: make everything so far durable, stop the kernel's own
# writeback, start the apply and wait for the power to go. Never returns.
arm_cut() {
        k=$1
        spec=$(cut_spec $k)
        echo $k >$PC/cut
        echo "$spec" >$PC/spec-$k
        echo "powercut: arming cut $k of $RUNS: $spec"
        # the next boot runs this scenario's verify.sh
        echo 2 >/var/lib/ht-harness/stage
        sleep 1         # results.txt is written through tee: let it catch up
        sync
        # From here on only what is fsynced reaches the disk: no periodic
        # writeback, ext4 commits only when someone fsyncs, and no
        # flush-on-rename heuristic (auto_da_alloc), so a tool's unsynced
        # rename over a file is as fragile as on XFS.
        sysctl -q vm.dirty_writeback_centisecs=0 vm.dirty_expire_centisecs=8640000
        mount -o remount,commit=3600,noauto_da_alloc / ||
                mount -o remount,commit=3600 /
        case $spec in
        point=*) pause=${spec#point=} ;;
        *) pause= ;;
        esac
        say "HT-POWERCUT armed cut=$k $spec"
        HOSTTUNE_FAULT_TRACE=1 HOSTTUNE_FAULT_PAUSE=$pause $HT apply $PROFILE $SETS >$TTY 2>&1
        say "HT-POWERCUT apply-exited cut=$k rc=$?"
        # the harness would sync: wait for the cut instead
        while :; do sleep 3600; done
}
