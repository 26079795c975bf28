#!/bin/sh
# Editing real-world-shaped files through the CLI: variants of the
# debian12-kvm fixture with /etc/default/grub (+ grub.d), limits.conf and
# sysctl.d written the way people and cloud images write them. Each case
# plans (warnings name file:line), applies on the copy, and compares the
# edited file byte for byte with the expected one: hosttune touches only
# the words it owns. Afterwards the GRUB file is given to the shell, as
# grub-mkconfig does, and must leave the expected words.
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && TMPDIR=/dev/shm && export TMPDIR
. "${top_srcdir:-.}/tests/integration/lib.sh"
HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES HOSTTUNE_NO_AUDIT LC_ALL

# Test profiles: no rules, so only the words and keys below are planned.
mkdir -p "$tmp/profiles"
cat >"$tmp/profiles/grubwords.profile" <<'EOF'
summary = "set one parameter, replace another's value, remove a flag";
cmdline = { add = [ "transparent_hugepage=never", "numa_balancing=disable" ]; remove = [ "quiet" ]; };
EOF
cat >"$tmp/profiles/sysctls.profile" <<'EOF'
summary = "dots and slashes, blanks in values";
sysctl = (
        { key = "vm.swappiness"; value = 1; },
        { key = "kernel/sem"; value = "250  32000 100   128"; },
        { key = "net.ipv4.conf.all.rp_filter"; value = 2; },
        { key = "net/ipv4/conf/eth0.100/rp_filter"; value = 2; },
        { key = "vm.max_map_count"; value = 262144; }
);
EOF
cat >"$tmp/profiles/oralimits.profile" <<'EOF'
summary = "the oracle user's limits";
limits = (
        { domain = "oracle"; type = "soft"; item = "memlock"; value = 134217728; },
        { domain = "oracle"; type = "hard"; item = "memlock"; value = 134217728; },
        { domain = "oracle"; type = "soft"; item = "nofile"; value = 1024; },
        { domain = "oracle"; type = "hard"; item = "nofile"; value = 65536; }
);
EOF

ht() { # ROOT ARGS...
        r=$1
        shift
        "$HOSTTUNE" --root "$r" --profile-path "$tmp/profiles" --rules-path "$top_srcdir/rules" --color=never "$@"
}

# same DESCRIPTION EXPECTED-FILE ACTUAL-FILE: byte for byte
same() {
        if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1: $(diff "$2" "$3" | head -c 600 | tr '\n' '|')"; fi
}

# The words GRUB_CMDLINE_LINUX and _DEFAULT end up with when grub-mkconfig
# sources /etc/default/grub and then grub.d/*.cfg: the test runs sh (execve
# with an argument vector) on the fixture copy's files.
grub_words() { # ROOT
        sh -c 'set -e; . "$1/etc/default/grub"
               for f in "$1"/etc/default/grub.d/*.cfg; do [ -e "$f" ] && . "$f"; done
               printf "%s|%s" "$GRUB_CMDLINE_LINUX" "$GRUB_CMDLINE_LINUX_DEFAULT"' sh "$1"
}

# grub_case NAME INPUT EXPECTED WORDS [CFG-INPUT CFG-EXPECTED]
# INPUT/EXPECTED are printf formats for /etc/default/grub, CFG-* the same
# for grub.d/50-cloudimg-settings.cfg; WORDS: "LINUX|LINUX_DEFAULT" after
# sourcing, with runs of blanks folded.
grub_case() {
        name=$1
        root=$(copy_host debian12-kvm); scratch "$root"
        printf "$2" >"$root/etc/default/grub"
        printf "$3" >"$tmp/expected"
        if [ $# -ge 6 ]; then
                mkdir -p "$root/etc/default/grub.d"
                printf "$5" >"$root/etc/default/grub.d/50-cloudimg-settings.cfg"
                printf "$6" >"$tmp/expected.cfg"
        fi
        ht "$root" plan grubwords >"$tmp/plan" 2>&1
        check "grub $name: plan exit" 2 "$?"
        ht "$root" apply grubwords >"$tmp/out" 2>&1
        check "grub $name: apply exit" 0 "$?"
        same "grub $name: /etc/default/grub edited in place, other bytes kept" "$tmp/expected" "$root/etc/default/grub"
        if [ $# -ge 6 ]; then
                same "grub $name: grub.d drop-in edited in place" "$tmp/expected.cfg" \
                        "$root/etc/default/grub.d/50-cloudimg-settings.cfg"
        fi
        sh -n "$root/etc/default/grub"
        check "grub $name: sh -n accepts the file" 0 "$?"
        check "grub $name: the shell sees the expected words" "$4" "$(grub_words "$root" | tr -s ' ')"
        ht "$root" plan grubwords >"$tmp/plan" 2>&1
        check "grub $name: plan after apply exit" 0 "$?"
        rm -rf "$root"
}

# single quotes: the quoting style is kept
grub_case single-quotes \
        "# comment\nGRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX='quiet splash transparent_hugepage=always'\nGRUB_TIMEOUT=5\n" \
        "# comment\nGRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX='splash transparent_hugepage=never numa_balancing=disable'\nGRUB_TIMEOUT=5\n" \
        "splash transparent_hugepage=never numa_balancing=disable|"
# a $GRUB_CMDLINE_LINUX reference: the words of the last assignment are
# edited, the reference stays
grub_case reference \
        'GRUB_CMDLINE_LINUX="console=ttyS0"\nGRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX transparent_hugepage=always"\n' \
        'GRUB_CMDLINE_LINUX="console=ttyS0"\nGRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX transparent_hugepage=never numa_balancing=disable"\n' \
        "console=ttyS0 transparent_hugepage=never numa_balancing=disable|"
# continued lines: the removed word's line goes, the rest stays
grub_case continued \
        'GRUB_CMDLINE_LINUX="console=tty0 \\\n    quiet \\\n    console=ttyS0,115200"\nGRUB_TIMEOUT=5\n' \
        'GRUB_CMDLINE_LINUX="console=tty0 \\\n    console=ttyS0,115200 transparent_hugepage=never numa_balancing=disable"\nGRUB_TIMEOUT=5\n' \
        "console=tty0 console=ttyS0,115200 transparent_hugepage=never numa_balancing=disable|"
# only a commented-out assignment: the comment stays, an assignment is added
grub_case commented-out \
        '#GRUB_CMDLINE_LINUX="transparent_hugepage=always quiet"\nGRUB_TIMEOUT=5\n' \
        '#GRUB_CMDLINE_LINUX="transparent_hugepage=always quiet"\nGRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="transparent_hugepage=never numa_balancing=disable"\n' \
        "transparent_hugepage=never numa_balancing=disable|"
# duplicate assignments: the last one counts and is the one edited, a
# trailing comment included
grub_case duplicates \
        'GRUB_CMDLINE_LINUX="a=1 quiet"\n#GRUB_CMDLINE_LINUX="transparent_hugepage=always"\nGRUB_CMDLINE_LINUX="b=2 quiet"   # the last one counts\n' \
        'GRUB_CMDLINE_LINUX="a=1 quiet"\n#GRUB_CMDLINE_LINUX="transparent_hugepage=always"\nGRUB_CMDLINE_LINUX="b=2 transparent_hugepage=never numa_balancing=disable"   # the last one counts\n' \
        "b=2 transparent_hugepage=never numa_balancing=disable|"
# export VAR=...
grub_case export \
        'export GRUB_CMDLINE_LINUX="x=1"\n' \
        'export GRUB_CMDLINE_LINUX="x=1 transparent_hugepage=never numa_balancing=disable"\n' \
        "x=1 transparent_hugepage=never numa_balancing=disable|"
# Ubuntu cloud image: grub.d/50-cloudimg-settings.cfg overrides
# GRUB_CMDLINE_LINUX_DEFAULT. The THP word already there is replaced there
# (the kernel takes the last of repeated words, and _DEFAULT comes last);
# "quiet" of /etc/default/grub's _DEFAULT is overridden anyway, so it is
# left alone; the new word goes to GRUB_CMDLINE_LINUX.
grub_case cloudimg \
        'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="quiet splash"\nGRUB_CMDLINE_LINUX=""\n' \
        'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT="quiet splash"\nGRUB_CMDLINE_LINUX="numa_balancing=disable"\n' \
        "numa_balancing=disable|console=tty1 console=ttyS0 nvme_core.io_timeout=4294967295 transparent_hugepage=never" \
        '# Cloud Image specific Grub settings for Generic Cloud Images\n# CLOUD_IMG: This file was created/modified by the Cloud Image build process\n\n# Set the recordfail timeout\nGRUB_RECORDFAIL_TIMEOUT=0\n\n# Do not wait on grub prompt\nGRUB_TIMEOUT=0\n\n# Set the default commandline\nGRUB_CMDLINE_LINUX_DEFAULT="console=tty1 console=ttyS0 nvme_core.io_timeout=4294967295 transparent_hugepage=madvise"\n\n# Set the grub console type\nGRUB_TERMINAL=console\n' \
        '# Cloud Image specific Grub settings for Generic Cloud Images\n# CLOUD_IMG: This file was created/modified by the Cloud Image build process\n\n# Set the recordfail timeout\nGRUB_RECORDFAIL_TIMEOUT=0\n\n# Do not wait on grub prompt\nGRUB_TIMEOUT=0\n\n# Set the default commandline\nGRUB_CMDLINE_LINUX_DEFAULT="console=tty1 console=ttyS0 nvme_core.io_timeout=4294967295 transparent_hugepage=never"\n\n# Set the grub console type\nGRUB_TERMINAL=console\n'
# a drop-in that reassigns GRUB_CMDLINE_LINUX: the drop-in is edited,
# /etc/default/grub (whose value is dead) stays as it was
grub_case dropin-linux \
        'GRUB_CMDLINE_LINUX="rhgb"\n' \
        'GRUB_CMDLINE_LINUX="rhgb"\n' \
        "console=ttyS0 transparent_hugepage=never numa_balancing=disable|" \
        'GRUB_CMDLINE_LINUX="console=ttyS0 quiet"\n' \
        'GRUB_CMDLINE_LINUX="console=ttyS0 transparent_hugepage=never numa_balancing=disable"\n'

# What hosttune cannot edit without running shell code is an error naming
# file:line, and nothing is written.
grub_refused() { # NAME INPUT NEEDLE
        root=$(copy_host debian12-kvm); scratch "$root"
        printf "$2" >"$root/etc/default/grub"
        cp -a "$root" "$tmp/before"
        ht "$root" plan grubwords >"$tmp/plan" 2>&1
        check "grub $1: plan exit" 1 "$?"
        check_contains "grub $1: error names file:line" "$3" "$tmp/plan"
        ht "$root" apply grubwords >"$tmp/out" 2>&1
        check "grub $1: apply exit" 1 "$?"
        rm -f "$root/run/hosttune.lock"
        if diff -r "$tmp/before" "$root" >/dev/null; then ok "grub $1: nothing written"; else not_ok "grub $1: files changed"; fi
        if grep -q "pending reboot" "$tmp/plan"; then not_ok "grub $1: words reported as pending"; else
                ok "grub $1: no word reported as persisted"; fi
        rm -rf "$root" "$tmp/before"
}
grub_refused word-from-reference \
        'GRUB_CMDLINE_LINUX="console=ttyS0 quiet"\nGRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX transparent_hugepage=always"\n' \
        "/etc/default/grub:3: kernel parameter quiet comes from a referenced variable"
grub_refused command-substitution 'GRUB_CMDLINE_LINUX="$(cat /etc/cmdline)"\n' \
        "/etc/default/grub:1: command substitution"
grub_refused conditional 'if [ -e /etc/foo ]; then\n  GRUB_CMDLINE_LINUX="quiet"\nfi\n' "/etc/default/grub:2"

# ---- sysctl.d ----------------------------------------------------------
root=$(copy_host debian12-kvm); scratch "$root"
# the kernel prints kernel.sem with tabs; an interface with a dot
printf '250\t32000\t100\t128\n' >"$root/proc/sys/kernel/sem"
mkdir -p "$root/proc/sys/net/ipv4/conf/eth0.100"
echo 1 >"$root/proc/sys/net/ipv4/conf/eth0.100/rp_filter"
printf '# local settings\n; an old-style comment\nvm.swappiness=60\n   kernel.sem   =   250 256000 100 1024\n-net.ipv4.conf.all.rp_filter = 1\n-vm.max_map_count\nnet.ipv4.conf.*.rp_filter = 0\nthis is not an assignment\n' \
        >"$root/etc/sysctl.d/10-local.conf"
printf '# site override\nvm.swappiness = 60\nnet.ipv4.conf.*.rp_filter = 1\n kernel.sem = 250\t32000\t100\t128\n' \
        >"$root/etc/sysctl.d/99-override.conf"
cp "$root/etc/sysctl.d/10-local.conf" "$root/etc/sysctl.d/99-override.conf" "$tmp/"
ht "$root" --json plan sysctls >"$tmp/plan.json" 2>&1
check "sysctl: plan exit" 2 "$?"
ht "$root" plan sysctls >"$tmp/plan" 2>&1
check_contains "sysctl: a later 99-*.conf overriding vm.swappiness is named with its line" \
        "$root/etc/sysctl.d/99-override.conf:2 sets vm.swappiness = 60 and is read after /etc/sysctl.d/90-hosttune.conf" "$tmp/plan"
check "sysctl: only that override is reported (earlier files, globs under explicit keys, equal values are not)" 1 \
        "$(grep -c 'is read after' "$tmp/plan")"
check_contains "sysctl: a line systemd-sysctl skips is named" \
        "$root/etc/sysctl.d/10-local.conf:8: line is not an assignment" "$tmp/plan"
if command -v jq >/dev/null 2>&1; then
        check "sysctl: kernel.sem equal despite the kernel's tabs and the profile's blanks: no runtime change" "" \
                "$(jq -r '.changes[] | select(.key == "kernel/sem") | .key' "$tmp/plan.json")"
        check "sysctl: a slash key with a dotted interface is read from its /proc/sys path" \
                "/proc/sys/net/ipv4/conf/eth0.100/rp_filter 1 2" \
                "$(jq -r '.changes[] | select(.key == "net/ipv4/conf/eth0.100/rp_filter") | "\(.path) \(.current) \(.desired)"' "$tmp/plan.json")"
fi
ht "$root" apply sysctls >"$tmp/out" 2>&1
check "sysctl: apply exit" 0 "$?"
printf '%s\n' "# Managed by hosttune (profile sysctls). Do not edit; changes are overwritten." \
        "vm.swappiness = 1" "kernel.sem = 250 32000 100 128" "net.ipv4.conf.all.rp_filter = 2" \
        "net.ipv4.conf.eth0/100.rp_filter = 2" "vm.max_map_count = 262144" >"$tmp/expected"
same "sysctl: the drop-in, keys in dotted form (eth0.100 as eth0/100)" "$tmp/expected" "$root/etc/sysctl.d/90-hosttune.conf"
same "sysctl: 10-local.conf untouched" "$tmp/10-local.conf" "$root/etc/sysctl.d/10-local.conf"
same "sysctl: 99-override.conf untouched" "$tmp/99-override.conf" "$root/etc/sysctl.d/99-override.conf"
check "sysctl: the runtime write went to the dotted interface's file" 2 \
        "$(cat "$root/proc/sys/net/ipv4/conf/eth0.100/rp_filter")"
check "sysctl: kernel.sem not rewritten (still as the kernel printed it)" "$(printf '250\t32000\t100\t128')" \
        "$(cat "$root/proc/sys/kernel/sem")"
rm -rf "$root"

# sysctl.conf in place where the boot reads nothing else (RHEL 5)
root=$(copy_host rhel5-xen); scratch "$root"
cp "$root/etc/sysctl.conf" "$tmp/sysctl.conf.orig"
echo 65536 >"$root/proc/sys/kernel/msgmax"
printf 'summary = "x";\nsysctl = { kernel = { shmmax = 4398046511104; msgmax = 65536; }; fs = { file-max = 6815744; }; };\n' \
        >"$tmp/profiles/rhel5.profile"
ht "$root" apply rhel5 >"$tmp/out" 2>&1
check "sysctl.conf (RHEL 5): apply exit" 0 "$?"
{ sed 's/^kernel.shmmax = 68719476736$/kernel.shmmax = 4398046511104/' "$tmp/sysctl.conf.orig"
  printf '# Set by hosttune (profile rhel5).\nfs.file-max = 6815744\n'; } >"$tmp/expected"
same "sysctl.conf (RHEL 5): one value replaced, one key appended, equal values and every other byte kept" \
        "$tmp/expected" "$root/etc/sysctl.conf"
check "sysctl.conf (RHEL 5): no sysctl.d drop-in nobody would read" no "$([ -e "$root/etc/sysctl.d" ] && echo yes || echo no)"
rm -rf "$root"

# ---- limits ------------------------------------------------------------
root=$(copy_host debian12-kvm); scratch "$root"
echo 'oracle:x:54321:54321:Oracle:/home/oracle:/bin/bash' >>"$root/etc/passwd"
printf 'oinstall:x:54321:\ndba:x:54322:oracle\n' >>"$root/etc/group"
printf '# /etc/security/limits.conf\n#<domain>      <type>  <item>         <value>\n*               soft    core            0\n*\thard\tnofile\t4096\n@dba\t\thard\tmemlock\t\t1024\n@dba\t-\tnproc\t2047\noracle\thard\tmemlock\t1024     # a stale entry\nroot            -       nofile          1048576\n# End of file\n' \
        >"$root/etc/security/limits.conf"
printf '# site policy\noracle - memlock unlimited\n@dba soft nofile 100\n' >"$root/etc/security/limits.d/95-site.conf"
printf 'oracle hard\n* soft nofile lots\n' >"$root/etc/security/limits.d/99-broken.conf"
cp "$root/etc/security/limits.conf" "$tmp/limits.conf"
ht "$root" plan oralimits >"$tmp/plan" 2>&1
check "limits: plan exit" 2 "$?"
# pam_limits: limits.conf is read first, so its oracle entry loses to
# hosttune's; @dba and * entries are weaker than a user entry wherever
# they are; a later file's "oracle -" entry sets soft and hard and wins.
check_contains "limits: a later '-' entry wins the soft limit (file:line)" \
        "$root/etc/security/limits.d/95-site.conf:2 takes precedence over hosttune's entry: oracle gets soft memlock unlimited" "$tmp/plan"
check_contains "limits: ... and the hard limit" \
        "$root/etc/security/limits.d/95-site.conf:2 takes precedence over hosttune's entry: oracle gets hard memlock unlimited" "$tmp/plan"
check "limits: nothing else takes precedence (limits.conf, @group, * entries lose)" 2 \
        "$(grep -c 'takes precedence' "$tmp/plan")"
check_contains "limits: a line pam_limits skips in someone else's file is named" \
        "$root/etc/security/limits.d/99-broken.conf:1: expected <domain> <type> <item> <value>; pam_limits skips that line too" "$tmp/plan"
check_contains "limits: a bad value is named" "$root/etc/security/limits.d/99-broken.conf:2: invalid value" "$tmp/plan"
ht "$root" apply oralimits >"$tmp/out" 2>&1
check "limits: apply exit" 0 "$?"
same "limits: limits.conf untouched, tabs and all" "$tmp/limits.conf" "$root/etc/security/limits.conf"
printf '%s\n' "# Managed by hosttune (profile oralimits). Do not edit; changes are overwritten." \
        "#<domain>  <type>  <item>   <value>" "oracle     soft    memlock  134217728" "oracle     hard    memlock  134217728" \
        "oracle     soft    nofile   1024" "oracle     hard    nofile   65536" >"$tmp/expected"
same "limits: hosttune's file" "$tmp/expected" "$root/etc/security/limits.d/90-hosttune.conf"
# the oracle user exempted from all limits
printf 'oracle -\n' >"$root/etc/security/limits.d/95-site.conf"
ht "$root" plan oralimits >"$tmp/plan" 2>&1
check_contains "limits: 'oracle -' (no limits) is reported" \
        "$root/etc/security/limits.d/95-site.conf:1 exempts oracle from all limits" "$tmp/plan"
rm -rf "$root"

finish
