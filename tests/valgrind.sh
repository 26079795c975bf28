#!/bin/sh
# valgrind memcheck for `make check-valgrind`:
#   valgrind.sh PROGRAM ARGS...   run PROGRAM under memcheck (the
#                                 LOG_COMPILER of the unit tests; the
#                                 hosttune wrapper in tests/valgrind/)
#   valgrind.sh --report LOGDIR   after the run: fail unless every log is
#                                 clean (no errors, no definite or
#                                 indirect leaks)
# Each process logs to its own $HT_VALGRIND_LOGS/NAME.XXXXXXXXXX.log, which --report
# reads; an error also makes hosttune exit 99, so the integration test
# that ran it fails too.
set -eu

if [ "${1:-}" = --report ]; then
        dir=$2
        n=$(find "$dir" -name '*.log' | wc -l)
        if [ "$n" -eq 0 ]; then
                echo "valgrind.sh: no logs in $dir: nothing ran under valgrind" >&2
                exit 1
        fi
        # -q logs nothing for a clean process: any line is a finding, but
        # for valgrind's note that it does not know openat2 (437): the call
        # then fails with ENOSYS and hosttune takes its component walk,
        # which is what such kernels get too.
        bad=
        for f in $(find "$dir" -name '*.log' -size +0c | sort); do
                if grep -v -e 'unhandled amd64-linux syscall: 437' -e 'You may be able to write your own handler' \
                        -e 'README_MISSING_SYSCALL_OR_IOCTL' -e 'Nevertheless we consider this a bug' \
                        -e 'it at http://valgrind.org/support/bug_reports.html' "$f" | grep -q .; then
                        bad="$bad $f"
                fi
        done
        if [ -n "$bad" ]; then
                for f in $bad; do
                        echo "==== $f"
                        head -80 "$f"
                done
                echo "valgrind.sh: $(echo "$bad" | wc -l) of $n processes had memcheck errors or leaks" >&2
                exit 1
        fi
        native=$(find "$dir" -name '*.native' | wc -l)
        if [ "$native" -gt 0 ]; then
                echo "valgrind.sh: $n processes, 0 errors, 0 leaks ($native more ran the plain binary: HT_VALGRIND_SAMPLE=${HT_VALGRIND_SAMPLE:-?}, phase ${HT_VALGRIND_PHASE:-0})"
        else
                echo "valgrind.sh: $n processes, 0 errors, 0 leaks"
        fi
        exit 0
fi

logs=${HT_VALGRIND_LOGS:?HT_VALGRIND_LOGS must name the log directory}
mkdir -p "$logs"
name=$(basename "$1")
# Children that fork without exec (the unit tests' crash and lock rigs)
# end with _exit() and whatever the parent had allocated: not leaks of
# the code under test, so they are not checked. hosttune's own children
# exec at once (and are not traced).
exitcode=--error-exitcode=99
case $name in
test-*) exitcode= ;;    # a child's exit code is the test's assertion
esac
# --track-origins doubles the run time; HT_VALGRIND_ORIGINS=1 turns it
# on to chase an uninitialised value.
origins=
[ "${HT_VALGRIND_ORIGINS:-0}" = 1 ] && origins=--track-origins=yes
# A log of its own, made here by whoever runs the process: named by pid
# alone, a run as nobody could meet the log of an earlier root process
# of the same pid (pids wrap over a suite's thousands of processes) and
# could not open it in the sticky directory.
log=$(mktemp --suffix=.log "$logs/$name.XXXXXXXXXX")
# --read-inline-info=no: a trace names the function a line is in, not the
# inlined callee within it; reading inlining from libc6-dbg's DWARF was
# a tenth of every process's time (thousands of processes).
exec valgrind -q --tool=memcheck $exitcode --child-silent-after-fork=yes --read-inline-info=no \
        --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
        $origins --suppressions="$(dirname "$0")/valgrind.supp" --log-file="$log" "$@"
