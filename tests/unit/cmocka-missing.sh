#!/bin/sh
# Stands in for the unit tests when configure found no cmocka: one TAP
# skip per unit test, so the summary counts them as skipped, not absent.
set -u
n=0
for t in ${HT_UNIT_TESTS:-}; do
        n=$((n + 1))
        echo "ok $n - ${t##*/} # SKIP cmocka not found by configure (Debian: apt-get install libcmocka-dev)"
done
echo "1..$n"
