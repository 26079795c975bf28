#!/bin/sh
# The journal is confined (issue 32, item 2). A manifest whoever could
# write the state directory tampered with, run through rollback and
# through the crash recovery every command starts with (status, verify
# --boot): a runtime item at a stand-in for /etc/shadow, a file item at
# /etc/passwd with a setuid mode (its "new" checksum made the file's own,
# so the undo would take it for this transaction's), a transaction of
# another root read through a shared --state-dir. Each is refused with
# the manifest named; nothing outside the journal changes (whole-tree
# comparison, modes and owners included); no message carries a line of
# either file. A follow-up's argv in the manifest is never run, and the
# rollback of that transaction still restores everything (the table, not
# the manifest, says what a follow-up runs; tests/unit/test-journal.c
# runs it on "/", the only root whose follow-ups run at all).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
PROFILES=$top_srcdir/profiles

pristine=$(prepare_host debian12-kvm); scratch "$pristine"
printf 'root:$6$SECRETHASH$x:19000:0:99999:7:::\n' >"$pristine/etc/shadow"
chmod 0640 "$pristine/etc/shadow"
passwd_line=$(head -n 1 "$pristine/etc/passwd")

h=$tmp/applied
cp -a "$pristine" "$h"
htrun 0 "apply oracle" "$h" --json apply oracle --set sga_max_size=2G
txid=$(jq_get "$tmp/out" txid)
m=var/lib/hosttune/journal/$txid/manifest.json
passwd_sha=$(sha256sum "$h/etc/passwd" | cut -d' ' -f1)

# no_content WHAT: neither file's content in stdout or stderr
no_content() {
        if grep -q -e SECRETHASH -e "$passwd_line" "$tmp/out" "$tmp/err"; then
                not_ok "$1: a message carries a file's content: $(head -c 600 "$tmp/err")"
        else ok "$1: no file's content in any message"; fi
}

# tamper NAME JQ-FILTER: a copy of the applied tree, its manifest edited
tamper() {
        t=$tmp/t-$1
        rm -rf "$t"
        cp -a "$h" "$t"
        jq "$2" "$t/$m" >"$tmp/m.json" && cat "$tmp/m.json" >"$t/$m"
}

for variant in runtime-shadow file-passwd; do
        case $variant in
        runtime-shadow) filter='(.items[] | select(.kind == "runtime") | .path) |= "/etc/shadow"' ;;
        file-passwd) filter="(.items[] | select(.kind == \"file\" and .prior.existed)) |= (.path = \"/etc/passwd\" | .prior.mode = \"4755\" | .new.sha256 = \"$passwd_sha\")" ;;
        esac
        # committed: what rollback reads
        tamper "$variant" "$filter"
        ht "$t" rollback
        check "$variant: rollback refuses it" "1" "$rc"
        check_contains "$variant: the refusal names the manifest" "manifest refused" "$tmp/err"
        check_contains "$variant: ... and where it is" "$t/$m" "$tmp/err"
        no_content "$variant: rollback"
        same_tree "$variant: rollback changed nothing" "$h" "$t"
        # pending: what a crash left, recovered by any command
        tamper "$variant" "$filter | .status = \"pending\""
        : >"$t/var/lib/hosttune/journal/$txid/PENDING"
        for cmd in status "verify --boot"; do
                # shellcheck disable=SC2086
                ht "$t" $cmd
                check_contains "$variant: $cmd's recovery refuses it" "manifest refused" "$tmp/err"
                no_content "$variant: $cmd"
                same_tree "$variant: $cmd's recovery changed nothing" "$h" "$t"
        done
done
check "the shadow stand-in is as it was" "$(cat "$pristine/etc/shadow")" "$(cat "$t/etc/shadow")"

# a follow-up's argv is history, never run; the rollback goes on
tamper followup ".info.follow_ups = [{\"backend\": \"systemd\", \"action\": \"pwn\", \"description\": \"d\", \"argv\": [\"/usr/bin/touch\", \"$tmp/pwned\"]}]"
htrun 0 "followup: the transaction still rolls back" "$t" rollback
same_tree "followup: the rollback restored the host" "$pristine" "$t"
check "followup: its argv did not run" "no" "$([ -e "$tmp/pwned" ] && echo yes || echo no)"

# another root's transaction through a shared state directory
a=$tmp/root-a; b=$tmp/root-b
cp -a "$pristine" "$a"; cp -a "$pristine" "$b"
htrun 0 "apply oracle to root a, journal outside it" "$a" --state-dir "$tmp/shared" --json apply oracle --set sga_max_size=2G
ht "$b" --state-dir "$tmp/shared" rollback
check "root b: rollback refuses root a's transaction" "1" "$rc"
check_contains "root b: the refusal says why" "not this run's root" "$tmp/err"
same_tree "root b: nothing changed" "$pristine" "$b"
ht "$a" --state-dir "$tmp/shared" rollback
check "root a: its own rollback still works" "0" "$rc"
same_tree "root a: restored" "$pristine" "$a"
finish
