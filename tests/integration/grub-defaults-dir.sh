#!/bin/sh
# Which /etc/default/grub.d files grub-mkconfig sources, checked against
# the real scripts.
# 1. Ubuntu's cloud image on Debian's grub-mkconfig (grub2-common 2.06,
# copied into the tree from this machine when installed): `. /etc/default/
# grub`, then `for x in ${sysconfdir}/default/grub.d/*.cfg`. The cloud
# image's 50-cloudimg-settings.cfg (livecd-rootfs) sets
# GRUB_CMDLINE_LINUX_DEFAULT, so a console= removed is removed there; a
# file named .site.cfg is not matched by the shell's glob *.cfg and sets
# nothing. hosttune applies (the tree as an image), then the sourcing
# lines of the tree's own grub-mkconfig, run by /bin/sh, must give the
# words asked for, and .site.cfg is untouched. Before, .site.cfg was taken
# for the last assignment of GRUB_CMDLINE_LINUX and edited: the word
# never reached grub.cfg.
# 2. Oracle Linux 8 (RHEL 8) with BLS: RHEL's, Fedora's and SUSE's
# grub2-mkconfig source /etc/default/grub only (rhboot/grub2,
# util/grub-mkconfig.in, every rhel-8 and rhel-9 branch), so a grub.d
# file left by a configuration tool sets nothing there: neither its
# GRUB_CMDLINE_LINUX nor its GRUB_ENABLE_BLSCFG=false count, the words go
# to /etc/default/grub and grubenv's kernelopts. Before, hosttune read
# the grub.d file and refused the plan (a word "from a referenced
# variable" there).
# 3. A Debian Xen dom0 (a hypervisor in /boot): grub-mkconfig's
# 20_linux_xen builds the Linux line of the Xen entries from
# GRUB_CMDLINE_LINUX_XEN_REPLACE and _REPLACE_DEFAULT instead of
# GRUB_CMDLINE_LINUX and _DEFAULT when they are not empty (Debian's
# xen.cfg in grub.d has them commented out, a dom0 sets them for
# console=hvc0). The words go to the pair the Xen entries use too; the
# lines that replace them, taken from the real /etc/grub.d/20_linux_xen
# when installed, must give the words. Before, only the plain pair was
# edited and the Xen entries, the ones a dom0 boots, lacked the words
# while the plan called them persisted.
# 4. GRUB_CMDLINE_LINUX_DEFAULT assigned inside a conditional (a grub.d
# file that appends a word only when some program is installed, as
# Debian's xen.cfg sets GRUB_DEFAULT inside an if): grub-mkconfig's line
# is one of two, and a word is persisted only when both have it. A new
# word in GRUB_CMDLINE_LINUX is; quiet, which /etc/default/grub gives and
# the conditional appends to, is removed there; removing the word only
# the conditional adds is an error naming its line, the tree untouched.
# A _DEFAULT only a command substitution gives is an error for any word.
# Before, all three were reported persisted while grub-mkconfig kept the
# words.
# 5. Arch Linux: its grub-mkconfig reads /etc/default/grub only, and the
# Arch wiki's way to have drop-ins is a loop appended to /etc/default/grub
# that sources /etc/default/grub.d/*.cfg: then they are read (and edited).
# 6. Ubuntu with kdump-tools (installed on Ubuntu Server): its
# /etc/default/grub.d/kdump-tools.cfg appends crashkernel= to
# GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT ...", so quiet
# and splash come from /etc/default/grub through the reference: removing
# splash and setting a parameter /etc/default/grub holds are made there,
# kdump-tools.cfg stays as the package wrote it. Before, both were errors
# ("comes from a referenced variable").
# 7. A Debian image without a GRUB configuration yet (hosttune.cfg in
# grub.d) and another grub.d file whose GRUB_CMDLINE_LINUX_DEFAULT only a command
# substitution gives: the words are not reported persisted (an error
# saying why). Before, that value was taken for empty.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
mkdir -p "$tmp/p" "$tmp/r"
for f in "$top_srcdir"/rules/*.rules; do : >"$tmp/r/$(basename "$f")"; done
printf 'summary = "THP off, no console";\ncmdline = { add = [ "transparent_hugepage=never" ]; remove = [ "console" ]; };\n' \
        >"$tmp/p/thp.profile"

# --- 1. Debian's grub-mkconfig, Ubuntu's cloud image -------------------------
h=$(copy_host debian12-kvm); scratch "$h"
mkdir -p "$h/etc/default/grub.d" "$h/usr/sbin"
cat >"$h/etc/default/grub.d/50-cloudimg-settings.cfg" <<'EOF'
# Cloud Image specific Grub settings for Generic Cloud Images
# CLOUD_IMG: This file was created/modified by the Cloud Image build process

# Set the recordfail timeout
GRUB_RECORDFAIL_TIMEOUT=0

# Do not wait on grub prompt
GRUB_TIMEOUT=0

# Set the default commandline
GRUB_CMDLINE_LINUX_DEFAULT="console=tty1 console=ttyS0 nvme_core.io_timeout=4294967295"

# Set the grub console type
GRUB_TERMINAL=console
EOF
printf 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX site=1"\n' >"$h/etc/default/grub.d/.site.cfg"
cp "$h/etc/default/grub.d/.site.cfg" "$tmp/site.before"
mk=$(command -v grub-mkconfig 2>/dev/null || echo /usr/sbin/grub-mkconfig)
if [ -f "$mk" ]; then
        cp "$mk" "$h/usr/sbin/grub-mkconfig"
        # the lines of the real script that source the defaults
        sed -n '/default\/grub ; then/,/^done/p' "$mk" >"$tmp/source.sh"
else
        printf 'if test -f ${sysconfdir}/default/grub ; then\n  . ${sysconfdir}/default/grub\nfi\nfor x in ${sysconfdir}/default/grub.d/*.cfg ; do\n  if [ -e "${x}" ]; then\n    . "${x}"\n  fi\ndone\n' \
                >"$tmp/source.sh"
fi
# what grub-mkconfig's 10_linux puts on the default entry's kernel line
mkconfig_words() {
        (cd "$1" && sysconfdir=./etc sh -c '. "$0"; echo $GRUB_CMDLINE_LINUX $GRUB_CMDLINE_LINUX_DEFAULT' "$tmp/source.sh")
}
check "Ubuntu cloud image: the sourcing lines found" 1 "$(grep -c 'default/grub.d/\*\.cfg' "$tmp/source.sh")"
check "Ubuntu cloud image, before: what grub-mkconfig sees" \
        "console=tty1 console=ttyS0 nvme_core.io_timeout=4294967295" "$(mkconfig_words "$h")"
hi() { env -u HOSTTUNE_TEST_LIVE_FIXTURES "$HOSTTUNE" --root "$h" --profile-path "$tmp/p" --rules-path "$tmp/r" \
        --color=never "$@"; }
hi --json facts >"$tmp/facts1.json" 2>/dev/null
check "Ubuntu cloud image: facts read the cloud image's file, not .site.cfg" \
        "[] console=tty1 console=ttyS0 nvme_core.io_timeout=4294967295" \
        "[$(jq -r .bootloader.grub_cmdline_linux "$tmp/facts1.json")] $(jq -r .bootloader.grub_cmdline_linux_default "$tmp/facts1.json")"
hi apply thp >"$tmp/apply1" 2>&1
check "Ubuntu cloud image: apply exit" 0 $?
check "Ubuntu cloud image, after: what grub-mkconfig sees" \
        "transparent_hugepage=never nvme_core.io_timeout=4294967295" "$(mkconfig_words "$h")"
if cmp -s "$tmp/site.before" "$h/etc/default/grub.d/.site.cfg"; then ok "Ubuntu cloud image: .site.cfg untouched"
else not_ok "Ubuntu cloud image: .site.cfg edited: $(cat "$h/etc/default/grub.d/.site.cfg")"; fi
check "Ubuntu cloud image: the word in /etc/default/grub, console= gone from the cloud image's file" \
        '1 GRUB_CMDLINE_LINUX_DEFAULT="nvme_core.io_timeout=4294967295"' \
        "$(grep -c '^GRUB_CMDLINE_LINUX="transparent_hugepage=never"$' "$h/etc/default/grub") $(grep '^GRUB_CMDLINE_LINUX_DEFAULT' "$h/etc/default/grub.d/50-cloudimg-settings.cfg")"

# --- 2. RHEL's grub2-mkconfig reads no grub.d -------------------------------
b=$(copy_host ol8-bls); scratch "$b"
mkdir -p "$b/etc/default/grub.d" "$b/usr/sbin"
# what rhboot/grub2's util/grub-mkconfig.in sources (rhel-8.8.0, line 164)
printf '#! /bin/sh\nsysconfdir="/etc"\nif test -f ${sysconfdir}/default/grub ; then\n  . ${sysconfdir}/default/grub\nfi\n' \
        >"$b/usr/sbin/grub2-mkconfig"
chmod 0755 "$b/usr/sbin/grub2-mkconfig"
printf 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX site=1"\nGRUB_ENABLE_BLSCFG=false\n' >"$b/etc/default/grub.d/50-site.cfg"
hb() { "$HOSTTUNE" --root "$b" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never "$@"; }
hb --json facts >"$tmp/facts2.json" 2>/dev/null
check "RHEL 8: facts: BLS, GRUB_CMDLINE_LINUX from /etc/default/grub alone" \
        "bls crashkernel=auto resume=/dev/mapper/ol-swap rd.lvm.lv=ol/root rd.lvm.lv=ol/swap rhgb quiet" \
        "$(jq -r '"\(.bootloader.kind) \(.bootloader.grub_cmdline_linux)"' "$tmp/facts2.json")"
hb --json plan thp >"$tmp/plan2.json" 2>"$tmp/plan2.err"
check "RHEL 8: plan exit (changes pending), no error" "2 0" "$? $(jq '.errors | length' "$tmp/plan2.json")"
check "RHEL 8: the files planned: grubenv and /etc/default/grub, not the grub.d file" \
        '["/boot/grub2/grubenv","/etc/default/grub"]' "$(jq -c '[.files[].path] | sort' "$tmp/plan2.json")"

# --- 3. Xen: the Linux line of the Xen entries --------------------------------
mkdir -p "$tmp/x"; x=$(copy_host debian12-kvm "$tmp/x"); scratch "$x"
: >"$x/boot/xen-4.17-amd64.gz"
printf 'GRUB_CMDLINE_LINUX="quiet"\nGRUB_CMDLINE_LINUX_DEFAULT="transparent_hugepage=always console=tty0"\n' >"$x/etc/default/grub"
mkdir -p "$x/etc/default/grub.d"
printf '#GRUB_CMDLINE_LINUX_XEN_REPLACE_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT"\nGRUB_CMDLINE_LINUX_XEN_REPLACE="console=hvc0 earlyprintk=xen"\nGRUB_CMDLINE_LINUX_XEN_REPLACE_DEFAULT="transparent_hugepage=madvise"\n' \
        >"$x/etc/default/grub.d/xen.cfg"
xl=/etc/grub.d/20_linux_xen
if [ -f "$xl" ]; then
        sed -n '/^# Allow overriding GRUB_CMDLINE_LINUX/,/^case/p' "$xl" | sed '$d' >"$tmp/xen-replace.sh"
else
        printf 'if [ "${GRUB_CMDLINE_LINUX_XEN_REPLACE}" ]; then\n  GRUB_CMDLINE_LINUX="${GRUB_CMDLINE_LINUX_XEN_REPLACE}"\nfi\nif [ "${GRUB_CMDLINE_LINUX_XEN_REPLACE_DEFAULT}" ]; then\n  GRUB_CMDLINE_LINUX_DEFAULT="${GRUB_CMDLINE_LINUX_XEN_REPLACE_DEFAULT}"\nfi\n' \
                >"$tmp/xen-replace.sh"
fi
xen_linux_words() {
        (cd "$1" && sysconfdir=./etc sh -c '. "$0"; . "$1"; echo $GRUB_CMDLINE_LINUX $GRUB_CMDLINE_LINUX_DEFAULT' \
                "$tmp/source.sh" "$tmp/xen-replace.sh")
}
check "Xen, before: the Linux line of the Xen entries" "console=hvc0 earlyprintk=xen transparent_hugepage=madvise" \
        "$(xen_linux_words "$x")"
"$HOSTTUNE" --root "$x" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never apply thp >"$tmp/apply3" 2>&1
check "Xen: apply exit" 0 $?
check "Xen, after: the Linux line of the Xen entries has the words (console= removed as asked)" "earlyprintk=xen transparent_hugepage=never" \
        "$(xen_linux_words "$x")"
check "Xen, after: the Linux entries too" "quiet transparent_hugepage=never" "$(mkconfig_words "$x")"
# without a hypervisor in /boot there are no Xen entries: the pair is left alone
rm "$x/boot/xen-4.17-amd64.gz"
"$HOSTTUNE" --root "$x" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never rollback >/dev/null 2>&1
"$HOSTTUNE" --root "$x" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never --json plan thp >"$tmp/plan3.json" 2>/dev/null
check "Xen, no hypervisor in /boot: the grub.d file not planned" '["/etc/default/grub"]' \
        "$(jq -c '[.files[].path]' "$tmp/plan3.json")"

# --- 4. _DEFAULT assigned inside a conditional --------------------------------
printf 'summary = "THP off";\ncmdline = { add = [ "transparent_hugepage=never" ]; };\n' >"$tmp/p/add.profile"
printf 'summary = "THP off, no quiet";\ncmdline = { add = [ "transparent_hugepage=never" ]; remove = [ "quiet" ]; };\n' \
        >"$tmp/p/quiet.profile"
printf 'summary = "no site=";\ncmdline = { remove = [ "site" ]; };\n' >"$tmp/p/site.profile"
mkdir -p "$tmp/c"; cnd=$(copy_host debian12-kvm "$tmp/c"); scratch "$cnd"
mkdir -p "$cnd/etc/default/grub.d"
printf 'if [ -n "${SITE_TOOL:-}" ]; then\n        GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT site=1"\nfi\n' \
        >"$cnd/etc/default/grub.d/50-site.cfg"
cp -a "$cnd" "$tmp/cnd.before"
hc() { "$HOSTTUNE" --root "$cnd" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never "$@"; }
hc apply site >"$tmp/apply4" 2>&1
check "conditional _DEFAULT: removing the conditional's own word refused (exit 1)" 1 $?
check_contains "conditional _DEFAULT: the error names the conditional's line" \
        "etc/default/grub.d/50-site.cfg:2: assigned inside a shell conditional or command list: hosttune does not run shell code, so it cannot edit GRUB_CMDLINE_LINUX_DEFAULT there" \
        "$tmp/apply4"
if d=$(diff -r -x hosttune -x hosttune.lock "$tmp/cnd.before" "$cnd" 2>&1); then ok "conditional _DEFAULT: the tree untouched"
else not_ok "conditional _DEFAULT: the tree changed: $(printf '%s' "$d" | head -c 300)"; fi
hc --json plan add >"$tmp/plan4.json" 2>/dev/null
check "conditional _DEFAULT: a new word in GRUB_CMDLINE_LINUX is planned (both outcomes have it)" "0 change" \
        "$(jq -r '"\(.errors | length) \(.changes[] | select(.key == "transparent_hugepage") | .outcome)"' "$tmp/plan4.json")"
hc --json plan quiet >"$tmp/plan4q.json" 2>/dev/null
check "conditional _DEFAULT: quiet removed where /etc/default/grub sets it, persisted" \
        '0 ["/etc/default/grub"] change' \
        "$(jq -r '"\(.errors | length) \([.files[].path] | tojson) \(.changes[] | select(.key == "quiet") | .outcome)"' "$tmp/plan4q.json")"
env -u HOSTTUNE_TEST_LIVE_FIXTURES "$HOSTTUNE" --root "$cnd" --profile-path "$tmp/p" --rules-path "$tmp/r" \
        --color=never apply quiet >/dev/null 2>&1
check "conditional _DEFAULT: after apply, grub-mkconfig's line either way" \
        "transparent_hugepage=never site=1|transparent_hugepage=never" \
        "$(SITE_TOOL=1 mkconfig_words "$cnd")|$(mkconfig_words "$cnd")"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="$(cat /etc/cmdline.site)"\n' >"$cnd/etc/default/grub.d/50-site.cfg"
hc plan add >"$tmp/plan5" 2>&1
check "_DEFAULT from a command substitution: an error (exit 1)" 1 $?
check_contains "_DEFAULT from a command substitution: the error names the line" \
        "etc/default/grub.d/50-site.cfg:1: command substitution" "$tmp/plan5"

# --- 5. Arch Linux: /etc/default/grub sources grub.d itself -------------------
mkdir -p "$tmp/a"; a=$(copy_host debian12-kvm "$tmp/a"); scratch "$a"
sed -i 's/^ID=.*/ID=arch/; /^ID_LIKE/d' "$a/usr/lib/os-release"
rm -f "$a/etc/os-release" "$a/etc/debian_version"
mkdir -p "$a/etc/default/grub.d" "$a/usr/bin"
printf '#! /bin/sh\nif test -f ${sysconfdir}/default/grub ; then\n  . ${sysconfdir}/default/grub\nfi\n' >"$a/usr/bin/grub-mkconfig"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="loglevel=3 console=ttyS0"\n' >"$a/etc/default/grub.d/50-console.cfg"
ha() { "$HOSTTUNE" --root "$a" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never "$@"; }
ha --json plan thp >"$tmp/plan6.json" 2>/dev/null
check "Arch, no loop in /etc/default/grub: grub.d not read" '["/etc/default/grub"]' "$(jq -c '[.files[].path]' "$tmp/plan6.json")"
printf '\nfor custom_grub_d in /etc/default/grub.d/*.cfg ; do\n  if [ -e "${custom_grub_d}" ]; then\n    source "${custom_grub_d}"\n  fi\ndone\n' \
        >>"$a/etc/default/grub"
ha --json plan thp >"$tmp/plan7.json" 2>/dev/null
check "Arch, the loop in /etc/default/grub: console= removed in the grub.d file" \
        '["/etc/default/grub","/etc/default/grub.d/50-console.cfg"]' "$(jq -c '[.files[].path] | sort' "$tmp/plan7.json")"

# --- 6. kdump-tools' grub.d file refers to the earlier _DEFAULT ----------------
mkdir -p "$tmp/k"; k=$(copy_host debian12-kvm "$tmp/k"); scratch "$k"
mkdir -p "$k/etc/default/grub.d"
sed -i 's/^GRUB_CMDLINE_LINUX_DEFAULT=.*/GRUB_CMDLINE_LINUX_DEFAULT="quiet splash transparent_hugepage=always"/' \
        "$k/etc/default/grub"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT crashkernel=2G-4G:320M,4G-32G:512M,32G-64G:1024M,64G-128G:2048M,128G-:4096M"\n' \
        >"$k/etc/default/grub.d/kdump-tools.cfg"
cp "$k/etc/default/grub.d/kdump-tools.cfg" "$tmp/kdump.before"
printf 'summary = "THP off, no splash";\ncmdline = { add = [ "transparent_hugepage=never" ]; remove = [ "splash" ]; };\n' \
        >"$tmp/p/splash.profile"
env -u HOSTTUNE_TEST_LIVE_FIXTURES "$HOSTTUNE" --root "$k" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never \
        apply splash >"$tmp/apply8" 2>&1
check "kdump-tools: apply exit" 0 $?
check "kdump-tools: what grub-mkconfig sees" \
        "quiet transparent_hugepage=never crashkernel=2G-4G:320M,4G-32G:512M,32G-64G:1024M,64G-128G:2048M,128G-:4096M" \
        "$(mkconfig_words "$k")"
if cmp -s "$tmp/kdump.before" "$k/etc/default/grub.d/kdump-tools.cfg"; then ok "kdump-tools: its grub.d file untouched"
else not_ok "kdump-tools: kdump-tools.cfg edited: $(cat "$k/etc/default/grub.d/kdump-tools.cfg")"; fi

# --- 7. an image's grub.d with a value only the shell gives -------------------
i=$(offline_image img debian12-kvm)
rm -rf "$i/boot/grub" "$i/etc/default/grub"
mkdir -p "$i/etc/default/grub.d"
printf 'GRUB_CMDLINE_LINUX_DEFAULT="$(cat /etc/site-cmdline)"\n' >"$i/etc/default/grub.d/zz-site.cfg"
env -u HOSTTUNE_TEST_LIVE_FIXTURES "$HOSTTUNE" --root "$i" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never \
        plan add >"$tmp/plan9" 2>&1
check "image grub.d, a value from shell code: an error (exit 1)" 1 $?
check_contains "image grub.d, a value from shell code: the error says why" \
        "GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub.d is not known without running the shell (line 1: command substitution)" \
        "$tmp/plan9"
finish
