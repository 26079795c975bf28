#!/bin/sh
# The journal under stress at the command line: corrupt, truncated and
# ill-typed manifests and a bad backup are reported clearly and never make
# things worse; one run at a time (the lock names its holder); audit
# records and journald entries degrade quietly where absent.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"

SGA="--set sga_max_size=4G"
h=$(prepare_host debian12-kvm); scratch "$h"
cp -a "$h" "$tmp/before"
htrun 0 "apply oracle" "$h" --json apply oracle $SGA
t1=$(jq_get "$tmp/out" txid)
m=$h/var/lib/hosttune/journal/$t1/manifest.json
cp "$m" "$tmp/manifest.good"
cp -a "$h" "$tmp/applied"

# corrupt KIND: break the manifest of t1 one way
corrupt() {
        rm -rf "$h"
        cp -a "$tmp/applied" "$h"
        case $1 in
        truncated) head -c "$(($(wc -c <"$tmp/manifest.good") / 2))" "$tmp/manifest.good" >"$m" ;;
        empty) : >"$m" ;;
        garbage) printf 'GARBAGE\001{{{' >"$m" ;;
        trailing) printf '{"x": 1} trailing' >>"$m" ;;
        status-type) sed -i 's/"status": *"committed"/"status":5/' "$m" ;;
        items-type) sed -i 's/"items": *\[/"items":"no","x":[/' "$m" ;;
        done-type) sed -i '0,/"done": *true/s//"done":"yes"/' "$m" ;;
        mode-type) sed -i 's/"mode": *"[0-7]*"/"mode":"rwxr-x---"/g' "$m" ;;
        path-escape) sed -i '0,/"path": *"\\*\/etc\\*\/[^"]*"/s//"path":"\/etc\/..\/..\/outside"/' "$m" ;;
        txid-other) sed -i "s/\"txid\": *\"$t1\"/\"txid\":\"20200101T000000Z-00000000\"/" "$m" ;;
        esac
}

for kind in truncated empty garbage trailing status-type items-type done-type mode-type path-escape txid-other; do
        corrupt "$kind"
        if cmp -s "$m" "$tmp/manifest.good"; then not_ok "$kind: the manifest was not changed by the test"; continue; fi
        htrun 0 "$kind: history still works" "$h" history
        check_contains "$kind: history names the corrupt manifest" "manifest is corrupt" "$tmp/out"
        htrun 0 "$kind: history --json" "$h" --json history
        check "$kind: history --json status corrupt" "corrupt" "$(jq_get "$tmp/out" transactions.0.status)"
        htrun 1 "$kind: rollback is refused" "$h" rollback
        check_contains "$kind: rollback says why" "manifest is corrupt" "$tmp/err"
        check_contains "$kind: rollback names the transaction" "$t1" "$tmp/err"
        htrun 1 "$kind: rollback TXID is refused" "$h" rollback "$t1"
        check_contains "$kind: rollback TXID says why" "manifest is corrupt" "$tmp/err"
        # a corrupt *finished* transaction does not concern apply: runs only
        # read the transactions marked pending (history and rollback name it)
        htrun 0 "$kind: apply again changes nothing" "$h" apply oracle $SGA
        htrun 2 "$kind: plan works" "$h" plan jvm
        same_tree "$kind: the tree is unchanged" "$tmp/applied" "$h"
        # no new transaction came of it
        check "$kind: still one transaction" "1" "$(ls "$h/var/lib/hosttune/journal" | wc -l)"
done

# a backup that does not match its checksum: rollback restores nothing
rm -rf "$h"
cp -a "$tmp/applied" "$h"
b=$(ls "$h/var/lib/hosttune/journal/$t1/backup" | head -1)
cp "$h/var/lib/hosttune/journal/$t1/backup/$b" "$tmp/backup.good"
printf 'tampered\n' >>"$h/var/lib/hosttune/journal/$t1/backup/$b"
htrun 1 "a tampered backup: rollback refused" "$h" rollback
check_contains "the tampered backup is named" "does not match its checksum" "$tmp/err"
same_tree "a tampered backup: nothing restored" "$tmp/applied" "$h"
cp "$tmp/backup.good" "$h/var/lib/hosttune/journal/$t1/backup/$b"
rm "$h/var/lib/hosttune/journal/$t1/backup/$b"
htrun 1 "a missing backup: rollback refused" "$h" rollback
check_contains "the missing backup is named" "cannot be read" "$tmp/err"
same_tree "a missing backup: nothing restored" "$tmp/applied" "$h"
cp "$tmp/backup.good" "$h/var/lib/hosttune/journal/$t1/backup/$b"

# a file changed by someone since the apply: rollback refuses, all of it
printf '# local edit\n' >>"$h/etc/sysctl.d/90-hosttune.conf"
cp -a "$h" "$tmp/edited"
htrun 1 "a file edited since the apply: rollback refused" "$h" rollback
check_contains "the edited file is named" "/etc/sysctl.d/90-hosttune.conf was changed since" "$tmp/err"
same_tree "an edited file: nothing restored" "$tmp/edited" "$h"
cp "$tmp/applied/etc/sysctl.d/90-hosttune.conf" "$h/etc/sysctl.d/90-hosttune.conf"

# repaired, the journal is as good as ever: rollback restores everything
htrun 0 "rollback after the repairs" "$h" rollback
same_tree "rollback after the repairs: the tree is as before" "$tmp/before" "$h"

# a state directory others can write is refused, nothing changed
h4=$(prepare_host debian12-kvm); scratch "$h4"
cp -a "$h4" "$tmp/before4"
mkdir -p "$h4/var/lib/hosttune"
chmod 0777 "$h4/var/lib/hosttune"
htrun 1 "apply with a world-writable state directory" "$h4" apply oracle $SGA
check_contains "the state directory is named" "writable by group or others" "$tmp/err"
rmdir "$h4/var/lib/hosttune"
same_tree "a refused state directory: the tree is unchanged" "$tmp/before4" "$h4"

# --- one run at a time --------------------------------------------------------
h5=$(prepare_host debian12-kvm); scratch "$h5"
cp -a "$h5" "$tmp/before5"
lock=$h5/run/hosttune.lock
if command -v flock >/dev/null 2>&1; then
        # a holder that writes its pid as hosttune does
        sh -c 'exec 9<>"$1"; flock 9; echo $$ >&9; exec sleep 600' sh "$lock" &
        holder=$!
        i=0
        while [ ! -s "$lock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        htrun 1 "apply while another run holds the lock" "$h5" apply oracle $SGA
        check_contains "the holder's pid is named" "another hosttune (pid $holder) is running" "$tmp/err"
        check_contains "the lock is named" "$lock" "$tmp/err"
        # no clock: a run that waited for the lock could only have returned
        # once the holder let go, and the holder never does until killed
        if kill -0 "$holder" 2>/dev/null; then ok "the second run fails without waiting for the lock"
        else not_ok "the lock holder is gone: the refused run may have waited for it"; fi
        htrun 1 "rollback while another run holds the lock" "$h5" rollback
        check_contains "rollback names the holder" "pid $holder" "$tmp/err"
        htrun 0 "history while another run holds the lock" "$h5" history
        htrun 2 "plan while another run holds the lock" "$h5" plan oracle $SGA
        kill "$holder" 2>/dev/null
        wait "$holder" 2>/dev/null
        same_tree "refused runs changed nothing" "$tmp/before5" "$h5"
else
        skip "apply while another run holds the lock" "no flock(1)"
fi

if is_root; then
        # a real hosttune holds it: its apply waits inside grub-mkconfig
        h6=$(prepare_host debian12-kvm); scratch "$h6"
        fake_tool "$h6" block
        mkfifo "$h6/block.fifo"
        lock=$h6/run/hosttune.lock
        "$HOSTTUNE" --root "$h6" --live-root --profile-path "$PROFILES" --rules-path "$RULES" apply oracle $SGA \
                >"$tmp/bg-out" 2>"$tmp/bg-err" &
        bg=$!
        i=0
        while [ ! -s "$lock" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        holder=$(cat "$lock")
        check "the running apply wrote its pid into the lock" "$bg" "$holder"
        # The lock is taken before the journal records the transaction:
        # wait until the apply is inside grub-mkconfig (its transaction
        # begun), or history may run first on a loaded machine (seen in
        # rpmbuild's %check beside other builds).
        i=0
        while [ ! -e "$h6/block.reached" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
        check "the running apply reached the blocking grub-mkconfig" "yes" \
                "$([ -e "$h6/block.reached" ] && echo yes || echo no)"
        htrun 1 "apply while apply runs" "$h6" apply oracle $SGA
        check_contains "apply names the running apply's pid" "another hosttune (pid $bg) is running" "$tmp/err"
        htrun 1 "rollback while apply runs" "$h6" rollback
        check_contains "rollback names the running apply's pid" "(pid $bg)" "$tmp/err"
        htrun 0 "history while apply runs" "$h6" --json history
        check "history shows the running apply as pending (not recovered)" "pending" \
                "$(jq_get "$tmp/out" transactions.0.status)"
        htrun 2 "plan while apply runs leaves it alone" "$h6" plan jvm
        if grep -q "recovered" "$tmp/err"; then not_ok "plan recovered a running transaction"; else
                ok "plan did not touch the running transaction"; fi
        # let it finish
        (echo go >"$h6/block.fifo") &
        wait "$bg"
        check "the running apply finishes (exit status)" "0" "$?"
        wait
        htrun 0 "history after it finished" "$h6" --json history
        check "the apply is committed" "committed" "$(jq_get "$tmp/out" transactions.0.status)"
        check_contains "grub.cfg regenerated after the wait" "generated by the test grub-mkconfig" "$h6/boot/grub/grub.cfg"
        check "the lock no longer names a holder" "" "$(cat "$lock")"
else
        skip "apply while apply runs" "the blocking grub-mkconfig runs chrooted: root only"
fi

# --- a crash, then a run that may not recover -------------------------------------
udir=
if is_root && command -v setpriv >/dev/null 2>&1; then
        # the host, the state and the profiles lie where the unprivileged
        # user can reach them ($tmp, or a directory in /tmp when $tmp lies
        # under one only root may enter, as in rpmbuild under mktemp -d)
        user_dir
fi
if [ -n "$udir" ]; then
        u=$udir
        h7=$(copy_host debian12-kvm "$u"); scratch "$h7"
        mkdir -p "$h7/run" "$h7/var/lib"
        : >"$h7/run/hosttune.lock"
        st7=$u/state7
        cp -a "$h7" "$tmp/before7"
        { HOSTTUNE_FAULT_AFTER=apply-runtime:3 "$HOSTTUNE" --root "$h7" --profile-path "$PROFILES" \
                --rules-path "$RULES" --state-dir "$st7" apply oracle $SGA >/dev/null 2>&1; } 2>/dev/null
        check "apply killed after its third runtime write" "137" "$?"
        # a user who may read the journal but not take the lock (the lock
        # file is root's): the run goes on and says how to recover
        chown -R 65534:65534 "$st7"
        # The checkout may sit under a directory only root can enter: the
        # unprivileged user gets its own copies of the profiles and rules
        # (root's, as the trust check wants), and of the binary if it cannot
        # run the build's.
        mkdir -p "$u/pub"
        cp -R "$PROFILES" "$u/pub/profiles"
        cp -R "$RULES" "$u/pub/rules"
        chmod -R a+rX "$u/pub"
        bin7=$HOSTTUNE
        if ! setpriv --reuid=65534 --regid=65534 --clear-groups "$bin7" --version >/dev/null 2>&1; then
                cp "$top_builddir/hosttune" "$u/pub/hosttune"
                chmod 0755 "$u/pub/hosttune"
                bin7=$u/pub/hosttune
        fi
        setpriv --reuid=65534 --regid=65534 --clear-groups "$bin7" --root "$h7" --profile-path "$u/pub/profiles" \
                --rules-path "$u/pub/rules" --state-dir "$st7" plan oracle $SGA >"$tmp/out" 2>"$tmp/err"
        check "an unprivileged plan after a crash runs (exit status)" "2" "$?"
        check_contains "it warns of the unfinished transaction" "an unfinished transaction" "$tmp/err"
        check_contains "it says how to recover" "run any hosttune command as root" "$tmp/err"
        # apply and rollback without root (sudo left out): refused, saying why
        for cmd in "apply oracle $SGA" rollback; do
                setpriv --reuid=65534 --regid=65534 --clear-groups "$bin7" --root "$h7" \
                        --profile-path "$u/pub/profiles" --rules-path "$u/pub/rules" --state-dir "$st7" $cmd \
                        >"$tmp/out" 2>"$tmp/err"
                check "an unprivileged ${cmd%% *} is refused (exit status)" "1" "$?"
                check_contains "an unprivileged ${cmd%% *} says it takes root" \
                        "hosttune: cannot open lock $h7/run/hosttune.lock: Permission denied; changing the host takes root" \
                        "$tmp/err"
        done
        chown -R 0:0 "$st7"
        chmod 0700 "$tmp"
        htrun 0 "history as root recovers the crashed apply" "$h7" --state-dir "$st7" history
        check_contains "history said it recovered" "recovered 1 unfinished transaction" "$tmp/err"
        check_contains "history shows it recovered" "recovered" "$tmp/out"
        same_tree "after the recovery by history: the tree is as before" "$tmp/before7" "$h7"
elif is_root && command -v setpriv >/dev/null 2>&1; then
        skip "an unprivileged run after a crash" "uid 65534 can reach neither $tmp nor a directory in /tmp"
else
        skip "an unprivileged run after a crash" "needs root and setpriv"
fi

# --- audit and logging ----------------------------------------------------------
auditd_running() {
        for f in /proc/[0-9]*/comm; do
                [ "$(cat "$f" 2>/dev/null)" = auditd ] && return 0
        done
        return 1
}
if is_root && ! auditd_running; then
        h8=$(prepare_host debian12-kvm); scratch "$h8"
        (unset HOSTTUNE_NO_AUDIT; "$HOSTTUNE" --root "$h8" --profile-path "$PROFILES" --rules-path "$RULES" \
                apply oracle $SGA >"$tmp/out" 2>"$tmp/err")
        check "apply with audit enabled but no auditd (exit status)" "0" "$?"
        if grep -qi audit "$tmp/err"; then not_ok "audit noise on stderr: $(head -c 300 "$tmp/err")"; else
                ok "no audit noise where auditd is absent"; fi
        (unset HOSTTUNE_NO_AUDIT; "$HOSTTUNE" --root "$h8" rollback >"$tmp/out" 2>"$tmp/err")
        check "rollback with audit enabled but no auditd (exit status)" "0" "$?"
else
        skip "apply with audit but no auditd" "not root, or auditd runs (no records written to a real audit log)"
fi
# a socket left by a journald that is gone refuses connections: ask it
if command -v journalctl >/dev/null 2>&1 && systemd-cat true 2>/dev/null; then
        h9=$(prepare_host debian12-kvm); scratch "$h9"
        htrun 0 "apply with journald present" "$h9" --json apply oracle $SGA
        t9=$(jq_get "$tmp/out" txid)
        # journald stores asynchronously: poll a while, no fixed sleep
        i=0
        while [ $i -lt 50 ]; do
                journalctl --no-pager -o verbose HOSTTUNE_TXID="$t9" >"$tmp/journal" 2>&1
                grep -q "HOSTTUNE_PROFILE=" "$tmp/journal" && break
                sleep 0.2
                i=$((i + 1))
        done
        # journald is there: the entry must be too (a missing one is a defect)
        check_contains "journald has the transaction's profile" "HOSTTUNE_PROFILE=oracle" "$tmp/journal"
        check_contains "journald has the transaction's id" "HOSTTUNE_TXID=$t9" "$tmp/journal"
else
        skip "journald entry per transaction" "no journald answers on /run/systemd/journal"
fi

finish
