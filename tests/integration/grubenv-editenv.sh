#!/bin/sh
# RHEL 8's grubenv (kernelopts, entries with "options $kernelopts"), edited
# by hosttune and by the real grub-editenv (grub-common, when installed)
# from the same block: the results are byte for byte the same, the one
# where the new kernelopts fills the 1024-byte block to its last byte
# included (grub_envblk_set, grub-core/lib/envblk.c: no '#' left is
# allowed), and one byte more is refused by both (grub-editenv:
# "environment block too small"; hosttune: an error naming the file, the
# host untouched).
. "${top_srcdir:-.}/tests/integration/lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
ge=$(command -v grub-editenv || command -v grub2-editenv) || ge=
mkdir -p "$tmp/p" "$tmp/r"
for f in "$top_srcdir"/rules/*.rules; do : >"$tmp/r/$(basename "$f")"; done
printf 'summary = "one word";\ncmdline = { add = [ "numa_balancing=disable" ]; };\n' >"$tmp/p/one.profile"
# block NAME EXTRA: a grubenv whose kernelopts, with the word appended,
# needs 1024 + EXTRA bytes
block() {
        hdr='# GRUB Environment Block'
        base="saved_entry=x kernelopts=root=/dev/mapper/ol-root ro "
        fill=$((1024 - 23 - ${#hdr} - 1 - ${#base} - 2 + $2))
        xs=$(printf "%${fill}s" '' | tr ' ' x)
        { printf '%s\nsaved_entry=x\nkernelopts=root=/dev/mapper/ol-root ro %s \n' "$hdr" "$xs"
          pad=$((1024 - ${#hdr} - 1 - ${#base} - fill - 2)); printf "%${pad}s" '' | tr ' ' '#'; } >"$tmp/$1"
}
for c in fits:0 over:1; do
        name=${c%%:*} extra=${c#*:}
        block "$name" "$extra"
        check "$name: the block is 1024 bytes" 1024 "$(wc -c <"$tmp/$name")"
        h=$(copy_host ol8-bls "$tmp"); scratch "$h"
        cp "$tmp/$name" "$h/boot/grub2/grubenv"
        "$HOSTTUNE" --root "$h" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never apply one >"$tmp/out" 2>&1
        rc=$?
        if [ "$name" = fits ]; then
                check "fits: apply exit" 0 "$rc"
        else
                check "over: apply refused (exit 1)" 1 "$rc"
                check_contains "over: the error names grubenv and its size" \
                        "boot/grub2/grubenv: grubenv would need 1025 bytes, more than its 1024-byte block" "$tmp/out"
                if cmp -s "$tmp/$name" "$h/boot/grub2/grubenv"; then ok "over: grubenv untouched"
                else not_ok "over: grubenv changed"; fi
        fi
        if [ -z "$ge" ]; then
                skip "$name: the same bytes as grub-editenv" "grub-editenv not installed (Debian: grub-common)"
                continue
        fi
        cp "$tmp/$name" "$tmp/$name.ref"
        k=$(grep -a '^kernelopts=' "$tmp/$name" | sed 's/^kernelopts=//')
        "$ge" "$tmp/$name.ref" set "kernelopts=${k}numa_balancing=disable " 2>/dev/null
        rc=$?
        want=1
        [ "$name" = fits ] && want=0
        check "$name: grub-editenv exit" "$want" "$rc"
        if cmp -s "$tmp/$name.ref" "$h/boot/grub2/grubenv"; then ok "$name: the same bytes as grub-editenv"
        else not_ok "$name: hosttune's grubenv differs from grub-editenv's"; fi
done
finish
