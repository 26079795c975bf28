#!/bin/sh
# The man pages render without warnings (mandoc's linter and groff's).
. "${top_srcdir:-.}/tests/integration/lib.sh"
for page in "$top_srcdir/man/hosttune.8" "$top_srcdir/man/hosttune.profile.5"; do
        name=$(basename "$page")
        if command -v mandoc >/dev/null 2>&1; then
                # -W warning: style notes (unknown cross-references) do not count
                if mandoc -Tlint -W warning "$page" >"$tmp/lint" 2>&1; then ok "$name: mandoc -Tlint clean"
                else not_ok "$name: mandoc -Tlint: $(head -5 "$tmp/lint")"; fi
        fi
        if command -v groff >/dev/null 2>&1; then
                groff -man -ww -z "$page" >"$tmp/groff" 2>&1
                if [ ! -s "$tmp/groff" ]; then ok "$name: groff -ww clean"
                else not_ok "$name: groff: $(head -5 "$tmp/groff")"; fi
        fi
done
[ "$n" -gt 0 ] || { echo "1..0 # SKIP neither mandoc nor groff"; exit 0; }
check_contains "hosttune(8) documents every command" "recommend" "$top_srcdir/man/hosttune.8"
for cmd in facts list show plan apply verify rollback history recommend status; do
        grep -q "^\.B.* $cmd\|^\.B $cmd\|^\.BI $cmd\|^\.BR $cmd" "$top_srcdir/man/hosttune.8" ||
                not_ok "hosttune(8) has no entry for $cmd"
done
ok "every command has an entry"
finish
