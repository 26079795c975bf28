#!/bin/sh
# audit-iface: a report that does not reach its reader is a failure.
# stdout on a full device (/dev/full), closed (>&-), or a pipe whose reader
# left while SIGPIPE is ignored (as a supervisor or CI runner may leave it):
# before, `plan` exited 2 and `facts` 0 as if the diff had been read, with
# nothing said. Now each says "standard output: ..." on stderr and exits 1.
# Also: with stdout closed, the first file hosttune opened (the --root
# directory) took fd 1; the closed descriptors are now held by /dev/null.
. "${top_srcdir:-.}/tests/integration/lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
H=$HOSTS/debian12-kvm
P="--profile-path $PROFILES"

# full RESULT-EXIT DESCRIPTION ARGS...: the command's own exit with stdout
# in a file, then 1 and the message with stdout on /dev/full
full() {
        want=$1 desc=$2
        shift 2
        "$HOSTTUNE" "$@" >"$tmp/out" 2>"$tmp/err"
        check "$desc: exit $want with stdout readable" "$want" "$?"
        if [ -w /dev/full ]; then
                "$HOSTTUNE" "$@" >/dev/full 2>"$tmp/err"
                check "$desc: exit 1 on /dev/full" 1 "$?"
                check_contains "$desc: says why on /dev/full" "standard output: " "$tmp/err"
        else
                skip "$desc on /dev/full" "no /dev/full"
                skip "$desc on /dev/full" "no /dev/full"
        fi
}
full 2 "plan with changes pending" $P --root "$H" plan oracle --set sga_max_size=4G
full 2 "plan --json" $P --root "$H" --json plan oracle --set sga_max_size=4G
full 0 "facts" --root "$H" facts
full 0 "--help" --help

# closed stdout: exit 1, said once, and the report written nowhere else
# the binary itself: under valgrind's wrapper (check-valgrind) a file the
# wrapper opens takes the closed fd 1 before hosttune starts
"$top_builddir/hosttune" $P --root "$H" plan oracle --set sga_max_size=4G >&- 2>"$tmp/err"
check "plan with stdout closed: exit 1" 1 "$?"
check_contains "plan with stdout closed: says so" "standard output: Bad file descriptor" "$tmp/err"
check "plan with stdout closed: one message" 1 "$(grep -c 'standard output' "$tmp/err")"

# and no file hosttune opens takes the closed fd 1 (before, the --root
# directory did: the report's writes went to it)
# (traced: the binary itself, not $HOSTTUNE, which may be valgrind's
# wrapper, whose own opens would be counted; no leak check in a traced
# process, where LeakSanitizer cannot run)
if command -v strace >/dev/null 2>&1; then
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -e trace=openat -o "$tmp/trace" \
                "$top_builddir/hosttune" $P --root "$H" plan oracle --set sga_max_size=4G >&- 2>/dev/null
        check "stdout closed: the --root directory is not opened as fd 1" "" \
                "$(grep -F "\"$H\"" "$tmp/trace" | grep ' = 1$')"
        check "stdout closed: /dev/null holds fd 1" 1 "$(grep -c '"/dev/null", O_RDONLY) = 1$' "$tmp/trace")"
else
        skip "stdout closed: fd 1 held" "strace is not installed"
        skip "stdout closed: fd 1 held" "strace is not installed"
fi

# a failure stays the failure it was, with nothing more said when nothing
# was written
"$HOSTTUNE" $P --root "$H" plan no-such-profile >/dev/full 2>"$tmp/err"
check "a failed plan on /dev/full: exit 1" 1 "$?"
check "a failed plan on /dev/full: no output message" 0 "$(grep -c 'standard output' "$tmp/err")"

# SIGPIPE ignored (sh cannot un-ignore it for its children): the reader
# closes at once; hosttune gets EPIPE and must fail, not exit 2
( trap '' PIPE
  { "$HOSTTUNE" $P --root "$H" plan oracle --set sga_max_size=4G 2>"$tmp/err"; echo $? >"$tmp/rc"; } | : )
check "plan into a closed pipe, SIGPIPE ignored: exit 1" 1 "$(cat "$tmp/rc")"
check_contains "plan into a closed pipe: says so" "standard output: Broken pipe" "$tmp/err"
finish
