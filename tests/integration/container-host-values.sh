#!/bin/sh
# A privileged container (docker run --privileged: /proc/sys and /sys
# mounted read-write, no readonlyPaths) may write kernel values that are
# not namespaced; writing them would retune the host under every other
# container. plan and apply skip those runtime writes with a warning
# naming the key, and write the namespaced ones (net.*, the IPC limits);
# the drop-ins stay planned (they apply where the tree boots as a host).
# Also: LXC's proc:mixed (a writable /proc/sys/net), and a Kubernetes
# pod known by its kubepods cgroup. The fixture is tests/hosts/container (Docker on EC2) with the read-only
# /proc/sys bind mount gone and /sys rw, as runc mounts them for a
# privileged container (runc libcontainer/rootfs_linux.go: readonlyPaths
# and maskedPaths are empty with --privileged).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1
PROFILES=$tmp/profiles
mkdir -p "$PROFILES"
cat >"$PROFILES/ctr.profile" <<'P'
summary = "host values and a container's own";
sysctl = {
        vm = { swappiness = 10; };
        kernel = { panic_on_oops = 1; shmmni = 8192; };
        net = { core = { rmem_max = 4194304; }; };
};
sysfs = { kernel = { mm = { transparent_hugepage = { enabled = "never"; }; }; }; };
P

P=$(prepare_host container)
sed -i '/ \/proc\/sys ro,/d; / \/proc\/sysrq-trigger ro,/d; s| /sys ro,| /sys rw,|; s|sysfs sysfs ro$|sysfs sysfs rw|' \
        "$P/proc/self/mountinfo"
"$HOSTTUNE" --root "$P" --json facts >"$tmp/facts.json"
check "privileged docker: still a container" docker "$(jq_get "$tmp/facts.json" container)"
check "privileged docker: /proc/sys writable" false "$(jq_get "$tmp/facts.json" mounts.proc_sys_readonly)"
check "privileged docker: /sys writable" false "$(jq_get "$tmp/facts.json" mounts.sys_readonly)"
ht "$P" --json plan ctr
cp "$tmp/out" "$tmp/plan.json"
check "plan --json: no errors" 0 "$(jq_get "$tmp/plan.json" 'errors.#')"
# key outcome runtime, one line a change
"$JQ" "$tmp/plan.json" 'changes.*.key' >"$tmp/k"
"$JQ" "$tmp/plan.json" 'changes.*.outcome' >"$tmp/o"
"$JQ" "$tmp/plan.json" 'changes.*.runtime' >"$tmp/r"
paste -d ' ' "$tmp/k" "$tmp/o" "$tmp/r" >"$tmp/changes"
check_contains "vm.swappiness (not namespaced): runtime write skipped" "vm.swappiness skipped false" "$tmp/changes"
check_contains "kernel.panic_on_oops (not namespaced): skipped" "kernel.panic_on_oops skipped false" "$tmp/changes"
check_contains "THP (sysfs, not namespaced): skipped" \
        "/sys/kernel/mm/transparent_hugepage/enabled skipped false" "$tmp/changes"
check_contains "net.core.rmem_max (network namespace): written" "net.core.rmem_max change true" "$tmp/changes"
check_contains "kernel.shmmni (IPC namespace): written" "kernel.shmmni change true" "$tmp/changes"
check_contains "the warning names the key and why" \
        "vm.swappiness: not namespaced: this docker container shares the host's kernel value" "$tmp/plan.json"

htrun 0 "apply in a privileged container" "$P" apply ctr
for f in proc/sys/vm/swappiness proc/sys/kernel/panic_on_oops sys/kernel/mm/transparent_hugepage/enabled; do
        check "$f of the host untouched" "$(cat "$HOSTS/container/$f")" "$(cat "$P/$f")"
done
check "the container's own net.core.rmem_max written" 4194304 "$(cat "$P/proc/sys/net/core/rmem_max")"
check "the container's own kernel.shmmni written" 8192 "$(cat "$P/proc/sys/kernel/shmmni")"
check_contains "the drop-in still holds vm.swappiness (for the tree booted as a host)" "vm.swappiness = 10" \
        "$P/etc/sysctl.d/90-hosttune.conf"
# LXC's proc:mixed (lxc.container.conf(5), lxc.mount.auto): /proc/sys
# read-only, its net/ a writable mount of its own for the container's
# network namespace. net.* are written, the rest skipped as read-only.
P=$(prepare_host nspawn)
printf 'container=lxc\0PATH=/usr/sbin:/usr/bin\0' >"$P/proc/1/environ"
sed -i 's|^420 418 |421 419 0:57 /sys/net /proc/sys/net rw,nosuid,nodev,noexec,relatime shared:223 - proc proc rw\n&|' \
        "$P/proc/self/mountinfo"
ht "$P" --json plan ctr
cp "$tmp/out" "$tmp/lxc.json"
"$JQ" "$tmp/lxc.json" 'changes.*.key' >"$tmp/k"
"$JQ" "$tmp/lxc.json" 'changes.*.outcome' >"$tmp/o"
"$JQ" "$tmp/lxc.json" 'changes.*.runtime' >"$tmp/r"
paste -d ' ' "$tmp/k" "$tmp/o" "$tmp/r" >"$tmp/changes"
check_contains "LXC proc:mixed: net.core.rmem_max on the writable /proc/sys/net is written" \
        "net.core.rmem_max change true" "$tmp/changes"
check_contains "LXC proc:mixed: kernel.shmmni on the read-only /proc/sys is not" "kernel.shmmni skipped false" \
        "$tmp/changes"
if grep -q "net.core.rmem_max: /proc/sys is read-only" "$tmp/lxc.json"; then
        not_ok "LXC proc:mixed: no read-only warning for net.core.rmem_max"
else ok "LXC proc:mixed: no read-only warning for net.core.rmem_max"; fi
# A pod on a cgroup v1 node (no cgroup namespace) whose PID 1 is the pod's
# pause process (shareProcessNamespace: no KUBERNETES_SERVICE_HOST in
# its environment): kubelet's cgroup path names the pod (cgroupfs
# driver: /kubepods/QOS/pod<uid>/<container>, kubelet
# pkg/kubelet/cm/cgroup_manager_linux.go).
P=$(copy_host k8s-pod); scratch "$P"
printf 'PATH=/usr/bin\0HOSTNAME=db-0\0' >"$P/proc/1/environ"
rm "$P/sys/fs/cgroup/cgroup.events" "$P/sys/fs/cgroup/cgroup.type"
printf '%s\n' "12:memory:/kubepods/burstable/pod6f1b8e2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b/0a1b2c3d4e5f" \
        "1:name=systemd:/kubepods/burstable/pod6f1b8e2a-3c4d-4e5f-8a9b-0c1d2e3f4a5b/0a1b2c3d4e5f" >"$P/proc/1/cgroup"
"$HOSTTUNE" --root "$P" --json facts >"$tmp/facts.json"
check "cgroup v1 pod without the service variables: kubernetes" kubernetes "$(jq_get "$tmp/facts.json" container)"
check_contains "... the kubepods cgroup named" "PID 1 is in a kubepods cgroup (/proc/1/cgroup; a Kubernetes pod)" \
        "$tmp/facts.json"
printf '%s\n' "12:memory:/docker/0a1b2c3d4e5f" >"$P/proc/1/cgroup"
"$HOSTTUNE" --root "$P" --json facts >"$tmp/facts.json"
check "cgroup v1, not below kubepods: another container" container-other "$(jq_get "$tmp/facts.json" container)"
finish
