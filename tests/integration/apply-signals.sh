#!/bin/sh
# apply and rollback as a shell, a pipeline or a service manager really
# run them: a report whose reader has left (`hosttune apply oracle |
# head -1`) gets the documented exit status and the transaction stands
# (hosttune(8), EXIT STATUS: "Output that cannot be written"); a SIGINT
# (^C), SIGTERM (systemctl stop, a configuration manager's timeout) or
# SIGHUP (the ssh session dropped) in the middle of an apply undoes it
# there and then (exit 1) instead of leaving the host half-changed until
# the next run recovers it; after the commit the apply stands. A verify
# run during another's transaction waits for it to end.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed (it makes a pipe with no reader)"
SGA="--set sga_max_size=4G"

# no_reader ARGS...: hosttune ARGS on the fixture root with stdout a pipe
# whose read end is already closed (a reader that left before the
# report), SIGPIPE at its default as a shell leaves it; stderr in
# $tmp/err, the exit status in $rc (128+N: killed by signal N)
no_reader() {
        python3 - "$HOSTTUNE" --root "$h" --profile-path "$PROFILES" --rules-path "$RULES" "$@" 2>"$tmp/err" <<'EOF'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
# restore_signals (the default) gives the child SIGPIPE's default back
p = subprocess.run(sys.argv[1:], stdout=w)
sys.exit(128 - p.returncode if p.returncode < 0 else p.returncode)
EOF
        rc=$?
}

h=$(prepare_host debian12-kvm); scratch "$h"
no_reader apply oracle $SGA
check "apply with a reader gone: exit 1, not killed by SIGPIPE" 1 "$rc"
check_contains "apply with a reader gone: says the report was lost" "hosttune: standard output: Broken pipe" "$tmp/err"
htrun 0 "history" "$h" --json history
check "the apply committed all the same" committed "$(jq_get "$tmp/out" transactions.0.status)"
htrun 0 "apply again: nothing to change" "$h" apply oracle $SGA
no_reader rollback
check "rollback with a reader gone: exit 1, not killed by SIGPIPE" 1 "$rc"
check_contains "rollback with a reader gone: says the report was lost" "hosttune: standard output: Broken pipe" "$tmp/err"
htrun 0 "history" "$h" --json history
# oldest first: the apply, then the rollback's record
check "the rollback committed all the same" "rollback committed" \
        "$(jq_get "$tmp/out" transactions.1.command) $(jq_get "$tmp/out" transactions.1.status)"
check "and the apply is rolled back" rolled-back "$(jq_get "$tmp/out" transactions.0.status)"
# read-only commands die of SIGPIPE as other tools do (`plan | head`)
no_reader plan oracle $SGA
check "plan with a reader gone: SIGPIPE, as any filter" 141 "$rc"

# interrupt SIG STEP ARGS...: hosttune ARGS on the fixture root, held at
# fault point STEP (HOSTTUNE_FAULT_PAUSE), sent SIG there, as a shell
# starts it in the foreground (SIGINT not ignored); stderr in $tmp/err,
# the exit status in $rc (128+N: killed by signal N)
interrupt() {
        isig=$1 istep=$2
        shift 2
        HOSTTUNE_FAULT_PAUSE=$istep timeout 120 python3 - "$isig" "$HOSTTUNE" --root "$h" --profile-path "$PROFILES" \
                --rules-path "$RULES" "$@" >"$tmp/out" 2>"$tmp/err" <<'EOF'
import signal, subprocess, sys
sig = getattr(signal, sys.argv[1])
p = subprocess.Popen(sys.argv[2:], stderr=subprocess.PIPE)
err = b""
for line in p.stderr:
        err += line
        if b"paused (HOSTTUNE_FAULT_PAUSE)" in line:
                p.send_signal(sig)
p.wait()
sys.stderr.write(err.decode(errors="replace"))
sys.exit(128 - p.returncode if p.returncode < 0 else p.returncode)
EOF
        rc=$?
}

# before the commit: at the first file in place, between the runtime
# values, after every change (the last step before the commit record)
for case in SIGINT:apply-file SIGTERM:apply-runtime:2 SIGHUP:apply-commit; do
        sig=${case%%:*} step=${case#*:}
        h=$(prepare_host debian12-kvm); scratch "$h"
        rm -rf "$tmp/before"; cp -a "$h" "$tmp/before"
        interrupt "$sig" "$step" apply oracle $SGA
        check "$sig at $step: apply exits 1, not killed" 1 "$rc"
        check_contains "$sig at $step: says why" "interrupted by $sig before the commit" "$tmp/err"
        check_contains "$sig at $step: says the host is as before" "its changes were undone" "$tmp/err"
        same_tree "$sig at $step: the tree is as before" "$tmp/before" "$h"
        htrun 0 "$sig at $step: history" "$h" --json history
        check "$sig at $step: the transaction is closed (failed), not pending" failed \
                "$(jq_get "$tmp/out" transactions.0.status)"
        # the lock went with the run: the next apply is not refused
        htrun 0 "$sig at $step: apply again" "$h" apply oracle $SGA
done
# after the commit record is on disk: the apply is done and stays
h=$(prepare_host debian12-kvm); scratch "$h"
interrupt SIGTERM commit apply oracle $SGA
check "SIGTERM after the commit: apply exits 0" 0 "$rc"
htrun 0 "history" "$h" --json history
check "SIGTERM after the commit: committed" committed "$(jq_get "$tmp/out" transactions.0.status)"
htrun 0 "SIGTERM after the commit: nothing left to change" "$h" plan oracle $SGA
# a rollback interrupted at its first item finishes first
interrupt SIGINT rollback-item rollback
check "SIGINT in a rollback: it finishes (exit 0)" 0 "$rc"
htrun 0 "history" "$h" --json history
check "SIGINT in a rollback: the apply is rolled back" rolled-back "$(jq_get "$tmp/out" transactions.0.status)"

# verify while another run's apply is in its transaction (the metrics
# timer meeting an Ansible run): it waits for the lock rather than judge
# the host half-changed. The second apply (a larger SGA) is held after
# every change, verify started and seen waiting, the apply interrupted
# (undone): verify then judges the first apply's host, as before it.
h=$(prepare_host debian12-kvm); scratch "$h"
htrun 0 "apply oracle" "$h" apply oracle $SGA
htrun 3 "verify: the first apply waits for a reboot" "$h" verify
HOSTTUNE_FAULT_PAUSE=apply-commit timeout 120 python3 - "$HOSTTUNE" --root "$h" --profile-path "$PROFILES" \
        --rules-path "$RULES" >"$tmp/out" 2>"$tmp/err" <<'EOF'
import os, signal, subprocess, sys
env = dict(os.environ)
apply = subprocess.Popen(sys.argv[1:] + ["apply", "oracle", "--set", "sga_max_size=6G"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
for line in apply.stderr:
        if b"paused (HOSTTUNE_FAULT_PAUSE)" in line:
                break
del env["HOSTTUNE_FAULT_PAUSE"]
verify = subprocess.Popen(sys.argv[1:] + ["verify"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
err = b""
for line in verify.stderr:
        err += line
        if b"waiting up to" in line:
                break
apply.send_signal(signal.SIGTERM)
apply.stderr.read()
apply.wait()
err += verify.stderr.read()
verify.wait()
print("verify exit %d" % verify.returncode)
print("apply exit %d" % apply.returncode)
sys.stderr.write(err.decode(errors="replace"))
EOF
check_contains "verify during another apply's transaction waits for it" \
        "with a transaction in progress; waiting up to 120 seconds" "$tmp/err"
# (without the wait: exit 2, drift, the second apply's values half in)
check "then verify judges the host as the first apply left it" "verify exit 3" "$(sed -n 1p "$tmp/out")"
check "the interrupted apply was undone" "apply exit 1" "$(sed -n 2p "$tmp/out")"

finish
