#!/bin/sh
# list and show through the CLI: the seed case, provenance, JSON, and the
# errors a user meets first (unknown profile, a typo in --set, a broken file).
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq is not installed"; exit 0; }
P="--profile-path $PROFILES --rules-path $top_srcdir/rules"
H="--root $HOSTS/debian12-kvm"

run 0 "list" $P list
for p in base oracle mysql jvm; do check_contains "list names $p" "$p " "$tmp/out"; done
run 0 "list --json" $P --json list
check "list --json has the four shipped profiles" "base jvm mysql oracle" \
        "$(jq -r '[.profiles[].name] | sort | join(" ")' "$tmp/out")"

run 0 "show oracle with an 18G SGA" $H $P show oracle --set sga_max_size=18G
check_contains "the seed case: 9218 huge pages" "vm.nr_hugepages = 9218" "$tmp/out"
run 0 "show --json" $H $P --json show oracle --set sga_max_size=18G
check "nr_hugepages in JSON" "9218" \
        "$(jq -r '.settings[] | select(.key == "vm.nr_hugepages") | .value' "$tmp/out")"
check "derived by the hugepages rule" "true" \
        "$(jq '[.settings[] | select(.key == "vm.nr_hugepages") | .source | test("^rule ")] | any' "$tmp/out")"
check "swappiness from oracle (overriding base), with file:line" "true" \
        "$(jq '[.settings[] | select(.key == "vm.swappiness") | .source | test("oracle.profile:[0-9]+$")] | any' "$tmp/out")"

run 1 "unknown profile" $H $P show nosuch
check_contains "unknown profile named" "profile 'nosuch' not found on the profile path" "$tmp/err"
run 1 "typo in --set" $H $P show oracle --set sga_max_sise=18G
check_contains "suggests the right name" "did you mean 'sga_max_size'" "$tmp/err"
run 1 "bad unit in --set" $H $P show oracle --set sga_max_size=18Q
run 1 "a share in --set, where a size is wanted" $H $P plan oracle --set sga_max_size=50%
check_contains "... named as the --set, not as a rules line" \
        "--set sga_max_size=50%: parameter sga_max_size takes an integer (sizes take K, M, G, T)" "$tmp/err"
mkdir -p "$tmp/prof"
printf 'summary = "broken";\nsysctl = { vm = { swappiness = 10 }\n' >"$tmp/prof/broken.profile"
run 1 "syntax error" $H --profile-path "$tmp/prof" $P show broken
check_contains "syntax error names file and line" "broken.profile:3: syntax error" "$tmp/err"
printf 'summary = "typo";\nsysclt = { vm = { swappiness = 10; }; };\n' >"$tmp/prof/typo.profile"
run 1 "unknown section" $H --profile-path "$tmp/prof" $P show typo
check_contains "unknown section: suggestion" "typo.profile:2: profile: unknown key 'sysclt' (did you mean 'sysctl'?)" "$tmp/err"
printf 'summary = "z";\nsysctl = { vm = { swappiness = "= 1 / 0"; }; };\n' >"$tmp/prof/zero.profile"
run 1 "division by zero" $H --profile-path "$tmp/prof" $P show zero
check_contains "division by zero reported" "division by zero" "$tmp/err"
printf 'summary = "a";\ninherit = "b";\n' >"$tmp/prof/a.profile"
printf 'summary = "b";\ninherit = "a";\n' >"$tmp/prof/b.profile"
run 1 "inheritance cycle" $H --profile-path "$tmp/prof" $P show a
check_contains "cycle named" "a -> b -> a" "$tmp/err"
finish
