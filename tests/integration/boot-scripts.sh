#!/bin/sh
# Every script of the real-boot test (tests/boot, run by `make check-boot`
# only) parses, so they cannot rot between slow runs: bash -n for the host
# side, sh -n for what runs in the guest (dash there).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
B=$top_srcdir/tests/boot
fails=0 n=0
try() { # SHELL FILE
        n=$((n + 1))
        if "$1" -n "$2"; then echo "ok $n - $1 -n ${2#"$B"/}"
        else echo "not ok $n - $1 -n ${2#"$B"/}"; fails=$((fails + 1)); fi
}
for f in "$B"/*.sh; do try bash "$f"; done
for f in "$B"/guest/harness.sh "$B"/scenarios/lib.sh "$B"/scenarios/*/*.sh \
        "$B"/scenarios/infra/hosttune-standin; do
        try sh "$f"
done
n=$((n + 1))
if [ "$n" -gt 11 ]; then echo "ok $n - $((n - 1)) scripts found"
else echo "not ok $n - only $((n - 1)) scripts found under $B"; fails=$((fails + 1)); fi
echo "1..$n"
[ "$fails" = 0 ]
