#!/bin/sh
# docs/TUNED.md's coverage table is what scripts/tuned-coverage.sh prints
# for the installed tuned's profiles now, from the real program's import
# output, and names the tuned release it was made from. Regenerate:
#   UPDATE_TUNED_COVERAGE=1 make check TESTS=tests/integration/tuned-coverage.sh
# (and review the diff, as for the goldens).
. "${top_srcdir:-.}/tests/integration/lib.sh"
doc=$top_srcdir/docs/TUNED.md
TD=${HT_TUNED_DIR:-/usr/lib/tuned}
ls "$TD"/*/tuned.conf >/dev/null 2>&1 ||
        skip_all "no tuned profiles in $TD (Debian: apt-get install tuned; CI installs it)"
installed=$(dpkg-query -W -f '${Version}' tuned 2>/dev/null || rpm -q --qf '%{VERSION}-%{RELEASE}' tuned 2>/dev/null || echo unknown)
begin='<!-- tuned-coverage begin: scripts/tuned-coverage.sh -->'
end='<!-- tuned-coverage end -->'
documented=$(sed -n "s/^Made from tuned \(.*\)'s profiles .*/\1/p" "$doc" 2>/dev/null)
if [ "${UPDATE_TUNED_COVERAGE:-0}" != 1 ] && [ -n "$documented" ] && [ "$documented" != "$installed" ]; then
        skip_all "docs/TUNED.md's table is of tuned $documented, this machine has $installed (CI installs Debian's)"
fi

HOSTTUNE=$HOSTTUNE sh "$top_srcdir/scripts/tuned-coverage.sh" "$TD" >"$tmp/table" 2>"$tmp/err"
rc=$?
check "the coverage script runs (exit 0)" 0 "$rc"
[ "$rc" = 0 ] || { echo "# $(head -c 600 "$tmp/err")"; finish; }
profiles=$(ls "$TD"/*/tuned.conf | wc -l)
check "one row a profile, a header and a total" "$((profiles + 3))" "$(wc -l <"$tmp/table")"
if grep -q 'import failed' "$tmp/table"; then not_ok "every profile imports: $(grep 'import failed' "$tmp/table" | head -3)"
else ok "every profile imports"; fi
# the total row adds up the rows
check "the totals add up" "$(awk -F' *\\| *' 'NR > 2 && $2 != "**all**" { s += $3; c += $4; n += $5 } END { print s, c, n }' "$tmp/table")" \
        "$(awk -F' *\\| *' '$2 == "**all**" { gsub(/\*/, ""); print $3, $4, $5 }' "$tmp/table")"
check "each row: settings = carried over + not carried over" "" \
        "$(awk -F' *\\| *' 'NR > 2 && $3 ~ /^[0-9]+$/ && $3 != $4 + $5 { print $2 }' "$tmp/table")"

# the doc: the table between the markers, and the tuned release
# (the markers as whole lines, compared as text: they hold / and -)
{
        awk -v m="$begin" '{ print } $0 == m { exit }' "$doc"
        echo
        echo "Made from tuned $installed's profiles ($TD) by hosttune $("$HOSTTUNE" --version | awk '{print $NF}')."
        echo
        cat "$tmp/table"
        echo
        awk -v m="$end" '$0 == m { on = 1 } on' "$doc"
} >"$tmp/doc" 2>/dev/null
if [ "${UPDATE_TUNED_COVERAGE:-0}" = 1 ]; then
        cp "$tmp/doc" "$doc"
        echo "# docs/TUNED.md regenerated; review the diff"
fi
if grep -qxF -- "$begin" "$doc" && grep -qxF -- "$end" "$doc"; then ok "docs/TUNED.md has the coverage markers"
else not_ok "docs/TUNED.md has the coverage markers"; fi
if d=$(diff "$doc" "$tmp/doc"); then ok "docs/TUNED.md's table is the script's output"
else not_ok "docs/TUNED.md's table is the script's output (UPDATE_TUNED_COVERAGE=1 regenerates): $(printf '%s' "$d" | head -c 1500)"; fi
finish
