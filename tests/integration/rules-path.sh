#!/bin/sh
# Rules are not optional by accident: a --rules-path without rules files
# is an error naming it; a shipped rules file missing from an existing
# installation is an error naming the file; with no installed rules at
# all the built-in copies of the shipped rules are used, and the output
# says so. HOSTTUNE_DATADIR stands for the installation's data directory,
# so no test depends on what this machine has installed.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
case $HOSTTUNE in /*) ;; *) HOSTTUNE=$(pwd)/$HOSTTUNE ;; esac
cd "$top_srcdir" || exit 99
export HOSTTUNE_INSECURE_PROFILES=1 LC_ALL=C
H=tests/hosts/ol8-bls

# ---- an explicit --rules-path must hold rules ------------------------------
mkdir -p "$tmp/empty"
: >"$tmp/empty/README"
"$HOSTTUNE" --root "$H" --profile-path profiles --rules-path "$tmp/empty" plan oracle --set sga_max_size=18G \
        >"$tmp/out" 2>&1
check "--rules-path without rules files: exit 1" 1 "$?"
check_contains "... naming the directory" "hosttune: --rules-path $tmp/empty: no rules files (NAME.rules) in this directory" "$tmp/out"
"$HOSTTUNE" --root "$H" --profile-path profiles --rules-path "$tmp/nowhere" plan base >"$tmp/out" 2>&1
check "--rules-path that does not exist: exit 1" 1 "$?"
check_contains "... naming it" "hosttune: --rules-path $tmp/nowhere: No such file or directory" "$tmp/out"
"$HOSTTUNE" --root "$H" --profile-path profiles --rules-path "$tmp/empty/README" plan base >"$tmp/out" 2>&1
check "--rules-path naming a file: exit 1" 1 "$?"
check_contains "... naming it" "hosttune: --rules-path $tmp/empty/README: Not a directory" "$tmp/out"
# a second, good --rules-path does not excuse the empty one
"$HOSTTUNE" --root "$H" --profile-path profiles --rules-path rules --rules-path "$tmp/empty" plan base \
        >"$tmp/out" 2>&1
check "an empty --rules-path beside a good one: exit 1" 1 "$?"
P=$(prepare_host ol8-bls); scratch "$P"
cp -a "$P" "$tmp/before"
"$HOSTTUNE" --root "$P" --profile-path profiles --rules-path "$tmp/empty" apply oracle --set sga_max_size=18G \
        >"$tmp/out" 2>&1
check "apply with an empty --rules-path: exit 1" 1 "$?"
same_tree "... and the host is untouched" "$tmp/before" "$P"

# ---- no installed rules: the built-in copies, said so ----------------------
HOSTTUNE_DATADIR=$tmp/not-installed "$HOSTTUNE" --root "$H" --profile-path profiles --color=never \
        plan oracle --set sga_max_size=18G >"$tmp/builtin.txt" 2>&1
check "no rules path, nothing installed: plan (exit 2)" 2 "$?"
check_contains "the output says the built-in rules are used" \
        "warning: $tmp/not-installed/rules does not exist (hosttune's data files are not installed), so the rules hosttune ships are taken from the copies built into hosttune" \
        "$tmp/builtin.txt"
for f in rules/*.rules; do
        check_contains "... naming $(basename "$f")" "$(basename "$f")" "$tmp/builtin.txt"
done
# ceil(18 GiB / 2 MiB) + 2 slack: the HugePages rule ran
check_contains "HugePages planned (rules/10-hugepages.rules)" "+vm.nr_hugepages = 9218" "$tmp/builtin.txt"
check_contains "memlock planned" "oracle hard memlock" "$tmp/builtin.txt"
check_contains "THP planned" "transparent_hugepage=madvise" "$tmp/builtin.txt"
# the same plan as with the shipped files, but for the warning and the sources
"$HOSTTUNE" --root "$H" --profile-path profiles --rules-path rules --color=never \
        plan oracle --set sga_max_size=18G >"$tmp/files.txt" 2>&1
grep -v "are taken from the copies built into hosttune" "$tmp/builtin.txt" | sed 's|<built-in>/|rules/|g' >"$tmp/builtin-norm.txt"
if cmp -s "$tmp/files.txt" "$tmp/builtin-norm.txt"; then ok "built-in rules plan as the shipped files do"; else
        not_ok "built-in rules plan differently: $(diff "$tmp/files.txt" "$tmp/builtin-norm.txt" | head -20)"; fi
HOSTTUNE_NO_BUILTIN_PROFILES=1 HOSTTUNE_DATADIR=$tmp/not-installed "$HOSTTUNE" --root "$H" --profile-path profiles \
        --color=never plan oracle --set sga_max_size=18G >"$tmp/parsed.txt" 2>&1
if cmp -s "$tmp/builtin.txt" "$tmp/parsed.txt"; then ok "HOSTTUNE_NO_BUILTIN_PROFILES=1 parses the built-in text to the same plan"; else
        not_ok "parsed built-in text plans differently: $(diff "$tmp/builtin.txt" "$tmp/parsed.txt" | head -20)"; fi
HOSTTUNE_DATADIR=$tmp/not-installed "$HOSTTUNE" --root "$H" --profile-path profiles --json \
        plan oracle --set sga_max_size=18G >"$tmp/builtin.json" 2>/dev/null
check_contains "--json: the warning is in warnings[]" "copies built into hosttune" "$tmp/builtin.json"
check_contains "--json: sources name the built-in copy" '"source": "rule thp-cmdline (<built-in>/40-thp.rules:44)"' "$tmp/builtin.json"
HOSTTUNE_DATADIR=$tmp/not-installed "$HOSTTUNE" --root "$H" --profile-path profiles show oracle >"$tmp/out" 2>&1
check_contains "show says so too" "copies built into hosttune" "$tmp/out"

# ---- an installation missing a shipped file --------------------------------
mkdir -p "$tmp/inst/rules"
cp rules/*.rules "$tmp/inst/rules/"
HOSTTUNE_DATADIR=$tmp/inst "$HOSTTUNE" --root "$H" --profile-path profiles --color=never \
        plan oracle --set sga_max_size=18G >"$tmp/out" 2>&1
check "complete installation: plan (exit 2)" 2 "$?"
if grep -q "built into hosttune" "$tmp/out"; then not_ok "complete installation: no built-in warning"; else
        ok "complete installation: no built-in warning"; fi
HOSTTUNE_DATADIR=$tmp/inst "$HOSTTUNE" --root "$H" --profile-path profiles --json \
        plan oracle --set sga_max_size=18G >"$tmp/out" 2>&1
check_contains "complete installation: its files are the sources" "\"source\": \"rule thp-cmdline ($tmp/inst/rules/40-thp.rules:44)\"" "$tmp/out"
rm "$tmp/inst/rules/40-thp.rules"
HOSTTUNE_DATADIR=$tmp/inst "$HOSTTUNE" --root "$H" --profile-path profiles plan oracle --set sga_max_size=18G \
        >"$tmp/out" 2>&1
check "installation without 40-thp.rules: exit 1" 1 "$?"
check_contains "... naming the missing file" "hosttune: $tmp/inst/rules/40-thp.rules: missing: hosttune ships this rules file" "$tmp/out"
check_contains "... and the fix" "reinstall hosttune, or put a file of that name in /etc/hosttune/rules" "$tmp/out"
mkdir -p "$tmp/local"
cat >"$tmp/local/95-local.rules" <<'EOF'
rules = ( { name = "local-note"; warn = "a local rule ran"; } );
EOF
HOSTTUNE_DATADIR=$tmp/inst "$HOSTTUNE" --root "$H" --profile-path profiles --rules-path "$tmp/local" \
        plan base >"$tmp/out" 2>&1
check "a --rules-path of local rules does not hide it (exit 1)" 1 "$?"
check_contains "... still naming the missing file" "hosttune: $tmp/inst/rules/40-thp.rules: missing" "$tmp/out"
cp rules/40-thp.rules "$tmp/local/"
HOSTTUNE_DATADIR=$tmp/inst "$HOSTTUNE" --root "$H" --profile-path profiles --rules-path "$tmp/local" \
        plan base >"$tmp/out" 2>&1
check "40-thp.rules on the --rules-path replaces the missing one (exit 2)" 2 "$?"
check_contains "... and the local rule ran" "warning: a local rule ran" "$tmp/out"
P=$(prepare_host ol8-bls); scratch "$P"
cp -a "$P" "$tmp/before2"
HOSTTUNE_DATADIR=$tmp/inst "$HOSTTUNE" --root "$P" --profile-path profiles apply oracle --set sga_max_size=18G \
        >"$tmp/out" 2>&1
check "apply on the incomplete installation: exit 1" 1 "$?"
same_tree "... and the host is untouched" "$tmp/before2" "$P"
# an administrator turns the THP rules off on purpose: an empty file of
# that name under /etc/hosttune/rules replaces the shipped one
mkdir -p "$P/etc/hosttune/rules"
: >"$P/etc/hosttune/rules/40-thp.rules"
HOSTTUNE_DATADIR=$tmp/inst "$HOSTTUNE" --root "$P" --profile-path profiles --color=never \
        plan oracle --set sga_max_size=18G >"$tmp/out" 2>&1
check "40-thp.rules replaced by an empty local file: plan (exit 2)" 2 "$?"
if grep -q "transparent_hugepage=\\|transparent_hugepage/enabled" "$tmp/out"; then not_ok "... and no THP is planned"; else ok "... and no THP is planned"; fi
check_contains "... the other rules still run" "+vm.nr_hugepages = 9218" "$tmp/out"
finish
