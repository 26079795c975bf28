#!/bin/sh
# The command-line contract: help, version, usage errors and exit codes.
. "${top_srcdir:-.}/tests/integration/lib.sh"

run 0 "--help" --help
check_contains "--help lists the commands" "plan PROFILE" "$tmp/out"
run 0 "--version" --version
check_contains "--version prints the version" "hosttune " "$tmp/out"

run 1 "no command" 
check_contains "no command: usage on stderr" "Usage: hosttune" "$tmp/err"
run 1 "unknown command" frobnicate
check_contains "unknown command named" "unknown command 'frobnicate'" "$tmp/err"
run 1 "unknown option" --frobnicate facts
check_contains "unknown option named" "unknown option '--frobnicate'" "$tmp/err"
run 1 "option missing its argument" facts --root
run 1 "--set on a command that does not take it" facts --set a=b
check_contains "--set refused for facts" "does not take --set" "$tmp/err"
run 1 "--set without =" plan oracle --set novalue
run 1 "bad --color" --color=sometimes facts
run 1 "plan without a profile" plan
run 1 "facts with an argument" facts extra
run 1 "missing root" --root "$tmp/does-not-exist" facts
check_contains "missing root named" "$tmp/does-not-exist" "$tmp/err"

run 0 "facts on a fixture" --root "$HOSTS/debian12-kvm" facts
check_contains "facts text is aligned key/value" "kernel.release" "$tmp/out"
run 0 "options after the command" facts --root "$HOSTS/debian12-kvm" --json
if command -v jq >/dev/null 2>&1; then
        check "facts --json parses" "6.1.0-18-amd64" "$(jq -r '.kernel.release' "$tmp/out")"
fi
run 0 "--quiet facts" --quiet --root "$HOSTS/rhel5-xen" facts
check "--quiet prints no warnings" "" "$(cat "$tmp/err")"

finish
