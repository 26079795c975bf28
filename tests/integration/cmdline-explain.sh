#!/bin/sh
# Issue 38: `hosttune explain cmdline.KEY`: the booted word, every word for
# the parameter in the files the bootloader builds the next boot's line
# from, in its order, the one that wins. GRUB 2: grub-mkconfig sources
# /etc/default/grub, then grub.d/*.cfg, and writes GRUB_CMDLINE_LINUX then
# _DEFAULT; GRUB boots grub.cfg's line. The GRUB defaults reading is
# compared with the shell's own: the test sources the fixture's files with
# sh (hosttune never runs them). BLS: the default entry's options with
# grubenv's $kernelopts in place; legacy GRUB: the default entry's line.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"

# --- GRUB 2 -----------------------------------------------------------------
h=$(prepare_host debian12-kvm); scratch "$h"
d=$h/etc/default
mkdir -p "$d/grub.d"
cat >"$d/grub" <<'EOF'
GRUB_DEFAULT=0
GRUB_TIMEOUT=5
GRUB_CMDLINE_LINUX_DEFAULT="quiet"
GRUB_CMDLINE_LINUX="transparent_hugepage=never numa_balancing=0"
EOF
printf 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX transparent_hugepage=madvise"\n' >"$d/grub.d/10-a.cfg"
printf '# vendor\nGRUB_CMDLINE_LINUX_DEFAULT="quiet transparent_hugepage=always"\n' >"$d/grub.d/20-b.cfg"
printf 'export GRUB_CMDLINE_LINUX="${GRUB_CMDLINE_LINUX} numa_balancing=1 elevator=deadline"\n' >"$d/grub.d/30-c.cfg"
printf 'GRUB_CMDLINE_LINUX="numa_balancing=9"\n' >"$d/grub.d/40-not-sourced.conf"
# what the shell leaves, grub-mkconfig's line: LINUX's words then _DEFAULT's
line=$(cd "$h" && LC_ALL=C sh -c '. ./etc/default/grub; for x in ./etc/default/grub.d/*.cfg; do . "$x"; done
        echo "$GRUB_CMDLINE_LINUX $GRUB_CMDLINE_LINUX_DEFAULT"')
: >"$tmp/theirs"; : >"$tmp/ours"
for k in transparent_hugepage numa_balancing quiet elevator; do
        printf '%s %s\n' "$k" "$(printf '%s\n' $line | grep -E "^$k(=|\$)" | tail -n1)" >>"$tmp/theirs"
        ht "$h" --json explain "cmdline.$k"
        printf '%s %s\n' "$k" "$(jq -r '[.boot.assignments[] | select(.note == "what grub-mkconfig writes into grub.cfg")][0].value // ""' "$tmp/out")" >>"$tmp/ours"
done
check "GRUB defaults: hosttune's word for each parameter is the sourced files' last" "$(cat "$tmp/theirs")" "$(cat "$tmp/ours")"
ht "$h" --json explain cmdline.transparent_hugepage
check "GRUB 2: the files in grub-mkconfig's order, grub.cfg last" \
        "grub-mkconfig and GRUB 2|/etc/default/grub /etc/default/grub.d/10-a.cfg /etc/default/grub.d/20-b.cfg /etc/default/grub.d/30-c.cfg /boot/grub/grub.cfg" \
        "$(jq -r '"\(.boot.consumer)|\(.boot.files | join(" "))"' "$tmp/out")"
check "GRUB 2: every word, each with its line; the replaced ones say by what" \
"/etc/default/grub:4 GRUB_CMDLINE_LINUX transparent_hugepage=never replaced by /etc/default/grub.d/10-a.cfg:1
/etc/default/grub.d/10-a.cfg:1 GRUB_CMDLINE_LINUX transparent_hugepage=never replaced by /etc/default/grub.d/30-c.cfg:1
/etc/default/grub.d/10-a.cfg:1 GRUB_CMDLINE_LINUX transparent_hugepage=madvise replaced by /etc/default/grub.d/30-c.cfg:1
/etc/default/grub.d/20-b.cfg:2 GRUB_CMDLINE_LINUX_DEFAULT transparent_hugepage=always what grub-mkconfig writes into grub.cfg
/etc/default/grub.d/30-c.cfg:1 GRUB_CMDLINE_LINUX transparent_hugepage=never -
/etc/default/grub.d/30-c.cfg:1 GRUB_CMDLINE_LINUX transparent_hugepage=madvise GRUB_CMDLINE_LINUX_DEFAULT's word comes after it on the line" \
        "$(jq -r '.boot.assignments[] | "\(.file):\(.line) \(.key) \(.value) \(.note // "-")"' "$tmp/out")"
check "GRUB 2: grub.cfg not regenerated: nothing reaches the next boot, and it is said" \
        "null|/boot/grub/grub.cfg:119 gives no such word, the GRUB defaults transparent_hugepage=always: grub.cfg was not regenerated since they changed (grub-mkconfig -o /boot/grub/grub.cfg)" \
        "$(jq -r '"\(.boot.winner)|\(.warnings | join(";"))"' "$tmp/out")"
# grub.cfg as grub-mkconfig would write it from these files: it wins, no warning
sed -i "119s|ro  quiet|ro $line|" "$h/boot/grub/grub.cfg"
ht "$h" explain cmdline.transparent_hugepage
check_contains "text: grub.cfg's word wins (set default=\"0\": its first entry)" \
        "    /boot/grub/grub.cfg:119  linux (default entry 0): transparent_hugepage=always   <- wins" "$tmp/out"
check_contains "text: the next boot's value and where" "  boot value: transparent_hugepage=always (/boot/grub/grub.cfg:119)" "$tmp/out"
check "text: no warning once grub.cfg is regenerated" "" "$(cat "$tmp/err")"

# GRUB_DEFAULT=saved: grub.cfg's set default="${saved_entry}", grubenv's
# saved_entry naming a submenu's entry by title>id, or by number
sed -i '19s/.*/   set default="${saved_entry}"/' "$h/boot/grub/grub.cfg"
genv() { s="# GRUB Environment Block
saved_entry=$1
"; printf '%s' "$s"; head -c $((1024 - ${#s})) /dev/zero | tr '\0' '#'; }
genv "Advanced options for Debian GNU/Linux>gnulinux-6.1.0-18-amd64-recovery-2f9c1a3e-5b7d-4c61-9e0a-8d3f6b2c4e17" \
        >"$h/boot/grub/grubenv"
ht "$h" --json explain cmdline.single
check "saved_entry TITLE>ID: the recovery entry's line, not compared with the defaults" \
        "/boot/grub/grub.cfg:154 single|" "$(jq -r '"\(.boot.winner.file):\(.boot.winner.line) \(.boot.winner.value)|\(.warnings | join(";"))"' "$tmp/out")"
genv "1>0" >"$h/boot/grub/grubenv"
ht "$h" --json explain cmdline.quiet
check "saved_entry N>M: the submenu's first entry" "/boot/grub/grub.cfg:137 linux (default entry 1>0)" \
        "$(jq -r '"\(.boot.winner.file):\(.boot.winner.line) \(.boot.winner.key)"' "$tmp/out")"
genv 9 >"$h/boot/grub/grubenv"
ht "$h" --json explain cmdline.quiet
check "an entry that does not exist: the first one, said" \
        "/boot/grub/grub.cfg:119|/boot/grub/grub.cfg: GRUB's default entry \"9\" is not found as a Linux entry: the first one is shown" \
        "$(jq -r '"\(.boot.winner.file):\(.boot.winner.line)|\(.warnings | join(";"))"' "$tmp/out")"

# hosttune's value and verify's check, after an apply (the fixture has no
# grub-mkconfig: grub.cfg stays as it was, which explain and verify both say)
h2=$(prepare_host debian12-kvm); scratch "$h2"
htrun 0 "apply mysql (transparent_hugepage=never through rule thp-cmdline)" "$h2" apply mysql
ht "$h2" --json explain cmdline.transparent_hugepage
check "after apply: booted without it, the defaults have it, hosttune's value and source, verify pending" \
        "/proc/cmdline null|/etc/default/grub:10 transparent_hugepage=never|never false true rule thp-cmdline ($top_srcdir/rules/40-thp.rules:44)|reboot-pending transparent_hugepage=never" \
        "$(jq -r '"\(.runtime.path) \(.runtime.value)|\(.boot.assignments[0] | "\(.file):\(.line) \(.value)")|\(.hosttune.value) \(.hosttune.remove) \(.hosttune.applied) \(.hosttune.source)|\(.verify.status) \(.verify.expected)"' "$tmp/out")"
ht "$h2" --json explain cmdline.quiet
check "the booted word from /proc/cmdline" "quiet" "$(jq -r '.runtime.value' "$tmp/out")"

# --- BLS (Oracle Linux 8: options $kernelopts, grubenv) ----------------------
h=$(prepare_host ol8-bls); scratch "$h"
ent=$h/boot/loader/entries/d2b4b7a5c3e14f6f9b0e8a1c7d3f2e61-5.15.0-206.153.7.1.el8uek.x86_64.conf
printf 'options transparent_hugepage=madvise\n' >>"$ent"
nl=$(wc -l <"$ent")
ht "$h" --json explain cmdline.transparent_hugepage
check "BLS: no such word in kernelopts: the entry's own options line wins" \
        "GRUB's blscfg (BLS entries)|${ent#$h}:$nl options transparent_hugepage=madvise true" \
        "$(jq -r '"\(.boot.consumer)|\(.boot.assignments[] | "\(.file):\(.line) \(.key) \(.value) \(.winner)")"' "$tmp/out")"
ht "$h" --json explain cmdline.rd.lvm.lv
check "BLS: kernelopts' words in place of \$kernelopts; a repeatable parameter: every word counts" \
        "/boot/grub2/grubenv:3 rd.lvm.lv=ol/root true
/boot/grub2/grubenv:3 rd.lvm.lv=ol/swap true" \
        "$(jq -r '.boot.assignments[] | "\(.file):\(.line) \(.value) \(.winner)"' "$tmp/out")"

# --- legacy GRUB (RHEL 5 Xen: Linux's words on the module line) ----------------
h=$(prepare_host rhel5-xen); scratch "$h"
ht "$h" --json explain cmdline.quiet
check "legacy GRUB: the default entry's Linux line (a Xen entry's module)" \
        "GRUB 0.97|/boot/grub/grub.conf:17 quiet true" \
        "$(jq -r '"\(.boot.consumer)|\(.boot.winner.file):\(.boot.winner.line) \(.boot.winner.value) \(.boot.winner.winner)"' "$tmp/out")"

# bad keys: refused, naming the key
ht "$h" explain 'cmdline.a=b'
check "a key with '=' is refused" "1 hosttune: explain cmdline.a=b: not a kernel parameter name ([A-Za-z0-9_.-], no '=')" \
        "$rc $(cat "$tmp/err")"
ht "$h" explain 'cmdline.$(id)'
check "a key with shell characters is refused" 1 "$rc"
echo "1..$n"
[ "$failed" -eq 0 ]
