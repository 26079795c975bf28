#!/bin/sh
# plan says up front, in apply's words, which managed files apply will
# refuse to replace (apply-file-metadata.sh has apply's refusals): one
# with other hard links, an immutable or append-only one (chattr +i, +a),
# a FIFO where the file is (which plan read as empty). The plan still
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
else
        skip "plan warns of an immutable file" "needs root and a filesystem ($tmp) with chattr flags"
        skip "plan warns of an append-only file" "needs root and a filesystem ($tmp) with chattr flags"
fi

mv "$g" "$tmp/grub.saved"
mkfifo "$g"
plan_says "a FIFO as /etc/default/grub" "Invalid argument (it is a FIFO, not a regular file"
rm "$g"
mv "$tmp/grub.saved" "$g"
finish
