#!/bin/sh
# plan says up front, in apply's words, which managed files apply will
# refuse to replace (apply-file-metadata.sh has apply's refusals): one
# with other hard links, an immutable or append-only one (chattr +i, +a),
# a FIFO where the file is (which plan read as empty), a link where a
# drop-in goes (to /dev/null: masked). The plan still
# exits 2 (changes pending) and shows its diff; a plan of the untouched
# host has no such warning. TAP.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
SGA="--set sga_max_size=4G"
PROFILES=$top_srcdir/profiles

h=$(prepare_host debian12-kvm); scratch "$h"
g=$h/etc/default/grub
# plan_says DESCRIPTION NEEDLE: plan exits 2 and warns NEEDLE
plan_says() {
        htrun 2 "plan with $1" "$h" plan oracle $SGA
        check_contains "plan warns of $1 as apply refuses it" "warning: cannot write $g: $2" "$tmp/out"
        check_contains "... and says what apply does" "; apply refuses it and changes nothing" "$tmp/out"
}
htrun 2 "plan of the fixture" "$h" plan oracle $SGA
if grep -q "apply refuses it" "$tmp/out"; then not_ok "no refusal warning on the fixture: $(grep refuses "$tmp/out")"
else ok "no refusal warning on the fixture"; fi

ln "$g" "$tmp/grub-other-name"
plan_says "a file with other hard links" \
        "Too many links (it has other hard links: a replace would leave them with the old content"
ht "$h" --json plan oracle $SGA
check_contains "plan --json carries it in warnings" "cannot write $g: Too many links" "$tmp/out"
rm "$tmp/grub-other-name"

# tmpfs before Linux 6.0 and overlayfs take no inode flags
if is_root && chattr +i "$g" 2>/dev/null; then
        plan_says "an immutable file" "Operation not permitted (it is immutable: 'chattr -i $g' lets hosttune replace it"
        chattr -i "$g"
        chattr +a "$g"
        plan_says "an append-only file" "Operation not permitted (it is append-only: 'chattr -a $g'"
        chattr -a "$g"
        # A directory hosttune writes a new file in, immutable or
        # append-only (no name may be added, renamed over or removed
        # there): plan said nothing, apply refused. etc/systemd has no
        # logind.conf.d yet: apply would make it there. In an append-only
        # one apply made its temp file, and then neither its rename nor
        # its unlink could be done: a .#90-hosttune.conf.* stayed, and
        # logind.conf.d, which a rollback cannot remove.
        ls_before=$(ls -A "$h/etc/sysctl.d" "$h/etc/systemd")
        for flag in i a; do
                chattr +$flag "$h/etc/sysctl.d" "$h/etc/systemd"
                htrun 2 "plan with chattr +$flag directories" "$h" plan oracle $SGA
                cp "$tmp/out" "$tmp/plan.out"
                for f in etc/sysctl.d/90-hosttune.conf etc/systemd/logind.conf.d/90-hosttune.conf; do
                        d=${f%/*}
                        [ "$d" = etc/systemd/logind.conf.d ] && d=etc/systemd
                        why="Operation not permitted (its directory $h/$d is $([ $flag = i ] && echo immutable || echo append-only): 'chattr -$flag $h/$d' lets hosttune write there"
                        check_contains "chattr +$flag $d: plan warns of $f" "warning: cannot write $h/$f: $why" "$tmp/plan.out"
                done
                htrun 1 "apply with chattr +$flag directories" "$h" apply oracle $SGA
                check_contains "chattr +$flag: apply refuses in plan's words" \
                        "cannot write $h/etc/sysctl.d/90-hosttune.conf: Operation not permitted (its directory $h/etc/sysctl.d is" "$tmp/err"
                chattr -$flag "$h/etc/sysctl.d" "$h/etc/systemd"
                check "chattr +$flag: apply left nothing in the directories" "$ls_before" \
                        "$(ls -A "$h/etc/sysctl.d" "$h/etc/systemd")"
        done
else
        skip "plan warns of an immutable file" "needs root and a filesystem ($tmp) with chattr flags"
        skip "plan warns of an append-only file" "needs root and a filesystem ($tmp) with chattr flags"
        skip "plan warns of immutable and append-only directories" "needs root and a filesystem ($tmp) with chattr flags"
fi

mv "$g" "$tmp/grub.saved"
mkfifo "$g"
plan_says "a FIFO as /etc/default/grub" "Invalid argument (it is a FIFO, not a regular file"
rm "$g"
mv "$tmp/grub.saved" "$g"

# A drop-in masked by a link to /dev/null, as sysctl.d(5), tmpfiles.d(5),
# udev(7) and systemd.unit(5) mask a name (pam_limits reads the link as
# an empty file): plan read it as absent (a tree without /dev) and said
# nothing, and apply refused it. A dangling link the same. sysctl.d's own
# is a plan error (sysctl-real-world.sh). Every other drop-in hosttune
# writes: the limits, tmpfiles.d (sysfs), udev rules (block), a unit's,
# logind's and the manager's. The tree is an offline image here (an
# image has no devices, and the udev rules are for the devices to come).
mkdir -p "$tmp/p" "$h/usr/lib/systemd/system"
printf '%s\n' 'limits = ( { domain = "oracle"; type = "soft"; item = "nofile"; value = 1024; } );' \
        'sysfs = ( { path = "/sys/kernel/mm/transparent_hugepage/enabled"; value = "never"; } );' \
        'services = ( { unit = "db.service"; LimitNOFILE = 65536; } );' \
        'systemd = { logind = { RemoveIPC = "no"; }; system = { DefaultLimitNOFILE = 65536; }; };' \
        'block = { rotational = { queue = { read_ahead_kb = 4096; }; }; non-rotational = { queue = { read_ahead_kb = 4096; }; }; };' >"$tmp/p/dropins.profile"
printf '[Service]\nExecStart=/usr/bin/db\n' >"$h/usr/lib/systemd/system/db.service"
dropins="etc/security/limits.d/90-hosttune.conf etc/tmpfiles.d/hosttune.conf etc/udev/rules.d/99-hosttune-block.rules
etc/systemd/system/db.service.d/hosttune.conf etc/systemd/logind.conf.d/90-hosttune.conf
etc/systemd/system.conf.d/90-hosttune.conf"
masked="it is a symlink to /dev/null, which masks the file: the host reads nothing under this name; hosttune never writes through a symlink: remove the link to let hosttune write its file"
# listing HOST: names, types and link targets, without hosttune's state
listing() { (cd "$1" && find . -path ./var -prune -o -printf '%p %y %l\n' | LC_ALL=C sort); }
for target in /dev/null ../missing-file; do
        for f in $dropins; do mkdir -p "$h/${f%/*}" && ln -sfn "$target" "$h/$f"; done
        case $target in
        /dev/null) why="Too many levels of symbolic links ($masked)" ;;
        *) why="Too many levels of symbolic links (it is a symlink: hosttune never writes through a symlink)" ;;
        esac
        env -u HOSTTUNE_TEST_LIVE_FIXTURES "$HOSTTUNE" --root "$h" --profile-path "$tmp/p" --rules-path "$RULES" plan dropins >"$tmp/out" 2>"$tmp/err"
        check "drop-ins linked to $target: plan exits 2 (changes pending)" 2 "$?"
        for f in $dropins; do
                check_contains "linked to $target: plan warns of $f as apply refuses it" \
                        "warning: cannot write $h/$f: $why; apply refuses it and changes nothing" "$tmp/out"
        done
        before=$(listing "$h")
        env -u HOSTTUNE_TEST_LIVE_FIXTURES "$HOSTTUNE" --root "$h" --profile-path "$tmp/p" --rules-path "$RULES" apply dropins >"$tmp/out" 2>"$tmp/err"
        check "linked to $target: apply refuses (exit 1)" 1 "$?"
        check_contains "linked to $target: apply says what plan said" "$why" "$tmp/err"
        check "linked to $target: apply changed nothing" "$before" "$(listing "$h")"
done

# The same masks on the running host, where /dev/null is there and reads
# empty, and a profile without limits, sysfs or block settings: the
# masked names were planned as hosttune's files to remove, which apply
# refused, so no apply of any profile could go through while they stood.
# Only a file with hosttune's header is hosttune's to remove.
mkdir -p "$h/dev" && : >"$h/dev/null"
for f in etc/security/limits.d/90-hosttune.conf etc/tmpfiles.d/hosttune.conf etc/udev/rules.d/99-hosttune-block.rules; do
        ln -sfn /dev/null "$h/$f"
done
printf '%s\n' 'sysctl = { vm = { swappiness = 1; }; };' >"$tmp/p/sysctl-only.profile"
"$HOSTTUNE" --root "$h" --profile-path "$tmp/p" --rules-path "$RULES" plan sysctl-only >"$tmp/out" 2>"$tmp/err"
check "masks on a live host, sysctl only: plan exits 2" 2 "$?"
check "no removal of the masks planned" "" "$(grep -e 'cannot remove' -e '^--- a/etc/\(security\|tmpfiles.d\|udev\)' "$tmp/out")"
"$HOSTTUNE" --root "$h" --profile-path "$tmp/p" --rules-path "$RULES" apply sysctl-only >"$tmp/out" 2>"$tmp/err"
check "masks on a live host, sysctl only: apply goes through" 0 "$?"
check "the masks stay" "/dev/null /dev/null /dev/null" \
        "$(readlink "$h/etc/security/limits.d/90-hosttune.conf" "$h/etc/tmpfiles.d/hosttune.conf" "$h/etc/udev/rules.d/99-hosttune-block.rules" | tr '\n' ' ' | sed 's/ $//')"
finish
