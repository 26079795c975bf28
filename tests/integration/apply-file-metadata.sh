#!/bin/sh
# Managed files that are not plain files with plain metadata (the
# write-side audit): a replace by rename keeps the old file's ACL, SELinux
# label and user xattrs (owner and mode too), rollback and recovery after
# a kill bring them back with the content; a file with other hard links,
# and an immutable or append-only one, are refused before anything
# changes, with a message naming the file and why, as are a FIFO and a
# file on a read-only mount.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"

is_root || skip_all "needs root (security.* xattrs, chattr, chown)"
for t in setfacl getfacl setfattr getfattr chattr; do
        command -v $t >/dev/null || skip_all "$t is not installed (scripts/deps.sh)"
done
SGA="--set sga_max_size=4G"
export HOSTTUNE_TEST_LIVE_FIXTURES=1

h=$(prepare_host debian12-kvm); scratch "$h"
g=$h/etc/default/grub
chown 1234:1234 "$g"
chmod 0640 "$g"
setfacl -m u:4321:r "$g" && setfattr -n user.hosttune-test -v kept "$g" &&
        setfattr -n security.selinux -v system_u:object_r:bootloader_etc_t:s0 "$g" ||
        skip_all "this filesystem ($tmp) has no ACLs or xattrs"
# every attribute, the ACL among them (system.posix_acl_access), owner, mode
meta() { getfattr -h -d -m - --absolute-names "$1" | tail -n +2; stat -c '%u:%g %a' "$1"; }
meta "$g" >"$tmp/meta-before"
cp -a "$h" "$tmp/before"

# --- apply keeps them; rollback puts back content and metadata -----------
htrun 0 "apply oracle" "$h" apply oracle $SGA
check "apply changed /etc/default/grub" "yes" "$(cmp -s "$g" "$tmp/before/etc/default/grub" || echo yes)"
meta "$g" >"$tmp/meta-applied"
if d=$(diff "$tmp/meta-before" "$tmp/meta-applied"); then ok "apply keeps the ACL, label, xattrs, owner and mode"
else not_ok "apply lost metadata of /etc/default/grub: $d"; fi
check_contains "the ACL's named user is there" "user:4321:r--" "$(getfacl -cp "$g" >"$tmp/acl"; echo "$tmp/acl")"
cp -a "$h" "$tmp/applied"
htrun 0 "rollback" "$h" rollback
same_tree "rollback: the tree as before" "$tmp/before" "$h"
meta "$g" >"$tmp/meta-rolled"
if d=$(diff "$tmp/meta-before" "$tmp/meta-rolled"); then ok "rollback keeps the ACL, label, xattrs, owner and mode"
else not_ok "rollback lost metadata of /etc/default/grub: $d"; fi

# --- a kill at each file's rename: recovery leaves it wholly old or new,
# with its metadata either way --------------------------------------------
c=$tmp/crash
for point in atomic-temp:1 atomic-temp:3 atomic-temp:5 apply-file:2 apply-file:4 apply-file:5; do
        rm -rf "$c"
        cp -a "$tmp/before" "$c"
        { HOSTTUNE_FAULT_AFTER=$point "$HOSTTUNE" --root "$c" --profile-path "$PROFILES" --rules-path "$RULES" \
                apply oracle $SGA >"$tmp/crash-out" 2>&1; } 2>/dev/null
        krc=$?
        ht "$c" history
        problem=
        [ "$krc" = 137 ] || problem="apply exit $krc, expected 137 (SIGKILL)"
        cmp -s "$c/etc/default/grub" "$tmp/before/etc/default/grub" ||
                cmp -s "$c/etc/default/grub" "$tmp/applied/etc/default/grub" ||
                problem="$problem; /etc/default/grub is neither the old nor the new file"
        meta "$c/etc/default/grub" | sed "s|$c|$h|" >"$tmp/meta-crash"
        d=$(diff "$tmp/meta-before" "$tmp/meta-crash") || problem="$problem; metadata: $d"
        if [ -z "$problem" ]; then ok "killed at $point, recovered: grub whole, metadata kept"
        else not_ok "killed at $point: $problem"; fi
done

# --- refused before anything: other hard links, chattr +i, chattr +a -----
refused() { # DESCRIPTION NEEDLE: apply exits 1, names grub and why, tree untouched
        htrun 1 "apply refuses $1" "$h" apply oracle $SGA
        check_contains "apply names /etc/default/grub and why ($1)" "$h/etc/default/grub: $2" "$tmp/err"
        # the journal keeps a failed transaction; the rest is as before
        same_tree "$1: the tree as before" "$tmp/before" "$h"
}
ln "$g" "$tmp/grub-other-name"
refused "a file with other hard links" "Too many links (it has other hard links"
check "the other name keeps the link" "2" "$(stat -c %h "$g")"
rm "$tmp/grub-other-name"
# tmpfs and overlayfs take no inode flags: the two checks skip there
if chattr +i "$g" 2>/dev/null; then
        refused "an immutable file" "Operation not permitted (it is immutable: 'chattr -i $g'"
        chattr -i "$g"
        chattr +a "$g"
        refused "an append-only file" "Operation not permitted (it is append-only"
        chattr -a "$g"
else
        skip "apply refuses an immutable file" "this filesystem ($tmp) takes no chattr flags"
        skip "apply refuses an append-only file" "this filesystem ($tmp) takes no chattr flags"
fi

# --- a FIFO where a file is expected; a read-only bind mount -------------
mv "$g" "$tmp/grub.saved"
mkfifo "$g"
htrun 1 "apply refuses a FIFO as /etc/default/grub" "$h" apply oracle $SGA
check_contains "apply says it is a FIFO" "$h/etc/default/grub: Invalid argument (it is a FIFO, not a regular file" "$tmp/err"
check "the FIFO stays" "yes" "$([ -p "$g" ] && echo yes)"
rm "$g"
mv "$tmp/grub.saved" "$g"
# a FIFO where hosttune's own drop-in was: rollback refuses, saying what it is
htrun 0 "apply oracle again" "$h" apply oracle $SGA
d=$h/etc/sysctl.d/90-hosttune.conf
mv "$d" "$tmp/dropin.saved"
mkfifo "$d"
htrun 1 "rollback refuses a FIFO as its drop-in" "$h" rollback
check_contains "rollback says it is a FIFO" "90-hosttune.conf: Invalid argument (it is a FIFO, not a regular file" "$tmp/err"
rm "$d"
mv "$tmp/dropin.saved" "$d"
htrun 0 "rollback once the drop-in is back" "$h" rollback
same_tree "FIFO: the tree as before after the rollback" "$tmp/before" "$h"
if mount --bind "$h/etc/security" "$h/etc/security" 2>/dev/null; then
        if mount -o remount,bind,ro "$h/etc/security" 2>/dev/null; then
                rofs="Read-only file system (a read-only mount: an image-based system's /usr, a read-only bind mount; change it in the image, or remount it read-write)"
                # plan said nothing of it before
                htrun 2 "plan with limits.d on a read-only mount" "$h" plan oracle $SGA
                check_contains "plan warns of the read-only mount in apply's words" \
                        "warning: cannot write $h/etc/security/limits.d/90-hosttune.conf: $rofs; apply refuses it and changes nothing" "$tmp/out"
                htrun 1 "apply refuses a file on a read-only mount" "$h" apply oracle $SGA
                check_contains "apply names the file and the read-only mount" \
                        "limits.d/90-hosttune.conf: $rofs" "$tmp/err"
        else
                ok "# SKIP a read-only bind mount: remount refused here"
        fi
        umount "$h/etc/security"
        same_tree "read-only mount: the tree as before" "$tmp/before" "$h"
else
        ok "# SKIP a read-only bind mount: mount refused here"
fi
# A read-only /boot ('ro' in fstab; Fedora CoreOS mounts it so): the
# grub.cfg grub-mkconfig writes there. plan said nothing, and apply
# installed every file, ran the tool, saw it fail and undid it all; now
# plan warns and apply refuses before anything changes.
h2=$(prepare_host debian12-kvm); scratch "$h2"
HT_LIVE_ROOT=1
fake_tool "$h2" ok
cp -a "$h2" "$tmp/before2"
if mount --bind "$h2/boot" "$h2/boot" 2>/dev/null; then
        if mount -o remount,bind,ro "$h2/boot" 2>/dev/null; then
                rofs="Read-only file system (a read-only mount: an image-based system's /usr, a read-only bind mount; change it in the image, or remount it read-write)"
                htrun 2 "plan with a read-only /boot" "$h2" plan oracle $SGA
                check_contains "plan warns of grub.cfg on the read-only /boot" \
                        "warning: cannot write $h2/boot/grub/grub.cfg: $rofs; apply refuses it and changes nothing" "$tmp/out"
                htrun 1 "apply refuses a read-only /boot" "$h2" apply oracle $SGA
                check_contains "apply names grub.cfg and the read-only mount" "$h2/boot/grub/grub.cfg: $rofs" "$tmp/err"
                check "apply changed nothing: the tool never ran, no undo was needed" "" \
                        "$(grep -i 'rollback:\|grub-mkconfig' "$tmp/err")"
        else
                ok "# SKIP a read-only /boot: remount refused here"
        fi
        umount "$h2/boot"
        same_tree "read-only /boot: the tree as before" "$tmp/before2" "$h2"
else
        ok "# SKIP a read-only /boot: mount refused here"
fi
# An immutable grub.cfg: the tool's output could not be renamed over it
# once every other file was in place. Refused up front too.
if chattr +i "$h2/boot/grub/grub.cfg" 2>/dev/null; then
        htrun 2 "plan with an immutable grub.cfg" "$h2" plan oracle $SGA
        check_contains "plan warns of the immutable grub.cfg" \
                "warning: cannot write $h2/boot/grub/grub.cfg: Operation not permitted (it is immutable: 'chattr -i $h2/boot/grub/grub.cfg'" "$tmp/out"
        htrun 1 "apply refuses an immutable grub.cfg" "$h2" apply oracle $SGA
        check "apply refused before the tool ran: nothing to undo" "" "$(grep -i 'rollback:\|grub-mkconfig' "$tmp/err")"
        chattr -i "$h2/boot/grub/grub.cfg"
        same_tree "immutable grub.cfg: the tree as before" "$tmp/before2" "$h2"
else
        skip "apply refuses an immutable grub.cfg" "this filesystem ($tmp) takes no chattr flags"
fi
unset HT_LIVE_ROOT
finish
