#!/bin/sh
# The newcomer's second command: install what make check uses
# (scripts/deps.sh --test), build, run every test.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh --test
sh scripts/build.sh
status=0
make -j"$(nproc)" check || status=$?
if [ -f test-suite.log ]; then
        [ "$status" -eq 0 ] || tail -100 test-suite.log
        pass=$(sed -n 's/^# PASS: *//p' test-suite.log)
        fail=$(sed -n 's/^# FAIL: *//p' test-suite.log)
        err=$(sed -n 's/^# ERROR: *//p' test-suite.log)
        skip=$(sed -n 's/^# SKIP: *//p' test-suite.log)
        echo "tests: ${pass:-0} passed, $(( ${fail:-0} + ${err:-0} )) failed, ${skip:-0} skipped"
fi
exit "$status"
