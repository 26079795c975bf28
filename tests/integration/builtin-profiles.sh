#!/bin/sh
# The built-in copies of the shipped profiles and rules (profile-builtin.h)
# change nothing but speed: every shipped profile on every fixture host
# resolves the same (and oracle plans the same), byte for byte, with the
# copies and with
# HOSTTUNE_NO_BUILTIN_PROFILES=1 (libconfig parses every file). An edited
# copy of a shipped file is parsed: its edit shows.
. "${top_srcdir:-.}/tests/integration/lib.sh"
# The checkout may belong to another user; the trust check is tested in
# test-builtin and hostile.sh.
HOSTTUNE_INSECURE_PROFILES=1
export HOSTTUNE_INSECURE_PROFILES
cd "$top_srcdir" || exit 99

# both NAME ARGS...: hosttune with and without the copies, same output,
# which holds $need (so that two identical failures do not pass)
both() {
        name=$1
        shift
        "$HOSTTUNE" "$@" >"$tmp/with" 2>&1
        echo "exit $?" >>"$tmp/with"
        HOSTTUNE_NO_BUILTIN_PROFILES=1 "$HOSTTUNE" "$@" >"$tmp/without" 2>&1
        echo "exit $?" >>"$tmp/without"
        if ! grep -q "$need" "$tmp/with"; then
                not_ok "$name: no '$need' in: $(head -c 300 "$tmp/with")"
        elif cmp -s "$tmp/with" "$tmp/without"; then
                ok "$name: the same with and without the built-in copies"
        else
                not_ok "$name: differs: $(diff "$tmp/without" "$tmp/with" | head -20)"
        fi
}

hi=0
for h in tests/hosts/*/; do
        host=$(basename "$h")
        hi=$((hi + 1))
        # under check-valgrind, one host in four (sampled, lib.sh)
        sampled $hi || continue
        # the resolved profile (params, settings, sources, rule warnings
        # and errors) is all the copies can change
        need='"settings"'
        for p in base oracle mysql jvm; do
                both "$host $p show --json" --root "tests/hosts/$host" --profile-path profiles \
                        --rules-path rules --json show "$p"
        done
        need='^Profile oracle'
        both "$host oracle plan" --root "tests/hosts/$host" --profile-path profiles \
                --rules-path rules plan oracle --set sga_max_size=4G
done

# An edited shipped rules file: the edit is read, not the copy.
mkdir -p "$tmp/rules"
cp rules/*.rules "$tmp/rules/"
sed 's/ + hugepage_slack";/ + hugepage_slack + 5";/' rules/10-hugepages.rules >"$tmp/rules/10-hugepages.rules"
grep -q 'hugepage_slack + 5' "$tmp/rules/10-hugepages.rules" || echo "Bail out! the edit did not take"
run 0 "show with an edited 10-hugepages.rules" --root tests/hosts/debian12-kvm --profile-path profiles \
        --rules-path "$tmp/rules" --json show oracle --set sga_max_size=4G
# 4 GiB of 2 MiB pages is 2048, plus the profile's slack of 2, plus the edit
check "vm.nr_hugepages from the edited rule" 2055 \
        "$(tr -d ' \n' <"$tmp/out" | grep -o '"key":"vm.nr_hugepages","value":"[0-9]*"' | grep -o '[0-9]*"$' | tr -d '"')"

finish
