#!/bin/sh
# Kernel values round-trip, and a restore that fails (issue 16, item 1).
# On a fixture whose stand-ins behave as the kernel's files (a choice list
# takes one word and refuses the list it shows; a /proc/sys value of
# integer fields reads back tab-separated): the journal keeps every prior
# value in the form the kernel takes on write; a rollback whose second
# restore fails (HOSTTUNE_FAULT_FAIL) keeps what it restored, names the
# one item it could not restore with the value found, exits 4, and
# 'rollback' again finishes it; a kernel that stops offering the old word
# fails the restore for real (EINVAL); a failed apply whose undo stops
# exits 4 without claiming the host is as it was, and the next run
# finishes the undo. Expected values come from the fixture files.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
unset HOSTTUNE_FAULT_FAIL

thp=/sys/kernel/mm/transparent_hugepage
sched=/sys/block/vda/queue/scheduler
pristine=$(prepare_host debian12-kvm); scratch "$pristine"
# choice files the fixture lacks, as Linux 6.1 prints them
# (mm/shmem.c shmem_enabled_show, block/elevator.c elv_iosched_show)
printf 'always within_size advise [never] deny force\n' >"$pristine$thp/shmem_enabled"
mkdir -p "$pristine/sys/block/vda/queue"
printf '[mq-deadline] none\n' >"$pristine$sched"
# the writable form, from the fixture as read: the marked word; integer
# fields one space apart
word() { sed 's/.*\[\(.*\)\].*/\1/' "$1"; }
fields() { tr -s ' \t' '  ' <"$1"; }

mkdir -p "$tmp/profiles"
cat >"$tmp/profiles/roundtrip.profile" <<'EOP'
summary = "every kind of kernel value: choice lists and multi-field sysctls";
sysctl = {
        kernel = { sem = "32000 1024000000 500 32768"; };
        net = { ipv4 = { ip_local_port_range = "9000 65500"; }; };
        vm = { swappiness = 10; };
};
sysfs = (
        { path = "/sys/kernel/mm/transparent_hugepage/enabled"; value = "never"; },
        { path = "/sys/kernel/mm/transparent_hugepage/defrag"; value = "never"; },
        { path = "/sys/kernel/mm/transparent_hugepage/shmem_enabled"; value = "advise"; },
        { path = "/sys/block/vda/queue/scheduler"; value = "none"; }
);
EOP
PROFILES=$tmp/profiles

# key=path=writable prior, one a line, from the fixture
{
        echo "kernel.sem /proc/sys/kernel/sem $(fields "$pristine/proc/sys/kernel/sem")"
        echo "net.ipv4.ip_local_port_range /proc/sys/net/ipv4/ip_local_port_range $(fields "$pristine/proc/sys/net/ipv4/ip_local_port_range")"
        echo "vm.swappiness /proc/sys/vm/swappiness $(cat "$pristine/proc/sys/vm/swappiness")"
        for f in enabled defrag shmem_enabled; do echo "$thp/$f $thp/$f $(word "$pristine$thp/$f")"; done
        echo "$sched $sched $(word "$pristine$sched")"
} >"$tmp/priors"
check "the fixture's kernel.sem is tab-separated (what the test is about)" "yes" \
        "$(grep -q "$(printf '\t')" "$pristine/proc/sys/kernel/sem" && echo yes || echo no)"
check "the fixture's defrag is a choice list" "madvise" "$(word "$pristine$thp/defrag")"

# ---- apply: the journal keeps what the kernel takes back ----------------
h=$tmp/h
cp -a "$pristine" "$h"
htrun 0 "apply" "$h" --json apply roundtrip
txid=$(jq_get "$tmp/out" txid)
m=$h/var/lib/hosttune/journal/$txid/manifest.json
i=0
: >"$tmp/journal-priors"
while [ "$i" -lt "$(jq_get "$m" items.#)" ]; do
        [ "$(jq_get "$m" "items.$i.kind")" = runtime ] &&
                echo "$(jq_get "$m" "items.$i.key")|$(jq_get "$m" "items.$i.prior.value")" >>"$tmp/journal-priors"
        i=$((i + 1))
done
while read -r key path want; do
        got=$(sed -n "s#^$key|##p" "$tmp/journal-priors")
        check "journal: $key prior kept as '$want'" "$want" "$got"
done <"$tmp/priors"
check "journal: one runtime item per value" "$(wc -l <"$tmp/priors")" "$(wc -l <"$tmp/journal-priors")"
check "the fixture shows kernel.sem as the kernel would (tabs)" \
        "$(printf '32000\t1024000000\t500\t32768')" "$(cat "$h/proc/sys/kernel/sem")"
check "the fixture shows the scheduler chosen" "mq-deadline [none]" "$(cat "$h$sched")"
cp -a "$h" "$tmp/applied"

# ---- a rollback whose second restore fails -----------------------------
HOSTTUNE_FAULT_FAIL=restore-runtime:2 ht "$h" rollback
check "rollback with one restore failing: exit 4 (incomplete)" "4" "$rc"
# which value is still the applied one: read from the files, not from hosttune
left=
while read -r key path want; do
        if cmp -s "$h$path" "$pristine$path"; then :
        elif cmp -s "$h$path" "$tmp/applied$path"; then left="$left $key"
        else not_ok "$key: neither as before nor as applied: $(cat "$h$path")"; fi
done <"$tmp/priors"
left=${left# }
check "exactly one runtime value is not restored" "1" "$(echo "$left" | wc -w)"
if [ -n "$left" ]; then
        lpath=$(awk -v k="$left" '$1 == k { print $2 }' "$tmp/priors")
        lnow=$(word "$h$lpath" 2>/dev/null)
        case $lpath in /proc/*) lnow=$(fields "$h$lpath") ;; esac
        check_contains "the error names the item not restored" "$left (" "$tmp/err"
        check_contains "... and the value it has" "it is '$lnow'" "$tmp/err"
fi
check_contains "the error counts what is left" "1 of " "$tmp/err"
check_contains "it says nothing was re-applied" "nothing was re-applied" "$tmp/err"
check_contains "what was restored is listed" "restored" "$tmp/out"
if grep -q 'the host is as it was' "$tmp/err"; then not_ok "a partial rollback claims the host is as it was"
else ok "a partial rollback does not claim the host is as it was"; fi
check "the tmpfiles drop-in is gone (restored, and stays so)" "no" \
        "$([ -e "$h/etc/tmpfiles.d/hosttune.conf" ] && echo yes || echo no)"
check "the sysctl drop-in is gone" "no" "$([ -e "$h/etc/sysctl.d/90-hosttune.conf" ] && echo yes || echo no)"
htrun 0 "history" "$h" --json history
check "history: the apply stays committed, the rollback failed" "committed failed" \
        "$(jq_get "$tmp/out" 'transactions.*.status' | tr '\n' ' ' | sed 's/ $//')"
# a read-only command in between recovers nothing and re-applies nothing
htrun 2 "plan in between" "$h" plan roundtrip
if [ -n "$left" ]; then
        check "plan re-applied nothing ($left stays as it was left)" "$(cat "$tmp/applied$lpath")" "$(cat "$h$lpath")"
fi
htrun 0 "rollback again finishes it" "$h" rollback
same_tree "after the second rollback the tree is as before" "$pristine" "$h"
htrun 0 "history" "$h" --json history
check "history: the apply is rolled back" "rolled-back failed committed" \
        "$(jq_get "$tmp/out" 'transactions.*.status' | tr '\n' ' ' | sed 's/ $//')"

# ---- the kernel stops offering the old word: a real EINVAL --------------
h=$tmp/h2
cp -a "$pristine" "$h"
htrun 0 "apply (2)" "$h" apply roundtrip
printf 'always defer [never]\n' >"$h$thp/defrag"
htrun 4 "rollback when defrag no longer offers madvise" "$h" --json rollback
check "--json: complete false" "false" "$(jq_get "$tmp/out" complete)"
check "--json: rollback_txid null" "null" "$(jq_get "$tmp/out" rollback_txid)"
check_contains "--json: the error says why and what defrag is" \
        "writing 'madvise' back failed (Invalid argument); it is 'never'" "$tmp/out"
check "defrag as the refused write left it" "always defer [never]" "$(cat "$h$thp/defrag")"
check "THP enabled is restored all the same" "$(cat "$pristine$thp/enabled")" "$(cat "$h$thp/enabled")"
printf 'always defer defer+madvise madvise [never]\n' >"$h$thp/defrag"
htrun 0 "rollback once the word is offered again" "$h" rollback
same_tree "the tree is as before" "$pristine" "$h"

# ---- a failed apply whose undo stops -----------------------------------
h=$tmp/h3
cp -a "$pristine" "$h"
HOSTTUNE_FAULT_FAIL=apply-runtime-write:4,restore-runtime:1 ht "$h" apply roundtrip
check "apply failing, its undo failing too: exit 4" "4" "$rc"
check_contains "it says the host is not as it was" "the host is NOT as it was before this apply" "$tmp/err"
check_contains "it says the next run retries" "the next hosttune run (any command) retries the undo" "$tmp/err"
if grep -q 'the host is as it was before this apply' "$tmp/err"; then
        not_ok "the failed apply claims the host is as it was"
else ok "the failed apply does not claim the host is as it was"; fi
changed=0
while read -r key path want; do cmp -s "$h$path" "$pristine$path" || changed=$((changed + 1)); done <"$tmp/priors"
check "one runtime value is left changed" "1" "$changed"
htrun 0 "the next run (history) finishes the undo" "$h" --json history
check "history: the apply is recovered" "recovered" "$(jq_get "$tmp/out" 'transactions.0.status')"
check_contains "history: why it was undone" "its undo finished by the next run" "$tmp/out"
same_tree "after the recovery the tree is as before" "$pristine" "$h"
h=$tmp/h4
cp -a "$pristine" "$h"
HOSTTUNE_FAULT_FAIL=apply-runtime-write:4,restore-runtime:1 ht "$h" --json apply roundtrip
check "--json apply: exit 4" "4" "$rc"
check "--json apply: rollback_complete false" "false" "$(jq_get "$tmp/out" rollback_complete)"
HOSTTUNE_FAULT_FAIL=apply-runtime-write:4 ht "$h" --json apply roundtrip
check "--json apply failing, its undo finishing: exit 1" "1" "$rc"
check "--json apply: rollback_complete true" "true" "$(jq_get "$tmp/out" rollback_complete)"
same_tree "and the tree is as before" "$pristine" "$h"

finish
