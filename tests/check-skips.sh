#!/bin/sh
# check-skips.sh ALLOWED BUILDDIR...: every TAP skip that the last
# `make check` in each BUILDDIR recorded (the "SKIP:" lines the TAP driver
# writes into each test's .log) must match a pattern in the file ALLOWED;
# any other skip is printed and fails. .ci/run keeps the list, each
# pattern with its reason: in CI nothing may skip unnoticed.
#
# ALLOWED: one entry a line, "PATTERN | REASON"; PATTERN is a shell glob
# matched against the text after "SKIP: " (e.g. "tests/fuzz/run-fuzz.sh *").
# Blank lines and lines starting with # are ignored. A pattern without a
# reason is refused.
set -u
[ $# -ge 2 ] || { echo "usage: $0 ALLOWED BUILDDIR..." >&2; exit 2; }
allowed=$1
shift
[ -r "$allowed" ] || { echo "check-skips: cannot read $allowed" >&2; exit 2; }
bad=0
while IFS= read -r line; do
        case $line in '' | '#'*) continue ;; esac
        case $line in
        *' | '?*) ;;
        *) echo "check-skips: $allowed: an entry without a reason: $line" >&2; bad=1 ;;
        esac
done <"$allowed"
[ "$bad" = 0 ] || exit 2

total=0 unexpected=0
for dir in "$@"; do
        logs=$(find "$dir/tests" -name '*.log' ! -name test-suite.log ! -path '*/valgrind-logs/*' 2>/dev/null)
        [ -n "$logs" ] || { echo "check-skips: no test logs under $dir/tests: did make check run there?" >&2; exit 2; }
        for log in $logs; do
                grep '^SKIP: ' "$log" 2>/dev/null
        done
done | {
        while IFS= read -r skip; do
                what=${skip#SKIP: }
                total=$((total + 1))
                matched=no
                while IFS= read -r line; do
                        case $line in '' | '#'*) continue ;; esac
                        pattern=${line%% | *}
                        # shellcheck disable=SC2254
                        case $what in $pattern) matched=yes; break ;; esac
                done <"$allowed"
                if [ "$matched" = no ]; then
                        echo "check-skips: unexpected skip: $what"
                        unexpected=$((unexpected + 1))
                fi
        done
        echo "check-skips: $total skipped checks, $unexpected not on the list"
        [ "$unexpected" = 0 ]
}
