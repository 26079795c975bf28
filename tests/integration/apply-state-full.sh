#!/bin/sh
# A full state directory (ENOSPC in /var/lib/hosttune) before, during and
# after the first change of an apply: what apply says of the host is what
# the host is, whatever the journal could record. Each fixture copy gets
# its own small tmpfs as its state directory (a private mount namespace):
#  - full before the begin record: nothing changed, exit 1, no record;
#  - room for the begin record only (the commit record fails after every
#    change was made): the undo puts all back, exit 1, "as it was before"
#    (not "NOT as before"), the transaction stays pending and the first
#    run with room closes it;
#  - the same, and a runtime value the kernel will not take back: exit 4,
#    that value named as not as before; the next run with room finishes
#    the undo.
# Root, unshare -m and tmpfs only. TAP.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
unset HOSTTUNE_FAULT_FAIL

if ! is_root || ! unshare -m --propagation private true 2>/dev/null; then
        skip_all "needs root and unshare -m (a tmpfs as the state directory)"
fi

mkdir -p "$tmp/profiles"
cat >"$tmp/profiles/t.profile" <<'EOP'
summary = "a file and two runtime values";
sysctl = { vm = { swappiness = 10; dirty_ratio = 15; }; };
EOP
PROFILES=$tmp/profiles
pristine=$(prepare_host debian12-kvm); scratch "$pristine"
for c in before commit partial rollback; do
        cp -a "$pristine" "$tmp/$c"
        mkdir -p "$tmp/$c/var/lib/hosttune"
done

# One namespace for the three: each tmpfs lives as long as it. h NAME
# ROOT ARGS: hosttune, its output in $tmp/NAME.{out,err,rc}. A tmpfs of
# 4k holds one page: the begin record (one page) and nothing more.
cat >"$tmp/inner.sh" <<'EOS'
h() {
        n=$1 r=$2; shift 2
        "$HOSTTUNE" --root "$r" --profile-path "$PROFILES" --rules-path "$RULES" "$@" >"$tmp/$n.out" 2>"$tmp/$n.err"
        echo $? >"$tmp/$n.rc"
}
for c in before commit partial; do
        mount -t tmpfs -o size=4k,mode=0700 tmpfs "$tmp/$c/var/lib/hosttune" || exit 1
done
# full before anything: a page taken
head -c 4096 /dev/zero >"$tmp/before/var/lib/hosttune/filler"
h before-apply "$tmp/before" apply t
rm "$tmp/before/var/lib/hosttune/filler"
h before-history "$tmp/before" --json history

h commit-apply "$tmp/commit" --json apply t
h commit-full "$tmp/commit" status
mount -o remount,size=1m "$tmp/commit/var/lib/hosttune"
h commit-status "$tmp/commit" status
h commit-history "$tmp/commit" --json history

HOSTTUNE_FAULT_FAIL=apply-runtime-write:2,restore-runtime h partial-apply "$tmp/partial" apply t
cp "$tmp/partial/proc/sys/vm/swappiness" "$tmp/partial-swappiness"
mount -o remount,size=1m "$tmp/partial/var/lib/hosttune"
h partial-status "$tmp/partial" status
h partial-history "$tmp/partial" --json history

# a rollback with room for its begin record (its manifest and the
# drop-in's backup: two pages), not for its commit
st=$tmp/rollback/var/lib/hosttune
mount -t tmpfs -o size=1m,mode=0700 tmpfs "$st" || exit 1
h rollback-apply "$tmp/rollback" apply t
cp -a "$tmp/rollback" "$tmp/applied"
used=$(df -k --output=used "$st" | tail -n 1)
mount -o remount,size=$((used + 8))k "$st"
h rollback-full "$tmp/rollback" rollback
cp "$tmp/rollback/proc/sys/vm/swappiness" "$tmp/rollback-swappiness"
mount -o remount,size=1m "$st"
h rollback-status "$tmp/rollback" status
h rollback-history "$tmp/rollback" --json history
EOS
export tmp HOSTTUNE PROFILES RULES
if unshare -m --propagation private sh "$tmp/inner.sh"; then ok "tmpfs state directories mounted"; else
        not_ok "tmpfs state directories: cannot mount"; finish; fi
rcof() { cat "$tmp/$1.rc"; }
lacks() { if grep -qF -- "$2" "$3"; then not_ok "$1: [$2] in $(head -c 600 "$3")"; else ok "$1"; fi; }

# ---- full before the begin record -----------------------------------------
check "before: exit 1 (the host as it was)" 1 "$(rcof before-apply)"
check_contains "before: the reason" "No space left on device" "$tmp/before-apply.err"
check_contains "before: nothing was changed" \
        "hosttune: nothing was changed: the host is as it was before this apply" "$tmp/before-apply.err"
lacks "before: not said to be changed" "NOT as it was" "$tmp/before-apply.err"
check_contains "before: no record is said to be kept" "the journal keeps no record of this apply" "$tmp/before-apply.err"
same_tree "before: the host is the fixture" "$pristine" "$tmp/before"
check "before: the journal holds no transaction" 0 "$(jq_get "$tmp/before-history.out" transactions.#)"

# ---- room for the begin record, not for the commit -------------------------
check "commit: exit 1 (the host as it was)" 1 "$(rcof commit-apply)"
check_contains "commit: the commit record is what failed" "commit.json: No space left on device" "$tmp/commit-apply.err"
check_contains "commit: the host is as it was" \
        "hosttune: the host is as it was before this apply: its changes were undone" "$tmp/commit-apply.err"
lacks "commit: not said to be changed" "NOT as it was" "$tmp/commit-apply.err"
check_contains "commit: the pending record is explained" "stays pending, and the first hosttune run (any command) with room in" \
        "$tmp/commit-apply.err"
check "commit: --json rollback_complete" true "$(jq_get "$tmp/commit-apply.out" rollback_complete)"
check "commit: --json changed" false "$(jq_get "$tmp/commit-apply.out" changed)"
same_tree "commit: the host is the fixture" "$pristine" "$tmp/commit"
check_contains "commit: a run without room says why it cannot close it" "No space left on device" "$tmp/commit-full.err"
check "commit: the first run with room closes it (exit 0)" 0 "$(rcof commit-status)"
check "commit: one transaction" 1 "$(jq_get "$tmp/commit-history.out" transactions.#)"
st=$(jq_get "$tmp/commit-history.out" transactions.0.status)
case $st in pending) not_ok "commit: still pending after a run with room" ;; *) ok "commit: closed ($st)" ;; esac
same_tree "commit: the host is still the fixture" "$pristine" "$tmp/commit"

# ---- and a value the kernel will not take back -----------------------------
check "partial: exit 4 (the host is not as it was)" 4 "$(rcof partial-apply)"
check_contains "partial: the value not back is named" "not as before: vm.swappiness is '10'" "$tmp/partial-apply.err"
check_contains "partial: NOT as before" "the host is NOT as it was before this apply" "$tmp/partial-apply.err"
check_contains "partial: the next run retries" "the next hosttune run (any command) retries the undo" \
        "$tmp/partial-apply.err"
check "partial: vm.swappiness is still the apply's" 10 "$(cat "$tmp/partial-swappiness")"
check "partial: the next run with room finishes the undo (exit 0)" 0 "$(rcof partial-status)"
same_tree "partial: the host is the fixture after it" "$pristine" "$tmp/partial"
st=$(jq_get "$tmp/partial-history.out" transactions.0.status)
case $st in pending) not_ok "partial: still pending after the undo finished" ;; *) ok "partial: closed ($st)" ;; esac

# ---- a rollback whose commit record finds no room --------------------------
check "rollback: the apply (exit 0)" 0 "$(rcof rollback-apply)"
check "rollback: exit 1 (the host as it was before the rollback)" 1 "$(rcof rollback-full)"
check_contains "rollback: its commit record is what failed" "commit.json: No space left on device" "$tmp/rollback-full.err"
check_contains "rollback: its restores undone, said" \
        "the rollback's restores were undone: the host is as it was before this rollback" "$tmp/rollback-full.out"
check "rollback: vm.swappiness is the apply's again" 10 "$(cat "$tmp/rollback-swappiness")"
check "rollback: the next run with room (exit 0)" 0 "$(rcof rollback-status)"
same_tree "rollback: the host is as applied, not rolled back behind the user's back" "$tmp/applied" "$tmp/rollback"
check "rollback: the apply stays committed" committed "$(jq_get "$tmp/rollback-history.out" transactions.0.status)"
finish
