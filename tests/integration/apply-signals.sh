#!/bin/sh
# apply and rollback as a shell, a pipeline or a service manager really
# run them: a report whose reader has left (`hosttune apply oracle |
# head -1`) gets the documented exit status and the transaction stands
# (hosttune(8), EXIT STATUS: "Output that cannot be written").
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

finish
