#!/bin/sh
# The built-in copies of the shipped profiles and rules (profile-builtin.h)
# change nothing but speed. An edited copy of a shipped file is parsed:
# its edit shows.
. "${top_srcdir:-.}/tests/integration/lib.sh"
# The checkout may belong to another user; the trust check is tested in
# test-builtin and hostile.sh.
HOSTTUNE_INSECURE_PROFILES=1
export HOSTTUNE_INSECURE_PROFILES
cd "$top_srcdir" || exit 99

# That every shipped profile on every fixture host resolves and plans
# the same with and without the copies is checked by expr-trees.sh, which
# compares both with the evaluating parser's output (HOSTTUNE_TEST_EXPR_TEXT):
# the copies carry the expressions' trees too.

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
