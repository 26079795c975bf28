#!/bin/sh
# A container that shares the host's IPC or network namespace (docker and
# podman run --ipc=host, --network=host; a pod's hostIPC, hostNetwork):
# its IPC sysctls (kernel.shm*, sem, msg*) and net.* are then the host's.
# What is observable from inside is hosttune's own /proc/self/ns/TYPE
# link: the kernel numbers the initial IPC namespace 0xEFFFFFFF
# (ipc:[4026531839], since Linux 3.8) and, since 6.18, the initial
# network namespace 0xEFFFFFF9 (net:[4026531833]); comparing with
# /proc/1/ns is no help, PID 1 being the container's own. The fixture is
# tests/hosts/container (Docker on EC2) made privileged as
# container-host-values.sh makes it (/proc/sys writable), with the links
# a real /proc gives:
#  - host IPC and network (6.18): kernel.shmmni and net.core.rmem_max
#    skipped, each warning naming the namespace; the fixture untouched;
#  - their own (6.18): both written, no such warning;
#  - 6.1: the network namespace cannot be told, one warning says so and
#    net.* is written as before; the IPC one is still known.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1
PROFILES=$tmp/profiles
mkdir -p "$PROFILES"
cat >"$PROFILES/ctr.profile" <<'P'
summary = "a container's IPC and network values";
sysctl = {
        kernel = { shmmni = 8192; };
        net = { core = { rmem_max = 4194304; }; };
};
P
# ctr NAME IPC NET RELEASE: a privileged docker fixture whose own
# namespaces read as given
ctr() {
        p=$(prepare_host container); scratch "$p"
        mv "$p" "$tmp/$1"
        p=$tmp/$1
        sed -i '/ \/proc\/sys ro,/d; / \/proc\/sysrq-trigger ro,/d; s| /sys ro,| /sys rw,|; s|sysfs sysfs ro$|sysfs sysfs rw|' \
                "$p/proc/self/mountinfo"
        mkdir -p "$p/proc/self/ns"
        ln -s "ipc:[$2]" "$p/proc/self/ns/ipc"
        ln -s "net:[$3]" "$p/proc/self/ns/net"
        echo "$4" >"$p/proc/sys/kernel/osrelease"
}
changes() {
        "$JQ" "$1" 'changes.*.key' >"$tmp/k"
        "$JQ" "$1" 'changes.*.outcome' >"$tmp/o"
        paste -d ' ' "$tmp/k" "$tmp/o"
}

ctr host 4026531839 4026531833 6.18.3-cloud-amd64
"$HOSTTUNE" --root "$tmp/host" --json facts >"$tmp/facts.json"
check "--ipc=host --network=host: facts" "host host" \
        "$(jq_get "$tmp/facts.json" container_namespaces.ipc) $(jq_get "$tmp/facts.json" container_namespaces.net)"
check_contains "... the sign named" "/proc/self/ns/ipc is ipc:[4026531839], the host's IPC namespace (--ipc=host)" \
        "$tmp/facts.json"
ht "$tmp/host" --json plan ctr
changes "$tmp/out" >"$tmp/changes"
check_contains "--ipc=host: kernel.shmmni skipped" "kernel.shmmni skipped" "$tmp/changes"
check_contains "--network=host: net.core.rmem_max skipped" "net.core.rmem_max skipped" "$tmp/changes"
check_contains "the IPC warning says whose value it is" \
        "kernel.shmmni: this docker container shares the host's IPC namespace (--ipc=host), so the value is the host's" \
        "$tmp/out"
check_contains "the network warning too" \
        "net.core.rmem_max: this docker container shares the host's network namespace (--network=host)" "$tmp/out"
htrun 0 "apply with the host's namespaces" "$tmp/host" apply ctr
check "the host's kernel.shmmni untouched" "$(cat "$HOSTS/container/proc/sys/kernel/shmmni")" \
        "$(cat "$tmp/host/proc/sys/kernel/shmmni")"
check "the host's net.core.rmem_max untouched" "$(cat "$HOSTS/container/proc/sys/net/core/rmem_max")" \
        "$(cat "$tmp/host/proc/sys/net/core/rmem_max")"

ctr own 4026532291 4026532294 6.18.3-cloud-amd64
"$HOSTTUNE" --root "$tmp/own" --json facts >"$tmp/facts.json"
check "own namespaces (6.18): facts" "own own" \
        "$(jq_get "$tmp/facts.json" container_namespaces.ipc) $(jq_get "$tmp/facts.json" container_namespaces.net)"
ht "$tmp/own" --json plan ctr
changes "$tmp/out" >"$tmp/changes"
check_contains "own IPC namespace: kernel.shmmni written" "kernel.shmmni change" "$tmp/changes"
check_contains "own network namespace: net.core.rmem_max written" "net.core.rmem_max change" "$tmp/changes"
if grep -q "shares the host's\|cannot be seen from inside" "$tmp/out"; then
        not_ok "own namespaces: no namespace warning: $(grep -o "[a-z.]*: this docker[^\"]*" "$tmp/out" | head -2)"
else ok "own namespaces: no namespace warning"; fi

ctr old 4026532291 4026531992 6.1.0-18-cloud-amd64
"$HOSTTUNE" --root "$tmp/old" --json facts >"$tmp/facts.json"
check "6.1: the network namespace unknown, the IPC one known" "own null" \
        "$(jq_get "$tmp/facts.json" container_namespaces.ipc) $(jq_get "$tmp/facts.json" container_namespaces.net)"
ht "$tmp/old" --json plan ctr
changes "$tmp/out" >"$tmp/changes"
check_contains "6.1: net.core.rmem_max written as before" "net.core.rmem_max change" "$tmp/changes"
check_contains "6.1: one warning says it cannot be told" \
        "net.*: whether this docker container has a network namespace of its own or the host's (--network=host) cannot be seen from inside before Linux 6.18" \
        "$tmp/out"
finish
