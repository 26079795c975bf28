#!/bin/sh
# Golden test: every shipped profile resolved against every fixture host
# (plus a few --set cases), compared with the reviewed output under
# tests/expected/show/. UPDATE_GOLDEN=1 rewrites the expected files.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
show="$top_builddir/tests/profile-show"
expected="$top_srcdir/tests/expected/show"
# Relative paths keep the sources in the output independent of the checkout.
cd "$top_srcdir" || exit 1
# The checkout may belong to another user than the one running the tests;
# the trust check has its own unit test.
HOSTTUNE_INSECURE_PROFILES=1
export HOSTTUNE_INSECURE_PROFILES

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0

run() { # NAME HOST PROFILE [ARGS...]
        name=$1 host=$2 profile=$3
        shift 3
        out="$tmp/$name"
        "$show" --root "tests/hosts/$host" --profile-path profiles --rules-path rules \
                "$profile" "$@" >"$out" 2>&1
        echo "exit: $?" >>"$out"
        n=$((n + 1))
        if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
                cp "$out" "$expected/$name"
                echo "ok $n - $name rewritten"
        elif diff -u "$expected/$name" "$out" >"$tmp/diff"; then
                echo "ok $n - $name"
        else
                echo "not ok $n - $name differs from tests/expected/show/$name"
                sed 's/^/# /' "$tmp/diff"
                fail=1
        fi
}

for h in tests/hosts/*/; do
        host=$(basename "$h")
        for p in base oracle mysql jvm; do
                run "$host--$p.txt" "$host" "$p"
        done
        run "$host--oracle-sga4g.txt" "$host" oracle --set sga_max_size=4G
done
# The seed case, and the rules that need a --set to show.
run "debian12-kvm--oracle-sga18g-cap.txt" debian12-kvm oracle --set sga_max_size=18G \
        --set hugepages_max_percent=100 --json
run "rhel5-xen--oracle-switch.txt" rhel5-xen oracle --set sga_max_size=2G \
        --set allow_kernel_switch=true --json
run "oracle-running--oracle-shm.txt" oracle-running oracle --set hugepages_from=shm
run "debian12-kvm--oracle-amm.txt" debian12-kvm oracle --set sga_max_size=4G --set memory_target=6G
run "alinux3-hugetext--mysql-largepages.txt" alinux3-hugetext mysql \
        --set innodb_buffer_pool_size=2G --set mysql_unit=mariadb
run "debian12-kvm--jvm-heap.txt" debian12-kvm jvm --set heap_size=8G --set jvm_user=elasticsearch

[ "${UPDATE_GOLDEN:-}" = 1 ] && echo "# rewrote $n expected files"
echo "1..$n"
exit $fail
