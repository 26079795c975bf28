#!/bin/sh
# Hosts without a bootloader of their own: containers found without their
# marker files (a Kubernetes pod under containerd, systemd-nspawn with
# container= only in PID 1's environment) and a direct-kernel microVM
# (Firecracker). `facts` says how each was seen; `plan` plans what the
# host can hold and skips the kernel command line with a warning naming
# who sets it, unless the profile marks the word required; a host
# without a bootloader that is neither stays an error.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1

facts() { "$HOSTTUNE" --root "$1" --json facts >"$tmp/facts.json" 2>"$tmp/facts.err"; }
fact() { jq_get "$tmp/facts.json" "$1"; }

# ---- facts ------------------------------------------------------------------
facts "$HOSTS/k8s-pod"
check "k8s-pod: no marker file in the fixture" "no" \
        "$([ -e "$HOSTS/k8s-pod/.dockerenv" ] || [ -e "$HOSTS/k8s-pod/run/.containerenv" ] && echo yes || echo no)"
check "k8s-pod: a container, named as a Kubernetes pod" kubernetes "$(fact container)"
check_contains "k8s-pod: the cgroup namespace is the deciding sign" \
        "PID 1 is in cgroup / of a cgroup namespace" "$tmp/facts.json"
check "k8s-pod: deciding sign listed first" "PID 1 is in cgroup / of a cgroup namespace (/proc/1/cgroup; /sys/fs/cgroup is not the host's root cgroup)" \
        "$(fact container_detected_by.0)"
check_contains "k8s-pod: read-only /proc/sys listed" "/proc/sys is mounted read-only" "$tmp/facts.json"
check_contains "k8s-pod: overlay root listed" "/ is an overlay mount" "$tmp/facts.json"
check "k8s-pod: root file system from mountinfo" overlay "$(fact mounts.root_fstype)"
check "k8s-pod: not a direct-kernel VM" false "$(fact bootloader.direct_kernel)"

facts "$HOSTS/nspawn"
check "nspawn: container= from /proc/1/environ" systemd-nspawn "$(fact container)"
check "nspawn: the environment is the deciding sign" \
        "container=systemd-nspawn in the environment of PID 1 (/proc/1/environ)" "$(fact container_detected_by.0)"
check "nspawn: no /run/systemd/container in the fixture" no \
        "$([ -e "$HOSTS/nspawn/run/systemd/container" ] && echo yes || echo no)"

facts "$HOSTS/firecracker"
check "firecracker: not a container" null "$(fact container)"
check "firecracker: a direct-kernel VM" true "$(fact bootloader.direct_kernel)"
check "firecracker: bootloader none" none "$(fact bootloader.kind)"
check_contains "firecracker: no /boot listed" '"no /boot"' "$tmp/facts.json"
check_contains "firecracker: the microVM boot arguments listed" "reboot=k pci=off on /proc/cmdline" "$tmp/facts.json"
check_contains "firecracker: no BOOT_IMAGE= listed" "has no BOOT_IMAGE=" "$tmp/facts.json"
"$HOSTTUNE" --root "$HOSTS/firecracker" facts >"$tmp/facts.txt" 2>&1
check_contains "firecracker: the text table shows the signs" "bootloader.direct_kernel_detected_by" "$tmp/facts.txt"

# negative controls: the signs must be there for the verdict
facts "$HOSTS/debian12-kvm"
check "debian12-kvm: not a container" null "$(fact container)"
check "debian12-kvm: GRUB, not a direct kernel" false "$(fact bootloader.direct_kernel)"
check "debian12-kvm: no container signs" null "$(fact container_detected_by)"

P=$(copy_host k8s-pod); scratch "$P"
sed -i 's| /proc/sys ro,| /proc/sys rw,|' "$P/proc/self/mountinfo"
rm "$P/sys/fs/cgroup/cgroup.type"
facts "$P"
check "k8s-pod with /proc/sys rw and at the root cgroup: no container seen" null "$(fact container)"

P=$(copy_host nspawn); scratch "$P"
printf 'container=\0PATH=/usr/bin\0' >"$P/proc/1/environ"
facts "$P"
check "container= set empty in PID 1's environment: not a container (as systemd reads it)" null "$(fact container)"

P=$(copy_host firecracker); scratch "$P"
mkdir -p "$P/sys/firmware/efi/efivars"
facts "$P"
check "firecracker with EFI: not taken for a direct kernel" false "$(fact bootloader.direct_kernel)"
P=$(copy_host firecracker); scratch "$P"
printf 'BOOT_IMAGE=/boot/vmlinuz-6.1.102 root=/dev/vda rw\n' >"$P/proc/cmdline"
facts "$P"
check "firecracker with BOOT_IMAGE=: a bootloader booted it" false "$(fact bootloader.direct_kernel)"

# ---- plan: skipped with a warning naming who sets it ------------------------
ht "$HOSTS/k8s-pod" plan jvm
check "k8s-pod: plan jvm plans (exit 2, no error)" 2 "$rc"
check_contains "k8s-pod: the word is listed as set elsewhere" \
        "skipped (set elsewhere): transparent_hugepage=madvise: the kernel command line is set by the Kubernetes node that runs this pod" "$tmp/out"
check_contains "k8s-pod: one warning names the node" \
        "warning: kernel command line not planned (transparent_hugepage=madvise): this is a container (kubernetes;" "$tmp/out"
check_contains "k8s-pod: sysfs still planned (tmpfiles.d)" "w /sys/kernel/mm/transparent_hugepage/enabled - - - - madvise" "$tmp/out"
check_contains "k8s-pod: sysctl still planned" "+vm.max_map_count" "$tmp/out"
check_contains "k8s-pod: limits still planned" "+java       hard    nofile  65535" "$tmp/out"

ht "$HOSTS/k8s-pod" --json plan jvm
cp "$tmp/out" "$tmp/plan.json"
check "k8s-pod --json: no errors" 0 "$(jq_get "$tmp/plan.json" 'errors.#')"
nskipped=$(jq_get "$tmp/plan.json" 'skipped.#')
set_by=""
i=0
while [ "$i" -lt "$nskipped" ]; do
        if [ "$(jq_get "$tmp/plan.json" "skipped.$i.setting")" = "cmdline transparent_hugepage" ]; then
                set_by=$(jq_get "$tmp/plan.json" "skipped.$i.set_by")
        fi
        i=$((i + 1))
done
check "k8s-pod --json: skipped[].set_by names the node" \
        "the Kubernetes node that runs this pod (its bootloader or machine image)" "$set_by"
check "k8s-pod --json: the cmdline change is skipped" skipped \
        "$(jq_get "$tmp/plan.json" 'changes.*.outcome' | tail -n 1)"
check "k8s-pod --json: ... and it is the cmdline word" transparent_hugepage \
        "$(jq_get "$tmp/plan.json" 'changes.*.key' | tail -n 1)"

ht "$HOSTS/firecracker" plan oracle --set sga_max_size=4G
check "firecracker: plan oracle plans (exit 2)" 2 "$rc"
check_contains "firecracker: the warning names the VM's host" \
        "set it on the VM's host, in the VMM's boot arguments" "$tmp/out"
check_contains "firecracker: HugePages still planned" "+vm.nr_hugepages = 2050" "$tmp/out"

ht "$HOSTS/nspawn" plan mysql
check "nspawn: plan mysql plans (exit 2)" 2 "$rc"
check_contains "nspawn: the warning names the container's host" \
        "set it on the host that runs this container" "$tmp/out"

# apply writes what the pod holds, and verify says who sets the word
P=$(prepare_host k8s-pod); scratch "$P"
ht "$P" apply jvm
check "k8s-pod: apply jvm (exit 0)" 0 "$rc"
check "k8s-pod: the sysctl drop-in is written" yes "$([ -f "$P/etc/sysctl.d/90-hosttune.conf" ] && echo yes || echo no)"
ht "$P" --json verify
check "k8s-pod: verify ok (exit 0)" 0 "$rc"
cp "$tmp/out" "$tmp/verify.json"
hint=""
nchecks=$(jq_get "$tmp/verify.json" 'checks.#')
i=0
while [ "$i" -lt "$nchecks" ]; do
        [ "$(jq_get "$tmp/verify.json" "checks.$i.key")" = transparent_hugepage ] &&
                hint="$(jq_get "$tmp/verify.json" "checks.$i.status") $(jq_get "$tmp/verify.json" "checks.$i.hint")"
        i=$((i + 1))
done
check "k8s-pod: verify names who sets the word" \
        "ok set by the Kubernetes node that runs this pod (its bootloader or machine image), not here" "$hint"

# ---- a host without a bootloader hosttune cannot place stays an error -------
P=$(copy_host debian12-kvm); scratch "$P"
rm -rf "$P/etc/default" "$P/boot"
ht "$P" plan jvm
check "debian12-kvm without GRUB files: plan fails (exit 1)" 1 "$rc"
check_contains "... and says why" "error: no bootloader configuration found" "$tmp/out"

# ---- required = true: an error even where somebody else sets it -------------
mkdir -p "$tmp/profiles" "$tmp/rules"
cat >"$tmp/profiles/thpreq.profile" <<'EOF'
inherit = "base";
cmdline = { add = [ "transparent_hugepage=never" ]; required = true; };
EOF
P=$(prepare_host k8s-pod); scratch "$P"
cp -a "$P" "$tmp/before"
"$HOSTTUNE" --root "$P" --profile-path "$tmp/profiles" --profile-path "$PROFILES" --rules-path "$RULES" \
        plan thpreq >"$tmp/out" 2>&1
check "required word in a pod: plan fails (exit 1)" 1 "$?"
check_contains "... naming the profile line and the node" \
        "error: $tmp/profiles/thpreq.profile:2: the kernel command line word transparent_hugepage=never is marked required, but this is a container (kubernetes;" "$tmp/out"
check_contains "... and where to set it" "set it on the Kubernetes node that runs this pod" "$tmp/out"
"$HOSTTUNE" --root "$P" --profile-path "$tmp/profiles" --profile-path "$PROFILES" --rules-path "$RULES" \
        apply thpreq >"$tmp/out" 2>&1
check "required word in a pod: apply fails (exit 1)" 1 "$?"
same_tree "required word in a pod: apply left the host untouched" "$tmp/before" "$P"
"$HOSTTUNE" --root "$HOSTS/debian12-kvm" --profile-path "$tmp/profiles" --profile-path "$PROFILES" \
        --rules-path "$RULES" --color=never plan thpreq >"$tmp/out" 2>&1
check "required word on a GRUB host: planned (exit 2)" 2 "$?"
check_contains "... in /etc/default/grub" "transparent_hugepage=never" "$tmp/out"
"$HOSTTUNE" --root "$HOSTS/debian12-kvm" --profile-path "$tmp/profiles" --profile-path "$PROFILES" \
        --rules-path "$RULES" show thpreq >"$tmp/out" 2>&1
check_contains "show marks the word required" "(required)" "$tmp/out"

# a rule can make a word another rule set required (flags only)
cat >"$tmp/rules/90-thp-required.rules" <<'EOF'
rules = (
        {
                name = "thp-cmdline-required";
                when = "thp_mode != \"\"";
                set = { backend = "cmdline"; key = "transparent_hugepage"; required = true; };
        }
);
EOF
"$HOSTTUNE" --root "$HOSTS/k8s-pod" --profile-path "$PROFILES" --rules-path "$tmp/rules" --rules-path "$RULES" \
        plan jvm >"$tmp/out" 2>&1
check "a rule marks THP's word required: plan fails in the pod (exit 1)" 1 "$?"
check_contains "... naming the rule that set the word" \
        "error: rule thp-cmdline ($RULES/40-thp.rules:44): the kernel command line word transparent_hugepage=madvise is marked required" "$tmp/out"

# ---- bad input: file and line, nothing planned ------------------------------
cat >"$tmp/profiles/both.profile" <<'EOF'
inherit = "base";
cmdline = { add = [ "transparent_hugepage=never" ];
            required = true; optional = true; };
EOF
"$HOSTTUNE" --root "$HOSTS/k8s-pod" --profile-path "$tmp/profiles" --profile-path "$PROFILES" --rules-path "$RULES" \
        plan both >"$tmp/out" 2>&1
check "required and optional together: exit 1" 1 "$?"
check_contains "... naming file and line" "$tmp/profiles/both.profile:2: cmdline: 'optional' and 'required' contradict each other" "$tmp/out"
cat >"$tmp/rules/95-bad.rules" <<'EOF'
rules = (
        {
                name = "bad-required";
                set = { backend = "sysctl"; key = "vm.swappiness"; value = 10; required = true; };
        }
);
EOF
rm "$tmp/rules/90-thp-required.rules"
"$HOSTTUNE" --root "$HOSTS/k8s-pod" --profile-path "$PROFILES" --rules-path "$tmp/rules" --rules-path "$RULES" \
        plan base >"$tmp/out" 2>&1
check "required on a sysctl: exit 1" 1 "$?"
check_contains "... naming file and line" "$tmp/rules/95-bad.rules:4: rule bad-required: set: 'required' is only for the cmdline backend" "$tmp/out"
finish
