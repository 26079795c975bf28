#!/bin/sh
# Windows Subsystem for Linux: systemd-detect-virt calls it a container
# ("wsl", src/basic/virt.c: "Microsoft" or "WSL" in
# /proc/sys/kernel/osrelease). Before, hosttune took WSL 2 for a
# direct-kernel VM and sent the user to Firecracker's boot_args; the
# kernel command line of WSL 2 is Windows' kernelCommandLine in
# .wslconfig. The fixture is debian12-kvm made a WSL 2 distribution: no
# /boot, no GRUB, no DMI, no EFI; the kernel release of Microsoft's
# WSL2-Linux-Kernel tag linux-msft-wsl-5.15.167.4, and WSL 1's
# "4.4.0-19041-Microsoft" (Windows 10 2004).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1

wsl_host() {
        P=$(copy_host debian12-kvm); scratch "$P"
        rm -rf "$P/boot" "$P/etc/default/grub" "$P/sys/class/dmi" "$P/sys/firmware"
        printf '%s\n' "$1" >"$P/proc/sys/kernel/osrelease"
        printf 'initrd=\\initrd.img WSL_ROOT_INIT=1 panic=-1 nr_cpus=16 hv_utils.timesync_implicit=1 console=hvc0 debug pty.legacy_count=0\n' \
                >"$P/proc/cmdline"
}

wsl_host 5.15.167.4-microsoft-standard-WSL2
"$HOSTTUNE" --root "$P" --json facts >"$tmp/facts.json"
check "WSL 2: a container named wsl" wsl "$(jq_get "$tmp/facts.json" container)"
check "WSL 2: the kernel release is the sign" \
        "/proc/sys/kernel/osrelease says 5.15.167.4-microsoft-standard-WSL2 (Windows Subsystem for Linux)" \
        "$(jq_get "$tmp/facts.json" container_detected_by.0)"
check "WSL 2: not a direct-kernel VM" false "$(jq_get "$tmp/facts.json" bootloader.direct_kernel)"
ht "$P" plan jvm
check "WSL 2: plan jvm plans (exit 2)" 2 "$rc"
check_contains "WSL 2: the command line is Windows' .wslconfig" \
        "set it on Windows, in kernelCommandLine of the [wsl2] section of %UserProfile%\\.wslconfig" "$tmp/out"
if grep -q Firecracker "$tmp/out" "$tmp/err"; then not_ok "WSL 2: no Firecracker advice"; else ok "WSL 2: no Firecracker advice"; fi

wsl_host 4.4.0-19041-Microsoft
"$HOSTTUNE" --root "$P" --json facts >"$tmp/facts.json"
check "WSL 1: a container named wsl" wsl "$(jq_get "$tmp/facts.json" container)"

wsl_host 6.1.0-18-amd64-microsoftish
"$HOSTTUNE" --root "$P" --json facts >"$tmp/facts.json"
check "a release with 'microsoft' in lower case only is not WSL (systemd's test is case-sensitive)" null \
        "$(jq_get "$tmp/facts.json" container)"
finish
