#!/bin/sh
# facts and plan read the boot files with one parser each (HACKING.md,
# "Formats"): on copies of the fixtures, `hosttune facts --json` reports
# the kernel command line the files give, the value the shell (for GRUB
# defaults) or the fixture's own lines (grub.conf, BLS entries and
# grubenv) say; after `apply` of one word, the facts of the edited files
# have it in every Linux entry, and plan has nothing left to do.
#  - Debian with a grub.d/*.cfg that sets GRUB_CMDLINE_LINUX after
#    /etc/default/grub (a cloud image's drop-in);
#  - RHEL 5 with Xen: grub.conf with a Xen entry, /etc/grub.conf and
#    menu.lst links to it;
#  - Oracle Linux 8: BLS entries with $kernelopts from grubenv.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES HOSTTUNE_NO_AUDIT LC_ALL

mkdir -p "$tmp/profiles" "$tmp/rules"
: >"$tmp/rules/00-none.rules" # no rules: only the profile's word is planned
cat >"$tmp/profiles/thpword.profile" <<'EOF'
summary = "one kernel command line word";
cmdline = { add = [ "transparent_hugepage=never" ]; };
EOF
ht() { # ROOT ARGS...
        r=$1
        shift
        "$HOSTTUNE" --root "$r" --profile-path "$tmp/profiles" --rules-path "$tmp/rules" --color=never "$@"
}
facts() { ht "$1" --json facts >"$tmp/facts.json" 2>"$tmp/facts.err"; }
fact() { jq_get "$tmp/facts.json" "$1"; }

# ---- GRUB defaults with grub.d --------------------------------------------
grub_words() { # ROOT: what grub-mkconfig's shell is left with
        sh -c 'set -e; . "$1/etc/default/grub"
               for f in "$1"/etc/default/grub.d/*.cfg; do [ -e "$f" ] && . "$f"; done
               printf "%s|%s" "$GRUB_CMDLINE_LINUX" "$GRUB_CMDLINE_LINUX_DEFAULT"' sh "$1"
}
root=$(copy_host debian12-kvm); scratch "$root"
mkdir -p "$root/etc/default/grub.d"
printf '# Cloud Image specific Grub settings for Generic Cloud Images\nGRUB_CMDLINE_LINUX="console=tty1 console=ttyS0"\n' \
        >"$root/etc/default/grub.d/50-cloudimg-settings.cfg"
printf 'GRUB_CMDLINE_LINUX="not=sourced"\n' >"$root/etc/default/grub.d/README"
facts "$root"
check "grub.d: the shell's value of the fixture" "console=tty1 console=ttyS0|quiet" "$(grub_words "$root")"
check "grub.d: facts report GRUB_CMDLINE_LINUX as the drop-in leaves it" \
        "$(grub_words "$root")" "$(fact bootloader.grub_cmdline_linux)|$(fact bootloader.grub_cmdline_linux_default)"
ht "$root" plan thpword >"$tmp/plan" 2>&1
check "grub.d: plan exit" 2 "$?"
check_contains "grub.d: the plan edits the drop-in that sets the value" "grub.d/50-cloudimg-settings.cfg" "$tmp/plan"
ht "$root" apply thpword >"$tmp/out" 2>&1
check "grub.d: apply exit" 0 "$?"
facts "$root"
check "grub.d: after apply, the shell has the word" "console=tty1 console=ttyS0 transparent_hugepage=never|quiet" \
        "$(grub_words "$root")"
check "grub.d: after apply, the facts agree with the shell" \
        "$(grub_words "$root")" "$(fact bootloader.grub_cmdline_linux)|$(fact bootloader.grub_cmdline_linux_default)"
ht "$root" plan thpword >"$tmp/plan" 2>&1
check "grub.d: plan after apply has nothing to do" 0 "$?"
rm -rf "$root"

# ---- legacy grub.conf with Xen, reached through links ----------------------
# The Linux arguments of every title, from the file: a Xen entry's first
# module, another entry's kernel line.
legacy_args() { # FILE
        awk '$1 == "title" { xen = 0; mods = 0 }
             $1 == "kernel" { if ($2 ~ /xen\.gz/) xen = 1; else { $1 = ""; $2 = ""; print substr($0, 3) } }
             $1 == "module" && xen && mods++ == 0 { $1 = ""; $2 = ""; print substr($0, 3) }' "$1"
}
facts_args() { # the entries' options in the facts, one a line
        i=0
        while [ "$i" -lt "$(fact bootloader.entries.#)" ]; do
                fact "bootloader.entries.$i.options"
                i=$((i + 1))
        done
}
root=$(copy_host rhel5-xen); scratch "$root"
check "rhel5-xen: /etc/grub.conf is a link in the fixture" yes "$([ -L "$root/etc/grub.conf" ] && echo yes)"
facts "$root"
check "rhel5-xen: facts read the menu" grub-legacy "$(fact bootloader.kind)"
legacy_args "$root/boot/grub/grub.conf" >"$tmp/want"
facts_args >"$tmp/got"
check "rhel5-xen: the fixture has two Linux entries" 2 "$(wc -l <"$tmp/want" | tr -d ' ')"
check "rhel5-xen: facts' options are the file's Linux arguments, Xen's module included" \
        "$(cat "$tmp/want")" "$(cat "$tmp/got")"
check "rhel5-xen: the Xen entry is Xen to the facts" true "$(fact bootloader.entries.0.xen)"
ht "$root" apply thpword >"$tmp/out" 2>&1
check "rhel5-xen: apply exit" 0 "$?"
check "rhel5-xen: /etc/grub.conf is still a link" yes "$([ -L "$root/etc/grub.conf" ] && echo yes)"
facts "$root"
legacy_args "$root/boot/grub/grub.conf" >"$tmp/want"
facts_args >"$tmp/got"
check "rhel5-xen: after apply, facts and file agree" "$(cat "$tmp/want")" "$(cat "$tmp/got")"
check "rhel5-xen: after apply, every Linux entry has the word" 2 "$(grep -c 'transparent_hugepage=never' "$tmp/got")"
check "rhel5-xen: the hypervisor's line did not get it" 0 \
        "$(grep 'kernel /xen.gz' "$root/boot/grub/grub.conf" | grep -c transparent_hugepage)"
rm -rf "$root"

# ---- BLS entries with $kernelopts -------------------------------------------
# An entry's words as GRUB's blscfg builds them: its options lines with
# grubenv's variables put in (tuned_params unset here).
bls_words() { # ROOT ENTRY
        env=$(tr -d '\000' <"$1/boot/grub2/grubenv" | sed -n 's/^kernelopts=//p' | tail -n 1)
        sed -n 's/^options[ 	]*//p' "$2" | sed "s|\\\$kernelopts|$env|; s|\\\$tuned_params||" | tr -s ' \n' '  ' |
                sed 's/^ *//; s/ *$//'
}
root=$(copy_host ol8-bls); scratch "$root"
for when in before after; do
        facts "$root"
        check "ol8-bls $when: facts read the entries" bls "$(fact bootloader.kind)"
        entries=$(fact bootloader.entries.#)
        check "ol8-bls $when: three entries" 3 "$entries"
        i=0
        while [ "$i" -lt "$entries" ]; do
                id=$(fact "bootloader.entries.$i.id")
                check "ol8-bls $when: $id options as GRUB builds them" \
                        "$(bls_words "$root" "$root/boot/loader/entries/$id.conf")" "$(fact "bootloader.entries.$i.options")"
                [ "$when" = after ] && check_contains "ol8-bls after: $id has the word" transparent_hugepage=never \
                        "$tmp/facts.json"
                i=$((i + 1))
        done
        if [ "$when" = before ]; then
                ht "$root" apply thpword >"$tmp/out" 2>&1
                check "ol8-bls: apply exit" 0 "$?"
        fi
done
ht "$root" plan thpword >"$tmp/plan" 2>&1
check "ol8-bls: plan after apply has nothing to do" 0 "$?"
rm -rf "$root"

finish
