# Shared by the integration tests: TAP helpers and a scratch directory.
# Sourced; expects HOSTTUNE, top_srcdir and top_builddir from make check.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
HOSTTUNE=${HOSTTUNE:-$top_builddir/hosttune}
HOSTS=$top_srcdir/tests/hosts
PROFILES=$top_srcdir/profiles
[ -x "$HOSTTUNE" ] || { echo "Bail out! $HOSTTUNE not built"; exit 99; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ht-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
# check DESCRIPTION EXPECTED ACTUAL
check() {
        if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected [$2], got [$3]"; fi
}
# check_contains DESCRIPTION NEEDLE FILE
check_contains() {
        if grep -qF -- "$2" "$3"; then ok "$1"; else not_ok "$1: [$2] not in $(head -c 600 "$3")"; fi
}
# run EXPECTED-EXIT DESCRIPTION ARGS...: runs hosttune, output in $tmp/out, $tmp/err
run() {
        want=$1 desc=$2
        shift 2
        "$HOSTTUNE" "$@" >"$tmp/out" 2>"$tmp/err"
        got=$?
        if [ "$got" = "$want" ]; then ok "$desc (exit $got)"; else
                not_ok "$desc: exit $got, expected $want; stderr: $(head -c 600 "$tmp/err")"; fi
}
# copy_host NAME: a writable copy of a fixture host; prints its path
copy_host() {
        rm -rf "$tmp/host-$1"
        cp -a "$HOSTS/$1" "$tmp/host-$1"
        printf '%s\n' "$tmp/host-$1"
}
finish() {
        echo "1..$n"
        [ "$failed" -eq 0 ]
        exit $?
}
