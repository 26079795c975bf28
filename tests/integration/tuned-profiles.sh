#!/bin/sh
# tuned profiles (issue 19), from the fixtures of tests/tuned/ (modelled on
# tuned 2.20's /usr/lib/tuned and its plugin documentation): the include
# chain (a -> b -> c, several names, a function in it, -optional, a
# missing one, a cycle), the search path (--tuned-path, /etc/tuned over
# /usr/lib/tuned, an /etc/tuned profile that includes its own name),
# tuned:active with one and two names, variables and variable files,
# conditional sections, replace=, drop=, enabled=, sysctl's > and <, [vm],
# [sysfs] with a glob, [bootloader], [disk], [cpu], and every plugin that
# is not carried over: one warning per option, naming file:line. Errors
# name file:line and leave the host untouched. Where tuned itself can be
# asked (its Python modules are installed), tuned's own loader
# (tests/tuned/tuned-merge.py) gives the merged [sysctl] that hosttune
# must carry over.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
HOSTTUNE_INSECURE_PROFILES=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES LC_ALL
FIX=$(cd "$top_srcdir/tests/tuned" && pwd)
mkdir -p "$tmp/profiles"

# tt ROOT ARGS...: hosttune with the fixtures first on the tuned path;
# stdout in $tmp/out, stderr in $tmp/err, status in $rc
tt() {
        r=$1
        shift
        "$HOSTTUNE" --root "$r" --tuned-path "$FIX" --profile-path "$tmp/profiles" --rules-path "$RULES" \
                --color=never "$@" >"$tmp/out" 2>"$tmp/err"
        rc=$?
}
ttrun() { # EXPECTED DESCRIPTION ROOT ARGS...
        want=$1 desc=$2
        shift 2
        tt "$@"
        if [ "$rc" = "$want" ]; then ok "$desc (exit $rc)"; else
                not_ok "$desc: exit $rc, expected $want: $(head -c 800 "$tmp/err")"; fi
}
# show_json NAME [ROOT]: `show --json tuned:NAME` into $tmp/NAME.show.json
show_json() {
        ttrun 0 "show tuned:$1${2:+ on $(basename "$2")}" "${2:-$KVM}" --json show "tuned:$1"
        cp "$tmp/out" "$tmp/$1.show.json"
}
# plan_json NAME ROOT [EXIT]: `plan --json tuned:NAME` into $tmp/NAME.plan.json
plan_json() {
        ttrun "${3:-2}" "plan tuned:$1 on $(basename "$2")" "$2" --json plan "tuned:$1"
        cp "$tmp/out" "$tmp/$1.plan.json"
}
# sysctls FILE: the sysctl settings of a show --json, "key=value bound" sorted
sysctls() {
        jq -r '.settings[] | select(.backend == "sysctl") | "\(.key)=\(.value) \(.bound)"' "$1" | LC_ALL=C sort
}
# setting FILE BACKEND KEY: "value bound" of one setting ("" if absent)
setting() {
        jq -r --arg b "$2" --arg k "$3" '[.settings[] | select(.backend == $b and .key == $k) | "\(.value) \(.bound)"] | join(",")' "$1"
}
# source FILE BACKEND KEY: the setting's source
source_of() {
        jq -r --arg b "$2" --arg k "$3" '[.settings[] | select(.backend == $b and .key == $k) | .source] | join(",")' "$1"
}
# change FILE BACKEND KEY: "current -> desired outcome" of a planned change
change() {
        jq -r --arg b "$2" --arg k "$3" '[.changes[] | select(.backend == $b and .key == $k) | "\(.current) -> \(.desired) \(.outcome)"] | join(",")' "$1"
}
# line FILE REGEX: the number of the first line of the fixture file that matches
line() { grep -n -m1 -E "$2" "$FIX/$1" | cut -d: -f1; }
# warnings FILE: the --json warnings, one a line, into $tmp/warnings
warnings() { jq -r '.warnings[]' "$1" >"$tmp/warnings"; }
# untouched DESCRIPTION ROOT COPY: the host copy is byte for byte as before
untouched() { same_tree "$1" "$2" "$3"; }

KVM=$(copy_host debian12-kvm); scratch "$KVM"
METAL=$(copy_host baremetal-numa); scratch "$METAL"

# tuned's own view of a fixture's [sysctl] (all its enabled, unconditional
# sysctl units), "key=value" sorted; empty without tuned's modules
TUNED_PY=""
for py in /usr/bin/python3 python3; do
        if "$py" -c 'import tuned.profiles' 2>/dev/null; then TUNED_PY=$py; break; fi
done
tuned_sysctls() {
        "$TUNED_PY" "$FIX/tuned-merge.py" "$1" "$FIX" 2>/dev/null | awk '
                /^unit / { on = ($3 == "type=sysctl" && $4 == "enabled=True" && $0 !~ /_regex=/); next }
                on { sub(/^  /, ""); print }' | LC_ALL=C sort
}
# hosttune's sysctl settings of a show --json, in tuned's notation
# ("KEY=>V" at least, "KEY=<V" at most)
as_tuned() {
        jq -r '.settings[] | select(.backend == "sysctl") |
                "\(.key)=\(if .bound == "at-least" then ">" elif .bound == "at-most" then "<" else "" end)\(.value)"' "$1" |
                LC_ALL=C sort
}
same_as_tuned() { # NAME: hosttune's [sysctl] equals tuned's own merge
        if [ -z "$TUNED_PY" ]; then
                skip "tuned:$1: [sysctl] as tuned's own loader merges it" "tuned's Python modules are not installed"
                return
        fi
        check "tuned:$1: [sysctl] as tuned's own loader merges it" "$(tuned_sysctls "$1")" "$(as_tuned "$tmp/$1.show.json")"
}

# --- [sysctl] values and bounds, [vm] ---------------------------------------
show_json tt-base
check "tt-base: the exact values" "10 exact|40 exact" \
        "$(setting "$tmp/tt-base.show.json" sysctl vm.swappiness)|$(setting "$tmp/tt-base.show.json" sysctl vm.dirty_ratio)"
check "tt-base: > is at least" "1048576 at-least|131072 at-least" \
        "$(setting "$tmp/tt-base.show.json" sysctl fs.aio-max-nr)|$(setting "$tmp/tt-base.show.json" sysctl net.core.rmem_max)"
check "tt-base: < is at most" "32768 at-most|50 at-most" \
        "$(setting "$tmp/tt-base.show.json" sysctl vm.max_map_count)|$(setting "$tmp/tt-base.show.json" sysctl vm.dirty_background_ratio)"
check "tt-base: each sysctl's source is its tuned.conf line" \
        "$FIX/tt-base/tuned.conf:$(line tt-base/tuned.conf '^vm.dirty_ratio')" \
        "$(source_of "$tmp/tt-base.show.json" sysctl vm.dirty_ratio)"
same_as_tuned tt-base
check "tt-base: [vm] transparent_hugepages is THP enabled" "never exact" \
        "$(setting "$tmp/tt-base.show.json" sysfs /sys/kernel/mm/transparent_hugepage/enabled)"
check "tt-base: [vm] transparent_hugepage.defrag is THP defrag" "defer exact" \
        "$(setting "$tmp/tt-base.show.json" sysfs /sys/kernel/mm/transparent_hugepage/defrag)"
check "tt-base: the summary" "Fixture: sysctl values and bounds, THP" "$(jq -r .summary "$tmp/tt-base.show.json")"

cp -a "$KVM" "$tmp/kvm-before"
plan_json tt-base "$KVM"
P=$tmp/tt-base.plan.json
check "plan: vm.swappiness 60 -> 10" "60 -> 10 change" "$(change "$P" sysctl vm.swappiness)"
check "plan: >1048576 raises fs.aio-max-nr" "65536 -> 1048576 change" "$(change "$P" sysctl fs.aio-max-nr)"
check "plan: >131072 keeps the host's higher net.core.rmem_max" "212992 -> 212992 kept" "$(change "$P" sysctl net.core.rmem_max)"
check "plan: <32768 lowers vm.max_map_count" "65530 -> 32768 change" "$(change "$P" sysctl vm.max_map_count)"
check "plan: <50 keeps the host's lower vm.dirty_background_ratio" "10 -> 10 kept" "$(change "$P" sysctl vm.dirty_background_ratio)"
check "plan: THP enabled madvise -> never" "madvise -> never change" \
        "$(change "$P" sysfs /sys/kernel/mm/transparent_hugepage/enabled)"
check "plan: no warnings for what carries over" "0" "$(jq '.warnings | length' "$P")"
untouched "plan leaves the host as it was" "$tmp/kvm-before" "$KVM"
tt "$KVM" plan tuned:tt-base
check_contains "text plan: the profile line names tuned:tt-base" "tuned:tt-base" "$tmp/out"
check_contains "text plan: the change" "vm.swappiness: 60 → 10" "$tmp/out"

# --- the include chain -------------------------------------------------------
show_json tt-chain-a
S=$tmp/tt-chain-a.show.json
check "a -> b -> c: b's swappiness over c's, c's dirty_ratio, a's own" \
        "vm.dirty_background_ratio=5 exact
vm.dirty_ratio=30 exact
vm.max_map_count=262144 at-least
vm.swappiness=20 exact" "$(sysctls "$S")"
check "a -> b -> c: vm.swappiness comes from b's line" \
        "$FIX/tt-chain-b/tuned.conf:$(line tt-chain-b/tuned.conf '^vm.swappiness')" "$(source_of "$S" sysctl vm.swappiness)"
check "a -> b -> c: vm.dirty_ratio comes from c's line" \
        "$FIX/tt-chain-c/tuned.conf:$(line tt-chain-c/tuned.conf '^vm.dirty_ratio')" "$(source_of "$S" sysctl vm.dirty_ratio)"
check "a -> b -> c: the summary is a's" "Fixture: the head of the chain a -> b -> c" "$(jq -r .summary "$S")"
same_as_tuned tt-chain-a

show_json tt-multi
check "include=m1, m2: merged in order (m2's swappiness, m1's dirty_ratio)" \
        "vm.dirty_background_ratio=6 exact
vm.dirty_ratio=21 exact
vm.swappiness=12 exact" "$(sysctls "$tmp/tt-multi.show.json")"
same_as_tuned tt-multi

# ${f:virt_check:VIRTUAL:BARE} in include= (as openshift/tuned.conf)
show_json tt-virt "$KVM"
check "virt_check in include: a KVM guest takes the virtual branch (tt-chain-c)" \
        "vm.dirty_ratio=30 exact
vm.max_map_count=262144 at-least
vm.swappiness=30 exact" "$(sysctls "$tmp/tt-virt.show.json")"
show_json tt-virt "$METAL"
check "virt_check in include: bare metal takes the other (tt-m1)" \
        "vm.dirty_ratio=21 exact
vm.swappiness=11 exact" "$(sysctls "$tmp/tt-virt.show.json")"

# a [variables] name in include= (issue 19: "${...} in it") is expanded
# from the profile's own [variables]. tuned 2.20 itself expands include=
# before it reads any [variables] (profiles/loader.py _load_profile) and
# fails with "Cannot find profile '${parent}'"; hosttune takes what the
# author meant.
show_json tt-varinc
check "include=\${parent} of the profile's own [variables]: tt-m2" "vm.swappiness=12 exact" \
        "$(sysctls "$tmp/tt-varinc.show.json")"

show_json tt-optional
check "include=-missing,m2: the missing -optional one is skipped" "vm.swappiness=12 exact" \
        "$(sysctls "$tmp/tt-optional.show.json")"
same_as_tuned tt-optional

# a missing include: an error naming it and where, the host untouched
cp -a "$KVM" "$tmp/kvm-before-missing"
ttrun 1 "a missing include is an error" "$KVM" plan tuned:tt-missing
check_contains "... naming the missing profile" "tt-does-not-exist" "$tmp/err"
check_contains "... and the include's file:line" "tt-missing/tuned.conf:$(line tt-missing/tuned.conf '^include')" "$tmp/err"
ttrun 1 "apply of it fails the same way" "$KVM" apply tuned:tt-missing
check_contains "... naming the missing profile" "tt-does-not-exist" "$tmp/err"
untouched "a missing include leaves the host untouched" "$tmp/kvm-before-missing" "$KVM"

# a cycle: tuned skips a file already loaded (profiles/locator.py
# get_config's skip_files), so a -> b -> a loads b, then a over it
show_json tt-cycle-a
check "cycle a -> b -> a: a over b" "vm.dirty_ratio=42 exact
vm.swappiness=41 exact" "$(sysctls "$tmp/tt-cycle-a.show.json")"
same_as_tuned tt-cycle-a
show_json tt-cycle-b
check "cycle b -> a -> b: b over a" "vm.dirty_ratio=42 exact
vm.swappiness=42 exact" "$(sysctls "$tmp/tt-cycle-b.show.json")"
same_as_tuned tt-cycle-b

# --- the search path ---------------------------------------------------------
# ROOT/usr/lib/tuned/NAME, overridden by ROOT/etc/tuned/NAME, overridden
# by --tuned-path; an /etc/tuned profile that includes its own name
# extends the one of /usr/lib/tuned (the file already loaded is skipped,
# the search goes on: tuned's customisation pattern)
mkdir -p "$tmp/search"
H=$(copy_host debian12-kvm "$tmp/search"); scratch "$H"
mkdir -p "$H/usr/lib/tuned/tt-shadow" "$H/etc/tuned/tt-shadow" "$H/usr/lib/tuned/tt-libonly" \
        "$H/etc/tuned/profiles/tt-newlayout" "$H/usr/lib/tuned/profiles/tt-libnew" "$H/usr/lib/tuned/tt-base"
printf '[main]\nsummary=vendor\n[sysctl]\nvm.swappiness=50\nvm.dirty_ratio=50\n' >"$H/usr/lib/tuned/tt-shadow/tuned.conf"
printf '[main]\nsummary=site\ninclude=tt-shadow\n[sysctl]\nvm.swappiness=51\n' >"$H/etc/tuned/tt-shadow/tuned.conf"
printf '[main]\nsummary=lib only\n[sysctl]\nvm.swappiness=52\n' >"$H/usr/lib/tuned/tt-libonly/tuned.conf"
printf '[main]\nsummary=etc profiles\n[sysctl]\nvm.swappiness=53\n' >"$H/etc/tuned/profiles/tt-newlayout/tuned.conf"
printf '[main]\nsummary=lib profiles\n[sysctl]\nvm.swappiness=54\n' >"$H/usr/lib/tuned/profiles/tt-libnew/tuned.conf"
printf '[main]\nsummary=shadowed by --tuned-path\n[sysctl]\nvm.swappiness=55\n' >"$H/usr/lib/tuned/tt-base/tuned.conf"
chmod -R go-w "$H/usr/lib/tuned" "$H/etc/tuned"
show_json tt-shadow "$H"
check "/etc/tuned/NAME including NAME extends /usr/lib/tuned/NAME" "vm.dirty_ratio=50 exact
vm.swappiness=51 exact" "$(sysctls "$tmp/tt-shadow.show.json")"
check "... the site's line for swappiness" "$H/etc/tuned/tt-shadow/tuned.conf:5" "$(source_of "$tmp/tt-shadow.show.json" sysctl vm.swappiness)"
check "... the vendor's for dirty_ratio" "$H/usr/lib/tuned/tt-shadow/tuned.conf:5" "$(source_of "$tmp/tt-shadow.show.json" sysctl vm.dirty_ratio)"
show_json tt-libonly "$H"
check "ROOT/usr/lib/tuned/NAME" "vm.swappiness=52 exact" "$(sysctls "$tmp/tt-libonly.show.json")"
show_json tt-newlayout "$H"
check "ROOT/etc/tuned/profiles/NAME" "vm.swappiness=53 exact" "$(sysctls "$tmp/tt-newlayout.show.json")"
show_json tt-libnew "$H"
check "ROOT/usr/lib/tuned/profiles/NAME" "vm.swappiness=54 exact" "$(sysctls "$tmp/tt-libnew.show.json")"
show_json tt-base "$H"
check "--tuned-path is searched before the root's directories" "10 exact" "$(setting "$tmp/tt-base.show.json" sysctl vm.swappiness)"
"$HOSTTUNE" --root "$H" --profile-path "$tmp/profiles" --rules-path "$RULES" --json show tuned:tt-base >"$tmp/out" 2>"$tmp/err"
check "without --tuned-path the root's own tt-base" "55 exact" "$(setting "$tmp/out" sysctl vm.swappiness)"
ttrun 1 "a profile on no search path is an error" "$H" show tuned:tt-nowhere
check_contains "... naming it" "tt-nowhere" "$tmp/err"

# tuned:active: ROOT/etc/tuned/active_profile, one name or several merged in order
echo tt-chain-a >"$H/etc/tuned/active_profile"
show_json active "$H"
check "tuned:active with one name is that profile" "$(sysctls "$tmp/tt-chain-a.show.json")" "$(sysctls "$tmp/active.show.json")"
echo "tt-m1 tt-m2" >"$H/etc/tuned/active_profile"
show_json active "$H"
check "tuned:active with two names merges them in order" "vm.dirty_ratio=21 exact
vm.swappiness=12 exact" "$(sysctls "$tmp/active.show.json")"
rm "$H/etc/tuned/active_profile"
ttrun 1 "tuned:active without active_profile is an error" "$H" show tuned:active
check_contains "... naming the file" "/etc/tuned/active_profile" "$tmp/err"

# --- variables ---------------------------------------------------------------
show_json tt-vars
S=$tmp/tt-vars.show.json
check "variables: \${swap}, \${dirty} from a variables file, \${f:strip:...}" "vm.dirty_background_ratio=4 exact
vm.dirty_ratio=25 exact
vm.swappiness=15 exact" "$(sysctls "$S")"
same_as_tuned tt-vars
check "\${i:PROFILE_NAME} is the profile's name" "tt.profile tt-vars" \
        "$(jq -r '.settings[] | select(.backend == "cmdline" and .key == "tt.profile") | "\(.key) \(.value)"' "$S")"

# --- conditional sections ----------------------------------------------------
plan_json tt-cond "$KVM"
check "conditional: the unconditional [sysctl]" "60 -> 10 change" "$(change "$tmp/tt-cond.plan.json" sysctl vm.swappiness)"
check "conditional: cpuinfo_regex EPYC matches the AMD guest" "20 -> 33 change" "$(change "$tmp/tt-cond.plan.json" sysctl vm.dirty_ratio)"
check "conditional: uname_regex aarch64 does not match x86_64" "" "$(change "$tmp/tt-cond.plan.json" sysctl vm.max_map_count)"
check "conditional: cpuinfo_regex Xeon does not match" "" \
        "$(change "$tmp/tt-cond.plan.json" sysfs /sys/kernel/mm/transparent_hugepage/enabled)"
plan_json tt-cond "$METAL"
check "conditional on the Xeon host: no EPYC dirty_ratio" "" "$(change "$tmp/tt-cond.plan.json" sysctl vm.dirty_ratio)"
check "conditional on the Xeon host: its [vm.xeon]" "madvise -> never change" \
        "$(change "$tmp/tt-cond.plan.json" sysfs /sys/kernel/mm/transparent_hugepage/enabled)"

# --- replace=, drop=, enabled= -----------------------------------------------
show_json tt-replace
check "replace=1: only the child's [sysctl]" "vm.dirty_background_ratio=8 exact" "$(sysctls "$tmp/tt-replace.show.json")"
same_as_tuned tt-replace
show_json tt-drop
check "drop=vm.dirty_ratio: the parent's other options stay" "vm.dirty_background_ratio=7 exact
vm.max_map_count=262144 at-least
vm.swappiness=30 exact" "$(sysctls "$tmp/tt-drop.show.json")"
same_as_tuned tt-drop
show_json tt-disabled
check "enabled=false: no sysctl at all" "" "$(sysctls "$tmp/tt-disabled.show.json")"
check "enabled=false: the other sections stay" "never exact" \
        "$(setting "$tmp/tt-disabled.show.json" sysfs /sys/kernel/mm/transparent_hugepage/enabled)"
same_as_tuned tt-disabled

# --- [sysfs] with a glob -----------------------------------------------------
plan_json tt-sysfs "$METAL"
check "[sysfs] glob: sd* reaches sda only" "256 -> 512 change" "$(change "$tmp/tt-sysfs.plan.json" sysfs /sys/block/sda/queue/nr_requests)"
check "[sysfs] glob: nvme0n1 is not sd*" "" "$(change "$tmp/tt-sysfs.plan.json" sysfs /sys/block/nvme0n1/queue/nr_requests)"
check "[sysfs] a plain path" "1 -> 0 change" \
        "$(change "$tmp/tt-sysfs.plan.json" sysfs /sys/kernel/mm/transparent_hugepage/use_zero_page)"

# --- [bootloader] ------------------------------------------------------------
show_json tt-boot
S=$tmp/tt-boot.show.json
words=$(jq -r '[.settings[] | select(.backend == "cmdline" and .remove != true) | .key + (if (.value // "") != "" then "=" + .value else "" end)] | sort | join(" ")' "$S")
check "cmdline: the parent's +words, less the child's -nosmt, plain and + keys" "mitigations=off nohz=on rhgb skew_tick=1" "$words"
check "cmdline: -nosmt drops tuned's own word, it removes nothing from the host" "" \
        "$(jq -r '[.settings[] | select(.backend == "cmdline" and .remove == true) | .key] | join(" ")' "$S")"
warnings "$S"
check_contains "initrd_add_img: not carried over, with file:line" \
        "tt-boot/tuned.conf:$(line tt-boot/tuned.conf '^initrd_add_img'): [bootloader] initrd_add_img: not carried over:" "$tmp/warnings"
check_contains "skip_grub_config: not carried over, with file:line" \
        "tt-boot/tuned.conf:$(line tt-boot/tuned.conf '^skip_grub_config'): [bootloader] skip_grub_config: not carried over:" "$tmp/warnings"
plan_json tt-boot "$KVM"
jq -r '.files[] | select(.path == "/etc/default/grub") | .after' "$tmp/tt-boot.plan.json" >"$tmp/grub"
check_contains "plan: GRUB's defaults get the words" "rhgb" "$tmp/grub"
if grep -q nosmt "$tmp/grub"; then not_ok "plan: nosmt is not added"; else ok "plan: nosmt is not added"; fi
check_contains "plan: the host's own quiet stays" "quiet" "$tmp/grub"

# --- [disk] ------------------------------------------------------------------
plan_json tt-disk "$METAL"
P=$tmp/tt-disk.plan.json
check "[disk] elevator on sda (devices=!nvme*, !dm-*)" "mq-deadline -> bfq change" "$(change "$P" block "sda queue/scheduler")"
check "[disk] readahead=>4096 raises sda" "128 -> 4096 change" "$(change "$P" block "sda queue/read_ahead_kb")"
check "[disk] !nvme*: no bfq for nvme0n1" "" "$(change "$P" block "nvme0n1 queue/scheduler")"
check "[disk_nvme] readahead=8192 s is 4096 KiB on nvme0n1" "128 -> 4096 change" "$(change "$P" block "nvme0n1 queue/read_ahead_kb")"
check "[disk] !dm-*: dm-0 untouched" "" "$(jq -r '[.changes[] | select(.backend == "block" and (.key | startswith("dm-0 ")))] | length | select(. > 0)' "$P")"
check "[disk] loop0 and sr0 never" "" "$(jq -r '[.changes[] | select(.backend == "block" and (.key | test("^(loop|sr)")))] | length | select(. > 0)' "$P")"
warnings "$P"
for opt in apm spindown; do
        check_contains "[disk] $opt: not carried over, with file:line" \
                "tt-disk/tuned.conf:$(line tt-disk/tuned.conf "^$opt="): [disk] $opt: not carried over:" "$tmp/warnings"
done
check_contains "[scsi_host] alpm: not carried over, with file:line" \
        "tt-disk/tuned.conf:$(line tt-disk/tuned.conf '^alpm='): [scsi_host] alpm: not carried over:" "$tmp/warnings"
# tuned's disk plugin takes a disk below no device (plugin_disk.py
# _device_is_supported: parent None): dm-0 is an LVM volume's
plan_json tt-disk-all "$METAL"
P=$tmp/tt-disk-all.plan.json
check "[disk] with no devices=: dm-0's read-ahead raised, as tuned does" "128 -> 4096 change" \
        "$(change "$P" block "dm-0 queue/read_ahead_kb")"
check "[disk] with no devices=: sda too" "128 -> 4096 change" "$(change "$P" block "sda queue/read_ahead_kb")"
check "[disk] with no devices=: loop0 and sr0 never" "" \
        "$(jq -r '[.changes[] | select(.backend == "block" and (.key | test("^(loop|sr)")))] | length | select(. > 0)' "$P")"
tt "$METAL" plan tuned:tt-disk
check_contains "text plan: the warning line" "warning: tuned $FIX/tt-disk/tuned.conf:$(line tt-disk/tuned.conf '^apm='): [disk] apm: not carried over:" "$tmp/out"

# --- [cpu] -------------------------------------------------------------------
tt "$METAL" import tuned tt-epb-list
check_contains "EPB list: tuned's way named" \
        "# tuned's list powersave|power: tuned writes each in turn until one is taken; the first is planned" "$tmp/out"
if grep -q "offers none" "$tmp/out"; then not_ok "EPB list: no offers claimed missing"; else ok "EPB list: no offers claimed missing"; fi
plan_json tt-cpu "$METAL"
P=$tmp/tt-cpu.plan.json
check "[cpu] governor=ondemand|performance: the first the policies offer" "8 powersave -> performance change" \
        "$(jq -r '[.changes[] | select(.backend == "cpu" and .key == "governor")] | "\(length) \(map("\(.current) -> \(.desired) \(.outcome)") | unique | join(","))"' "$P")"
# the kernel reads EPB back as a number: performance is 0 (Documentation/admin-guide/pm/intel_epb.rst)
check "[cpu] energy_perf_bias=performance: EPB 0 on every CPU" "8 6 -> 0 change" \
        "$(jq -r '[.changes[] | select(.backend == "cpu" and .key == "energy_perf_bias")] | "\(length) \(map("\(.current) -> \(.desired) \(.outcome)") | unique | join(","))"' "$P")"
check "[cpu] min_perf_pct=100" "20 -> 100 change" "$(change "$P" cpu min_perf_pct)"
warnings "$P"
check_contains "[cpu] force_latency: not carried over, with file:line" \
        "tt-cpu/tuned.conf:$(line tt-cpu/tuned.conf '^force_latency'): [cpu] force_latency: not carried over:" "$tmp/warnings"
check_contains "... saying why (a process must hold /dev/cpu_dma_latency open)" "cpu_dma_latency" "$tmp/warnings"
plan_json tt-epp "$METAL"
check "[cpu] energy_performance_preference on every policy" "8 balance_performance -> balance_power change" \
        "$(jq -r '[.changes[] | select(.backend == "cpu" and .key == "energy_performance_preference")] | "\(length) \(map("\(.current) -> \(.desired) \(.outcome)") | unique | join(","))"' "$tmp/tt-epp.plan.json")"
plan_json tt-cpu "$KVM" 0
check "[cpu] on a VM without cpufreq: governor, EPB and min_perf_pct skipped, each naming its line" \
        "cpu energy_perf_bias $FIX/tt-cpu/tuned.conf:$(line tt-cpu/tuned.conf '^energy_perf_bias')
cpu governor $FIX/tt-cpu/tuned.conf:$(line tt-cpu/tuned.conf '^governor')
cpu min_perf_pct $FIX/tt-cpu/tuned.conf:$(line tt-cpu/tuned.conf '^min_perf_pct')" \
        "$(jq -r '.skipped[] | "\(.setting) \(.source)"' "$tmp/tt-cpu.plan.json" | LC_ALL=C sort)"

# --- every plugin that is not carried over ------------------------------------
plan_json tt-unsupported "$KVM"
P=$tmp/tt-unsupported.plan.json
check "the rest still carries over" "60 -> 10 change" "$(change "$P" sysctl vm.swappiness)"
warnings "$P"
for so in selinux:avc_cache_threshold modules:cpufreq_conservative net:nf_conntrack_hashsize \
        scheduler:sched_min_granularity_ns irqbalance:banned_cpus script:script service:service.tuned-fixture \
        systemd:cpu_affinity audio:timeout video:radeon_powersave usb:autosuspend scsi_host:alpm \
        eeepc_she:she_powersave mounts:disable_barriers uncore:max_freq_khz frobnicator:knob; do
        sec=${so%%:*} opt=${so#*:}
        l=$(awk -v s="[$sec]" -v o="$opt" '$0 == s { in_s = 1; next } /^\[/ { in_s = 0 } in_s && index($0, o "=") == 1 { print NR; exit }' "$FIX/tt-unsupported/tuned.conf")
        check_contains "[$sec] $opt: one warning naming file:line" \
                "$FIX/tt-unsupported/tuned.conf:$l: [$sec] $opt: not carried over:" "$tmp/warnings"
done
check_contains "[rtentsk], a section with no options, is not silently dropped" "[rtentsk]" "$tmp/warnings"
check "one warning per option (16) and [rtentsk]'s" "17" "$(grep -c 'not carried over' "$tmp/warnings")"
show_json tt-unsupported
warnings "$tmp/tt-unsupported.show.json"
check "show gives the same warnings" "17" "$(grep -c 'not carried over' "$tmp/warnings")"
tt "$KVM" show tuned:tt-unsupported
sed -n '/^warnings:$/,/^$/p' "$tmp/out" >"$tmp/show-warnings"
check_contains "show's text: the warnings block" "  tuned $FIX/tt-unsupported/tuned.conf:$(line tt-unsupported/tuned.conf '^avc_cache'): [selinux] avc_cache_threshold: not carried over:" "$tmp/show-warnings"
check "show's text: all 17 in it" "17" "$(grep -c 'not carried over' "$tmp/show-warnings")"

# --- bad input -----------------------------------------------------------------
cp -a "$KVM" "$tmp/kvm-before-bad"
ttrun 1 "a line neither option nor section: an error" "$KVM" apply tuned:tt-bad
check_contains "... naming file:line" "tt-bad/tuned.conf:$(line tt-bad/tuned.conf '^this line')" "$tmp/err"
untouched "the bad profile leaves the host untouched" "$tmp/kvm-before-bad" "$KVM"
# tuned refuses a name with a '/' (profiles/loader.py safe_name,
# locator.py check_profile_name_format)
ttrun 1 "a profile name with a slash is refused, as tuned refuses it" "$KVM" show "tuned:../tt-base"
check_contains "... naming it" "../tt-base" "$tmp/err"

# --- apply, verify, rollback on a fixture copy -----------------------------------
A=$(prepare_host debian12-kvm); scratch "$A"
cp -a "$A" "$tmp/apply-before"
ttrun 0 "apply tuned:tt-base" "$A" apply tuned:tt-base
check "applied: vm.swappiness" "10" "$(cat "$A/proc/sys/vm/swappiness")"
check "applied: fs.aio-max-nr raised" "1048576" "$(cat "$A/proc/sys/fs/aio-max-nr")"
check "applied: net.core.rmem_max kept" "212992" "$(cat "$A/proc/sys/net/core/rmem_max")"
check "applied: vm.max_map_count lowered" "32768" "$(cat "$A/proc/sys/vm/max_map_count")"
check_contains "persisted in the sysctl drop-in" "vm.swappiness = 10" "$A/etc/sysctl.d/90-hosttune.conf"
ttrun 0 "plan after apply is empty" "$A" plan tuned:tt-base
ttrun 0 "verify" "$A" verify
ttrun 0 "rollback" "$A" rollback
untouched "rollback restores the copy" "$tmp/apply-before" "$A"

finish
