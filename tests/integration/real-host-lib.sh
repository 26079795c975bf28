# The real-host tests' confinement: hosttune runs with --root on a
# throwaway tree whose proc/ and sys/ are the machine's own /proc and /sys,
# bind-mounted in a mount namespace of its own (unshare -m, private
# propagation: the mounts vanish with the process and never show on the
# host). So the runtime writes reach the real kernel, while every file
# hosttune writes (sysctl.d, limits.d, tmpfiles.d, /etc/default/grub, its
# journal and lock) lands in the tree, never in the machine's /etc, /var
# or /run. A --root other than / also keeps hosttune from running the
# bootloader tool or daemon-reload on the machine. Such a tree is what an
# image build with the build machine's /proc mounted in looks like, which
# hosttune refuses to retune (an offline image, issue 17): --live-root
# says that here retuning the machine's kernel is the point. Sourced
# after lib.sh and apply-lib.sh.

# confine_ok: whether this machine can give hosttune such a tree
confine_ok() {
        command -v unshare >/dev/null 2>&1 || return 1
        mkdir -p "$tmp/probe/proc" || return 1
        unshare -m --propagation private sh -c 'mount --bind /proc "$1/proc" && test -r "$1/proc/sys/vm/swappiness"' \
                sh "$tmp/probe" 2>/dev/null
        _r=$?
        rmdir "$tmp/probe/proc" "$tmp/probe" 2>/dev/null
        return $_r
}

# mkconfined_root DIR: the tree, with what the plan reads of a host that is
# not under /proc or /sys: os-release, accounts (plus the users the
# shipped profiles name, in the tree only), an empty sysctl.d and
# limits.d, a GRUB defaults file (from the debian12-kvm fixture, so the
# command-line part plans and persists inside the tree), logind.conf and
# system.conf, and a mysqld unit
mkconfined_root() {
        _root=$1
        mkdir -p "$_root/proc" "$_root/sys" "$_root/etc/sysctl.d" "$_root/etc/security/limits.d" "$_root/etc/default" \
                "$_root/lib/systemd/system" "$_root/run" "$_root/var/lib" "$_root/tmp"
        cp /etc/os-release "$_root/etc/os-release" 2>/dev/null || cp "$HOSTS/debian12-kvm/etc/os-release" "$_root/etc/"
        cp /etc/passwd /etc/group "$_root/etc/"
        for _g in oinstall:54321 dba:54322 mysql:54330 java:54340; do
                grep -q "^${_g%%:*}:" "$_root/etc/group" || echo "${_g%%:*}:x:${_g#*:}:" >>"$_root/etc/group"
        done
        for _v in oracle:54321:54321 mysql:54330:54330 java:54340:54340; do
                _u=${_v%%:*}
                grep -q "^$_u:" "$_root/etc/passwd" ||
                        echo "$_u:x:${_v#*:}::/nonexistent:/usr/sbin/nologin" >>"$_root/etc/passwd"
        done
        cp "$HOSTS/debian12-kvm/etc/default/grub" "$_root/etc/default/grub"
        # logind's and the manager's main files (the machine's, else Debian
        # 12's), so the systemd section writes its drop-ins in the tree; with
        # --root hosttune never signals or reloads the machine's systemd
        mkdir -p "$_root/etc/systemd"
        for _f in logind.conf system.conf; do
                cp "/etc/systemd/$_f" "$_root/etc/systemd/" 2>/dev/null ||
                        cp "$HOSTS/debian12-kvm/etc/systemd/$_f" "$_root/etc/systemd/"
        done
        printf '[Unit]\nDescription=MySQL stand-in for the real-host test\n\n[Service]\nExecStart=/usr/sbin/mysqld\n' \
                >"$_root/lib/systemd/system/mysqld.service"
        chmod -R go-w "$_root"
}

# hc WANT DESC ARGS...: hosttune confined to $CROOT (made by
# mkconfined_root), checked as a TAP test; output in $tmp/out, $tmp/err
hc() {
        want=$1 desc=$2
        shift 2
        unshare -m --propagation private sh -c \
                'r=$1; shift; mount --bind /proc "$r/proc" && mount --bind /sys "$r/sys" && exec "$@"' \
                sh "$CROOT" "$HOSTTUNE" --root "$CROOT" --live-root --profile-path "$PROFILES" --rules-path "$RULES" "$@" \
                </dev/null >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [ "$rc" = "$want" ]; then ok "$desc (exit $rc)"; else
                not_ok "$desc: exit $rc, expected $want; stderr: $(head -c 800 "$tmp/err")"; fi
}

# host_files: the machine's own files hosttune would write, listed with
# checksums, and whether its state and lock exist; equal before and after
# means the confinement held
host_files() {
        for _d in /etc/sysctl.d /etc/sysctl.conf /etc/tmpfiles.d /etc/security/limits.d /etc/security/limits.conf \
                /etc/default /etc/systemd/system /etc/systemd/logind.conf.d /etc/systemd/system.conf.d \
                /etc/systemd/logind.conf /etc/systemd/system.conf /etc/udev/rules.d /boot /var/lib/hosttune /run/hosttune.lock; do
                if [ -e "$_d" ]; then
                        find "$_d" \( -type f -o -type l \) -print 2>/dev/null | LC_ALL=C sort |
                                while IFS= read -r _f; do
                                        if [ -L "$_f" ]; then printf 'link %s -> %s\n' "$_f" "$(readlink "$_f")"
                                        else printf '%s %s\n' "$(sha256sum <"$_f" | cut -c1-16)" "$_f"; fi
                                done
                        echo "exists $_d"
                else echo "absent $_d"; fi
        done
}

# sysctl_path KEY: its file under /proc/sys (net.ipv4.conf.all.rp_filter ->
# /proc/sys/net/ipv4/conf/all/rp_filter)
sysctl_path() { printf '/proc/sys/%s\n' "$(printf '%s' "$1" | tr . /)"; }
