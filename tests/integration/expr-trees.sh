#!/bin/sh
# Expressions are evaluated from trees (issue 34): the shipped files' trees
# built into hosttune, a user file's parsed when it is evaluated. Both give
# what the evaluating parser gives from the text (HOSTTUNE_TEST_EXPR_TEXT=1):
# every shipped profile's resolution and oracle's plan on every fixture
# host, and the errors (message, file:line, column, exit code) of bad
# expressions in a user's profile, byte for byte, the three ways. The
# first two ways are also the shipped files with and without their
# built-in copies (HOSTTUNE_NO_BUILTIN_PROFILES=1: libconfig parses every
# file), which must change nothing but speed (builtin-profiles.sh).
. "${top_srcdir:-.}/tests/integration/lib.sh"
# The checkout may belong to another user (the trust check is not tested here).
HOSTTUNE_INSECURE_PROFILES=1
export HOSTTUNE_INSECURE_PROFILES
cd "$top_srcdir" || exit 99

# three NAME ARGS...: built-in trees, trees parsed now, the evaluating
# parser; the same output, which holds $need (two identical failures
# that say nothing do not pass)
three() {
        name=$1
        shift
        "$HOSTTUNE" "$@" >"$tmp/trees" 2>&1
        echo "exit $?" >>"$tmp/trees"
        HOSTTUNE_NO_BUILTIN_PROFILES=1 "$HOSTTUNE" "$@" >"$tmp/parsed" 2>&1
        echo "exit $?" >>"$tmp/parsed"
        HOSTTUNE_TEST_EXPR_TEXT=1 "$HOSTTUNE" "$@" >"$tmp/text" 2>&1
        echo "exit $?" >>"$tmp/text"
        if ! grep -q -- "$need" "$tmp/trees"; then
                not_ok "$name: no '$need' in: $(head -c 300 "$tmp/trees")"
        elif ! cmp -s "$tmp/text" "$tmp/trees"; then
                not_ok "$name: the built-in trees differ from the text: $(diff "$tmp/text" "$tmp/trees" | head -20)"
        elif ! cmp -s "$tmp/text" "$tmp/parsed"; then
                not_ok "$name: parsed trees differ from the text: $(diff "$tmp/text" "$tmp/parsed" | head -20)"
        else
                ok "$name: the same from trees and from the text"
        fi
}

hi=0
for h in tests/hosts/*/; do
        host=$(basename "$h")
        hi=$((hi + 1))
        sampled $hi || continue
        need='"settings"'
        for p in profiles/*.profile; do
                p=$(basename "$p" .profile)
                set --
                [ "$p" = oracle ] && set -- --set sga_max_size=4G
                three "$host $p show --json" --root "tests/hosts/$host" --profile-path profiles \
                        --rules-path rules --json show "$p" "$@"
        done
        need='^Profile oracle'
        three "$host oracle plan" --root "tests/hosts/$host" --profile-path profiles \
                --rules-path rules plan oracle --set sga_max_size=4G
done

# A user's profile: its expressions are no built-in's. Each bad one on
# its own (x's text: "= EXPR" or a template), so that each error is the
# one reported.
mkdir -p "$tmp/p"
bad() {
        name=$1
        text=$2
        cat >"$tmp/p/bad.profile" <<EOP
summary = "bad expressions";
inherit = "base";
params = {
        x = "$text";
};
sysctl = { vm = { swappiness = "= x"; }; };
EOP
        need=$3
        three "$name" --root tests/hosts/debian12-kvm --profile-path "$tmp/p" --profile-path profiles \
                --rules-path rules show bad
}
# a name is looked up (and fails) before the syntax error after it
bad "unknown name before a syntax error" '= nope + (' "column 1: unknown name 'nope'"
bad "syntax error" '= 1 + (' 'column 6: unexpected end of expression'
bad "an unknown name's suggestion" '= facts.cpu.nope + 1' "did you mean 'facts.cpu.count'"
bad "a null in arithmetic names its fact" '= 1 + facts.container' "column 5: 'facts.container' is unknown on this host"
bad "division by zero" '= 4G / (2 - 2)' 'column 4: division by zero'
bad "the untaken branches are not looked up" '= if(true, 7, nope) + if(false && nope2, 1, 0)' 'x = 7 '
bad "short-circuit: no lookup, no error" '= defined(nope) && nope > 0 || 6 > 5' 'x = true '
bad "a type error" '= \"a\" + 1' 'column 5: operator .+. cannot take string and integer'
bad "a bad regex" '= matches(facts.kernel.release, \"(\")' 'column 1: matches(): the regex'
bad "an error in a template" 'pages: ${1 + 2/0}' 'bad.profile:4: params x: column 6: division by zero'
bad "a template" '${2 * 3}${facts.cpu.count}' 'swappiness = 62 '

finish
