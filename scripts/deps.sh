#!/bin/sh
# Install what building and testing hosttune needs, on Debian/Ubuntu (apt)
# or RHEL-like systems (dnf). Only installs what is missing; run as root.
set -eu

# Build: compiler, autotools, the five libraries. Tests: cmocka, jq, the
# real tools used as oracles or peers (procps sysctl, GNU diff/patch, clang
# for the fuzzers, systemd-analyze, cloud-init, ansible, bash-completion,
# mandoc/groff for the man pages, dpkg-dev/debhelper/lintian/rpm for the
# packages, valgrind for make check-valgrind, time and flock for the
# hostile-input tests, strace and gnuplot for the benchmarks, grub-mkconfig
# as the oracle for what hosttune writes into /etc/default/grub; a real
# MariaDB and a real JVM for real-mariadb.sh and real-jvm.sh, which start
# them themselves).
DEB_PKGS="build-essential autoconf automake pkg-config libconfig-dev libsystemd-dev \
libmount-dev libaudit-dev libjson-c-dev libcmocka-dev procps jq mandoc groff-base patch \
clang libclang-rt-dev systemd cloud-init ansible-core ansible bash-completion python3 \
dpkg-dev debhelper lintian rpm rpmlint valgrind time util-linux strace gnuplot-nox grub2-common \
mariadb-server openjdk-17-jdk-headless"
RPM_PKGS="gcc make autoconf automake pkgconf-pkg-config libconfig-devel systemd-devel \
libmount-devel audit-libs-devel json-c-devel libcmocka-devel procps-ng jq mandoc groff patch \
clang compiler-rt cloud-init ansible-core bash-completion python3 rpm-build rpmlint valgrind time util-linux grub2-tools \
mariadb-server java-17-openjdk-devel"

if [ "${1:-}" = "--print" ]; then
        echo "apt: $DEB_PKGS"
        echo "dnf: $RPM_PKGS"
        exit 0
fi

as_root() {
        if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if command -v apt-get >/dev/null 2>&1; then
        missing=""
        for p in $DEB_PKGS; do
                dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
        done
        if [ -n "$missing" ]; then
                echo "deps: installing$missing"
                as_root apt-get update -qq
                # mariadb-server's maintainer scripts start the service
                # (invoke-rc.d): the tests start their own server, so none
                # is started here: a policy-rc.d that denies every start
                # (exit 101, /usr/share/doc/init-system-helpers/README.policy-rc.d),
                # only when the machine has none of its own
                policy=""
                if [ ! -e /usr/sbin/policy-rc.d ]; then
                        policy=/usr/sbin/policy-rc.d
                        printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
                        as_root chmod 0755 "$policy"
                fi
                # shellcheck disable=SC2086
                as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=120 $missing ||
                        { [ -z "$policy" ] || as_root rm -f "$policy"; exit 1; }
                [ -z "$policy" ] || as_root rm -f "$policy"
        fi
elif command -v dnf >/dev/null 2>&1; then
        # RHEL/OL need EPEL (libcmocka-devel, jq) and CRB/PowerTools (libconfig-devel).
        # shellcheck disable=SC2086
        as_root dnf install -y $RPM_PKGS
else
        echo "deps: neither apt-get nor dnf found; install by hand: $DEB_PKGS" >&2
        exit 1
fi
