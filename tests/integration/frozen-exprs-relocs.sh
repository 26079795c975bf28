#!/bin/sh
# The shipped expressions' frozen trees hold no pointer (issue 34): the
# table (ht_builtin_exprs) and the pools of nodes, kids and strings it
# indexes lie in .rodata, and no relocation of the binary falls inside
# them. A pointer there (a node's string, a tree's nodes, a table entry's
# text) is a relocation the loader applies at every start and a page of
# .data.rel.ro it dirties: ~800 of them and 9 pages before this layout.
# ht_builtin_files, which does hold pointers, shows the check sees them.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v readelf >/dev/null 2>&1 || skip_all "readelf is not installed (binutils)"
# the binary itself, not a wrapper (tests/json/capture, valgrind)
bin=$top_builddir/hosttune
[ -x "$bin" ] || skip_all "$bin not built"
readelf -sW "$bin" >"$tmp/syms" && readelf -SW "$bin" >"$tmp/sections" && readelf -rW "$bin" >"$tmp/relocs" ||
        skip_all "readelf cannot read $bin"
grep -q ' ht_builtin_files$' "$tmp/syms" || skip_all "$bin has no symbol table (stripped)"

# "NAME IN_RODATA RELOCS" for each symbol: whether it lies within
# .rodata, and how many relocations patch a byte of it
awk '
        function hex(s,   i, c, v) {
                v = 0
                s = tolower(s)
                sub(/^0x/, "", s)
                for (i = 1; i <= length(s); i++) {
                        c = index("0123456789abcdef", substr(s, i, 1))
                        if (!c) return -1
                        v = v * 16 + c - 1
                }
                return v
        }
        FILENAME ~ /sections$/ {
                # [Nr] Name Type Address Off Size ...: the "[ N]" may be two fields
                for (i = 1; i < NF; i++)
                        if ($i == ".rodata") { ro = hex($(i + 2)); ro_end = ro + hex($(i + 4)) }
                next
        }
        FILENAME ~ /syms$/ {
                # Num: Value Size Type Bind Vis Ndx Name
                if ($NF ~ /^ht_builtin_(exprs|expr_nodes|expr_kids|expr_chars|files)$/ && !($NF in start)) {
                        size = $3 ~ /^0x/ ? hex($3) : $3 + 0
                        start[$NF] = hex($2)
                        end[$NF] = start[$NF] + size
                }
                next
        }
        $1 ~ /^[0-9a-f]+$/ && NF >= 3 {
                at = hex($1)
                for (s in start)
                        if (at >= start[s] && at < end[s]) n[s]++
        }
        END {
                for (s in start)
                        print s, (start[s] >= ro && end[s] <= ro_end && end[s] > start[s]) ? "rodata" : "elsewhere",
                              n[s] + 0
        }' "$tmp/sections" "$tmp/syms" "$tmp/relocs" >"$tmp/found"

for s in ht_builtin_exprs ht_builtin_expr_nodes ht_builtin_expr_kids ht_builtin_expr_chars; do
        check "$s is in .rodata, with no relocation in it" "$s rodata 0" "$(grep "^$s " "$tmp/found")"
done
# the check sees a relocation where there is one: the files' table points
# at their names, bytes and parsed forms
relocs=$(awk '$1 == "ht_builtin_files" { print $3 }' "$tmp/found")
if [ "${relocs:-0}" -gt 0 ]; then ok "the relocations of ht_builtin_files are seen ($relocs)"
else not_ok "no relocation seen in ht_builtin_files: the check cannot see any"; fi
finish
