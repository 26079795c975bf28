#!/bin/sh
# Bad input through the CLI: unparsable files on the host, keys that try
# to leave /proc/sys or /sys, values with newlines or quotes, a kernel that
# lacks a key. Each: a clear error naming file:line, exit 1 for plan and
# apply, and nothing written (the whole fixture copy compared with diff -r).
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && TMPDIR=/dev/shm && export TMPDIR
. "${top_srcdir:-.}/tests/integration/lib.sh"
HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES HOSTTUNE_NO_AUDIT LC_ALL
mkdir -p "$tmp/profiles"

ht() { # ROOT ARGS...
        r=$1
        shift
        "$HOSTTUNE" --root "$r" --profile-path "$tmp/profiles" --profile-path "$PROFILES" \
                --rules-path "$top_srcdir/rules" --color=never "$@"
}

# refused NAME HOST NEEDLE PROFILE [ARGS...]: plan and apply exit 1, the
# message holds NEEDLE, the host copy is byte-identical afterwards. The
# host copy is $root; call prepare() before to alter it.
prepare() { :; }
refused() {
        name=$1 host=$2 needle=$3
        shift 3
        root=$(copy_host "$host"); scratch "$root"
        prepare "$root"
        cp -a "$root" "$tmp/before"
        ht "$root" plan "$@" >"$tmp/out" 2>&1
        check "$name: plan exit" 1 "$?"
        check_contains "$name: message" "$needle" "$tmp/out"
        ht "$root" apply "$@" >"$tmp/out" 2>&1
        check "$name: apply exit" 1 "$?"
        check_contains "$name: apply says why" "$needle" "$tmp/out"
        # the run lock is hosttune's own (a lock file stays, as flock files do)
        rm -f "$root/run/hosttune.lock"
        [ -d "$tmp/before/run" ] || rmdir "$root/run" 2>/dev/null
        if diff -r "$tmp/before" "$root" >"$tmp/diff" 2>&1; then ok "$name: nothing written"; else
                not_ok "$name: written: $(head -c 300 "$tmp/diff")"; fi
        rm -rf "$root" "$tmp/before"
        prepare() { :; }
}
profile() { # NAME BODY: a test profile
        printf 'summary = "bad input";\n%s\n' "$2" >"$tmp/profiles/$1.profile"
}

# ---- unparsable files on the host -------------------------------------
prepare() { printf 'GRUB_CMDLINE_LINUX="\001\002\000\377junk\n' >"$1/etc/default/grub"; }
refused "binary junk in /etc/default/grub" debian12-kvm "/etc/default/grub:1:" oracle
prepare() { printf 'GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="quiet\n' >"$1/etc/default/grub"; }
refused "unterminated quote in /etc/default/grub" debian12-kvm "/etc/default/grub:2: unterminated" oracle
prepare() { head -c 1024 /dev/zero >"$1/boot/grub2/grubenv"; }
refused "zeroed grubenv (BLS entries use \$kernelopts)" ol8-bls "/boot/grub2/grubenv: holds NUL bytes" oracle
prepare() { printf '# GRUB Environment Block\nsaved_entry=x\n' >"$1/boot/grub2/grubenv"; }
refused "grubenv without kernelopts (BLS entries use \$kernelopts)" ol8-bls "/boot/grub2/grubenv: no kernelopts variable" oracle
prepare() { printf 'title broken\n\tkernel\n' >"$1/boot/grub/grub.conf"; }
refused "a grub.conf with a bare kernel line" rhel5-xen "grub.conf" oracle --set sga_max_size=2G --set allow_kernel_switch=true

# Other people's limits files are read leniently, as pam_limits reads
# them: garbage is reported with file:line, not an error.
root=$(copy_host debian12-kvm); scratch "$root"
printf 'oracle soft nofile 1024\n\001\002\377\376 garbage\n@dba hard\n' >"$root/etc/security/limits.d/50-junk.conf"
ht "$root" plan oracle >"$tmp/out" 2>&1
check "garbage in someone else's limits.d file: plan still works" 2 "$?"
check_contains "... and names the line pam_limits skips" "$root/etc/security/limits.d/50-junk.conf:2:" "$tmp/out"
check_contains "... and the next one" "$root/etc/security/limits.d/50-junk.conf:3:" "$tmp/out"
rm -rf "$root"
# hosttune's own file, broken by hand, is simply rewritten
root=$(copy_host debian12-kvm); scratch "$root"
printf '\377\376 junk\n' >"$root/etc/security/limits.d/90-hosttune.conf"
ht "$root" apply oracle >"$tmp/out" 2>&1
check "hosttune's own limits file broken by hand: rewritten" 0 "$?"
check_contains "... with the profile's entries" "oracle     hard    memlock" "$root/etc/security/limits.d/90-hosttune.conf"
rm -rf "$root"

# ---- keys and values in profiles ----------------------------------------
profile dotdot 'sysctl = ( { key = "vm/../../etc"; value = 1; } );'
refused "sysctl key vm/../../etc" debian12-kvm "$tmp/profiles/dotdot.profile:2: sysctl: 'vm/../../etc' is not a sysctl name" dotdot
profile dotdot2 'sysctl = ( { key = "vm....swappiness"; value = 1; } );'
refused "sysctl key with empty components" debian12-kvm "$tmp/profiles/dotdot2.profile:2:" dotdot2
profile abskey 'sysctl = ( { key = "/etc/passwd"; value = 1; } );'
refused "sysctl key with a leading /" debian12-kvm "$tmp/profiles/abskey.profile:2:" abskey
profile slashkey 'sysctl = ( { key = "vm/swappiness/x"; value = 1; } );'
refused "sysctl key with / past a file" debian12-kvm "$tmp/profiles/slashkey.profile:2: this kernel has no vm/swappiness/x" slashkey
profile nlvalue 'sysctl = ( { key = "vm.swappiness"; value = "1\nkernel.core_pattern = |/bin/sh"; } );'
refused "sysctl value with a newline" debian12-kvm "$tmp/profiles/nlvalue.profile:2:" nlvalue
profile quoted 'sysctl = ( { key = "kernel.core_pattern"; value = "\"core\""; } );'
prepare() { echo core >"$1/proc/sys/kernel/core_pattern"; }
refused "sysctl value with quotes" debian12-kvm "$tmp/profiles/quoted.profile:2: the value for kernel.core_pattern holds quotes" quoted
profile sysfsout 'sysfs = ( { path = "/etc/shadow"; value = 1; } );'
refused "sysfs path outside /sys" debian12-kvm "$tmp/profiles/sysfsout.profile:2:" sysfsout
profile sysfsdot 'sysfs = ( { path = "/sys/../etc/shadow"; value = 1; } );'
refused "sysfs path climbing out of /sys" debian12-kvm "$tmp/profiles/sysfsdot.profile:2:" sysfsdot
profile sysfsnl 'sysfs = ( { path = "/sys/kernel/mm/transparent_hugepage/enabled"; value = "never\nw /etc/shadow - - - - x"; } );'
refused "sysfs value with a newline" debian12-kvm "$tmp/profiles/sysfsnl.profile:2:" sysfsnl
profile sysfsesc 'sysfs = ( { path = "/sys/kernel/mm/transparent_hugepage/enabled"; value = "never\\\\nw"; } );'
refused "sysfs value with a backslash (tmpfiles would unescape it)" debian12-kvm "$tmp/profiles/sysfsesc.profile:2:" sysfsesc
profile sysfsq 'sysfs = ( { path = "/sys/kernel/mm/transparent_hugepage/enabled"; value = "\"never\""; } );'
refused "sysfs value with quotes" debian12-kvm "$tmp/profiles/sysfsq.profile:2:" sysfsq
profile cmdq 'cmdline = { add = [ "foo=\"a b\"" ]; };'
refused "cmdline word with quotes" debian12-kvm "$tmp/profiles/cmdq.profile:2:" cmdq
profile cmdnl 'cmdline = { add = [ "foo=a\nb" ]; };'
refused "cmdline word with a newline" debian12-kvm "$tmp/profiles/cmdnl.profile:2:" cmdnl
profile limq 'limits = ( { domain = "oracle"; type = "soft"; item = "nofile"; value = "\"1024\""; } );'
refused "limits value with quotes" debian12-kvm "$tmp/profiles/limq.profile:2:" limq
profile limnl 'limits = ( { domain = "oracle"; type = "soft"; item = "nofile"; value = "1024\n* hard nofile 1"; } );'
refused "limits value with a newline" debian12-kvm "$tmp/profiles/limnl.profile:2:" limnl
profile svcnl 'services = { mysqld = { LimitNOFILE = "1\nExecStartPre=/bin/sh"; }; };'
refused "unit directive value with a newline" debian12-kvm "$tmp/profiles/svcnl.profile:2:" svcnl
profile cpukey 'cpu = { governer = "performance"; };'
refused "cpu: unknown key, with a suggestion" debian12-kvm "$tmp/profiles/cpukey.profile:2: cpu: unknown key 'governer' (did you mean 'governor'?)" cpukey
profile cpulist 'cpu = ( { governor = "performance"; } );'
refused "cpu: a list, not a group" debian12-kvm "$tmp/profiles/cpulist.profile:2: cpu: expected a group" cpulist
profile cpunl 'cpu = { governor = "performance\nw /etc/shadow - - - - x"; };'
refused "cpu value with a newline" debian12-kvm "$tmp/profiles/cpunl.profile:2: cpu governor" cpunl
profile cpuesc 'cpu = { governor = "perf\\\\nw"; };'
refused "cpu value with a backslash (tmpfiles would unescape it)" debian12-kvm "$tmp/profiles/cpuesc.profile:2: cpu governor" cpuesc
profile cpubound 'cpu = { governor = { value = "performance"; bound = "at-least"; }; };'
refused "cpu: no bound" debian12-kvm "$tmp/profiles/cpubound.profile:2: cpu governor: bound: only sysctl, block and limits settings take a bound" cpubound
profile cpuepb 'cpu = { energy_perf_bias = 16; };'
refused "cpu: energy_perf_bias out of 0..15" debian12-kvm "$tmp/profiles/cpuepb.profile:2: cpu energy_perf_bias: '16' must be 0..15" cpuepb
profile cpupct 'cpu = { min_perf_pct = 101; };'
refused "cpu: min_perf_pct over 100" debian12-kvm "$tmp/profiles/cpupct.profile:2: cpu min_perf_pct: '101' must be a percentage" cpupct
profile cpuvm 'cpu = { governor = "performance"; };'
refused "cpu: a required governor on a VM without cpufreq" debian12-kvm "$tmp/profiles/cpuvm.profile:2: cpu governor = performance: no cpufreq on this host" cpuvm

# ---- block: device selectors, attributes and values a udev rule carries --
profile blkclass 'block = { spinning = { queue = { scheduler = "none"; }; }; };'
refused "block: unknown device class" baremetal-numa "$tmp/profiles/blkclass.profile:2: block: unknown key 'spinning'" blkclass
profile blkattr 'block = { rotational = { queue = { nr_request = 64; }; }; };'
refused "block: unknown queue attribute" baremetal-numa "$tmp/profiles/blkattr.profile:2: block rotational queue: unknown key 'nr_request' (did you mean 'nr_requests'?)" blkattr
profile blkkq 'block = { match = ( { kernel = "sd\"a"; queue = { scheduler = "none"; }; } ); };'
refused "block: kernel pattern with a quote" baremetal-numa "$tmp/profiles/blkkq.profile:2: block match 1: kernel: 'sd\"a' is not a kernel name pattern" blkkq
profile blkuas 'block = { match = ( { udev = "ATTR{queue/scheduler}=\"none\""; queue = { scheduler = "none"; }; } ); };'
refused "block: udev match that assigns" baremetal-numa "$tmp/profiles/blkuas.profile:2: block match 1: udev:" blkuas
profile blkrun 'block = { match = ( { udev = "KERNEL==\"sda\", RUN+=\"/bin/sh -c reboot\""; queue = { scheduler = "none"; }; } ); };'
refused "block: udev match that runs a program" baremetal-numa "only KERNEL, ATTR{...} and ATTRS{...} with == or !=" blkrun
profile blkboth 'block = { match = ( { kernel = "sda"; udev = "KERNEL==\"sda\""; queue = { scheduler = "none"; }; } ); };'
refused "block: kernel and udev in one match" baremetal-numa "$tmp/profiles/blkboth.profile:2: block match 1: give exactly one of 'kernel'" blkboth
profile blkinj 'block = { rotational = { queue = { scheduler = "none\", RUN+=\"/bin/sh"; }; }; };'
refused "block: value that would end the udev value" baremetal-numa "$tmp/profiles/blkinj.profile:2: block rotational queue/scheduler: the value" blkinj
profile blknl 'block = { rotational = { queue = { scheduler = "none\nKERNEL==\"x\""; }; }; };'
refused "block: value with a newline" baremetal-numa "$tmp/profiles/blknl.profile:2:" blknl
profile blkrq 'block = { non-rotational = { queue = { rq_affinity = 3; }; }; };'
refused "block: rq_affinity out of range" baremetal-numa "$tmp/profiles/blkrq.profile:2: block non-rotational queue/rq_affinity: the value '3' must be 0, 1 or 2" blkrq
profile blkbound 'block = { rotational = { queue = { rq_affinity = { value = 1; bound = "at-least"; }; }; }; };'
refused "block: a bound on rq_affinity" baremetal-numa "$tmp/profiles/blkbound.profile:2: block rotational queue/rq_affinity: only queue/read_ahead_kb and queue/nr_requests take a bound" blkbound
profile blkcfq 'block = { rotational = { queue = { scheduler = "cfq"; }; }; };'
refused "block: a scheduler the disk does not offer (required)" baremetal-numa "$tmp/profiles/blkcfq.profile:2: sda does not offer the I/O scheduler cfq" blkcfq
# the systemd section: keys of systemd 252's [Login] and [Manager] only,
# values of the key's type
profile sdkey 'systemd = { logind = { RemoveIpc = "no"; }; };'
refused "systemd: unknown logind key" debian12-kvm "$tmp/profiles/sdkey.profile:2: systemd: 'RemoveIpc' is not a key of [Login] in logind.conf hosttune knows (did you mean 'RemoveIPC'?)" sdkey
profile sdlist 'systemd = { logind = { KillExcludeUsers = "root oracle"; }; };'
refused "systemd: a list-valued key, said to be one" debian12-kvm "$tmp/profiles/sdlist.profile:2: systemd: 'KillExcludeUsers' is a list in [Login] of logind.conf (every file's assignments add up, an empty one clears them), which hosttune does not set" sdlist
profile sdfile 'systemd = { journald = { Storage = "persistent"; }; };'
refused "systemd: a file that is neither logind.conf nor system.conf" debian12-kvm "$tmp/profiles/sdfile.profile:2: systemd: 'journald.Storage' is not a systemd setting: write logind.KEY" sdfile
profile sdbool 'systemd = { logind = { RemoveIPC = "maybe"; }; };'
refused "systemd: a boolean that is none" debian12-kvm "$tmp/profiles/sdbool.profile:2: invalid value 'maybe' for systemd logind.RemoveIPC: must be a boolean (yes or no)" sdbool
profile sdlimit 'systemd = { system = { DefaultLimitNOFILE = "4096:1024"; }; };'
refused "systemd: a limit whose soft part is above its hard one" debian12-kvm "$tmp/profiles/sdlimit.profile:2: invalid value '4096:1024' for systemd system.DefaultLimitNOFILE" sdlimit
profile sdnl 'systemd = { logind = { HandlePowerKey = "ignore\nRemoveIPC=yes"; }; };'
refused "systemd: a value with a newline" debian12-kvm "$tmp/profiles/sdnl.profile:2:" sdnl

# ---- a key the kernel lacks: an error, or with optional a skip ----------
profile hp 'sysctl = ( { key = "vm.nr_hugepages"; value = 512; } );'
refused "vm.nr_hugepages on the Xen kernel" rhel5-xen "$tmp/profiles/hp.profile:2: this kernel has no vm.nr_hugepages" hp
profile hpopt 'sysctl = ( { key = "vm.nr_hugepages"; value = 512; optional = true; }, { key = "vm.swappiness"; value = 10; } );'
root=$(copy_host rhel5-xen); scratch "$root"
# rules/30-xen.rules refuses HugePages on Xen whatever the profile says:
# turned off here the way an administrator does it, by an empty rules
# file of the same name earlier on the rules path
mkdir -p "$tmp/noxen"
cp "$top_srcdir"/rules/*.rules "$tmp/noxen/"
: >"$tmp/noxen/30-xen.rules"
"$HOSTTUNE" --root "$root" --profile-path "$tmp/profiles" --rules-path "$tmp/noxen" apply hpopt >"$tmp/out" 2>&1
check "optional vm.nr_hugepages on the Xen kernel: applied" 0 "$?"
check_contains "... skipped, listed once" "skipped (optional): this kernel has no vm.nr_hugepages (No such file or directory) ($tmp/profiles/hpopt.profile:2)" "$tmp/out"
check "... not as a warning" 0 "$(grep '^warning:' "$tmp/out" | grep -c nr_hugepages)"
check "... and never written, at runtime or persisted" "" "$(grep -rl nr_hugepages "$root/etc" "$root/proc/sys/vm" 2>/dev/null)"
check "... while the rest is" "10" "$(cat "$root/proc/sys/vm/swappiness")"
rm -rf "$root"

finish
