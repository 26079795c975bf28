#!/bin/sh
# Install what hosttune needs, by purpose, on Debian/Ubuntu (apt) or
# RHEL-like systems (dnf). Only installs what is missing; run as root (or
# with sudo).
#
#   sh scripts/deps.sh --build     compiler, autotools, the five libraries:
#                                  all scripts/example.sh needs
#   sh scripts/deps.sh --test      --build and what `make check` uses
#                                  (scripts/test.sh)
#   sh scripts/deps.sh --ci        --test and everything else .ci/run runs:
#                                  valgrind, qemu and the boot image tools,
#                                  the package tools, the benchmarks' peers
#   sh scripts/deps.sh --print [--build|--test|--ci]
#                                  the package names for both families
#   sh scripts/deps.sh --dry-run [--build|--test|--ci]
#                                  (apt) what would be downloaded, and the total
#
# --build installs without apt's Recommends (the smallest footprint that
# builds); --test and --ci install with them, as CI has always run.
# README.md gives the download size of each set on a fresh Debian 12.
set -eu

# Each set adds to the one before it; one set a variable, one purpose a line.
# Build: compiler and make, autotools, pkg-config, the five libraries.
DEB_BUILD="build-essential autoconf automake pkg-config
libconfig-dev libsystemd-dev libmount-dev libaudit-dev libjson-c-dev"
# make check: cmocka and jq; the real tools used as oracles or peers (procps
# sysctl, GNU patch, systemd-analyze and systemd-tmpfiles, grub-mkconfig and
# grub-script-check (grub-common, which grub2-common depends on: every
# grub.cfg the suite writes is parsed by GRUB's own parser),
# udevadm for the block backend's rules file, time for the hostile-input
# tests); clang for the fuzzers; the man pages'
# mandoc and groff; bash-completion; python3 with PyYAML and jsonschema
# (json-schemas.sh validates every --json document); cloud-init and
# Ansible for the fleet tests, ansible-lint for the collection
# (tests/integration/ansible-lint.sh) and voluptuous for ansible-test's
# validate-modules (ansible-contract.sh); rpm's rpmspec and rpmlint for rpm-spec.sh;
# a real MariaDB and a real JVM for real-mariadb.sh and real-jvm.sh, which
# start them themselves; python3-prometheus-client, whose OpenMetrics
# parser metrics.sh reads --format=openmetrics with; strace, whose
# system-call traces apply-durable.sh (the fsync order), facts-devices.sh
# and workload-parts.sh (what a plan reads) check; acl's setfacl, attr's
# setfattr and e2fsprogs' chattr, with which apply-file-metadata.sh gives a
# managed file an ACL, an SELinux label, xattrs and the immutable flag.
DEB_TEST="libcmocka-dev jq procps patch systemd udev grub2-common time util-linux strace acl attr e2fsprogs
clang libclang-rt-dev
mandoc groff-base bash-completion python3 python3-yaml python3-jsonschema python3-prometheus-client
cloud-init ansible-core ansible ansible-lint python3-voluptuous
rpm rpmlint
mariadb-server openjdk-17-jdk-headless"
# The rest of .ci/run: valgrind (make check-valgrind), the package builds
# (dpkg-buildpackage and lintian; rpmbuild is in rpm, and its debuginfo
# packages need elfutils' eu-strip), the benchmarks'
# gnuplot (and strace, in --test); tuned, whose profiles (/usr/lib/tuned, read in place)
# tests/integration/tuned-format.sh and test-format-tuned parse (not in
# --test: the package enables a daemon that tunes the host at its next
# boot; without it those checks skip); prometheus, whose promtool checks
# the metrics and the alerting rules in metrics.sh, and
# prometheus-node-exporter, whose textfile collector metrics.sh runs on
# the file hosttune writes (not in --test either: the packages enable a
# Prometheus server and node_exporter at the next boot; without them those
# checks skip). The real-boot test's qemu and image
# tools come from tests/boot/deps.sh, which --ci runs too.
DEB_CI="valgrind
dpkg-dev debhelper lintian elfutils
gnuplot-nox
tuned prometheus prometheus-node-exporter"

# The same sets for dnf. On RHEL/Oracle Linux libconfig-devel is in CRB
# (EL9; PowerTools/CodeReady on EL8) and libcmocka-devel, jq, mandoc,
# rpmlint and ansible-core's collections in EPEL (README.md).
RPM_BUILD="gcc make autoconf automake pkgconf-pkg-config
libconfig-devel systemd-devel libmount-devel audit-libs-devel json-c-devel"
RPM_TEST="libcmocka-devel jq procps-ng patch systemd systemd-udev grub2-tools time util-linux strace acl attr e2fsprogs
clang compiler-rt
mandoc groff bash-completion python3 python3-pyyaml python3-jsonschema
cloud-init ansible-core
rpm-build rpmlint
mariadb-server java-17-openjdk-devel"
RPM_CI="valgrind gnuplot tuned"

set_name=test mode=install
for arg in "$@"; do
        case $arg in
        --build) set_name=build ;;
        --test) set_name=test ;;
        --ci) set_name=ci ;;
        --print) mode=print ;;
        --dry-run) mode=dry-run ;;
        -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "deps: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
        esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
boot_pkgs=$(sed -n 's/^PKGS="\(.*\)"$/\1/p' "$top/tests/boot/deps.sh")
case $set_name in
build) deb=$DEB_BUILD rpm=$RPM_BUILD ;;
test) deb="$DEB_BUILD $DEB_TEST" rpm="$RPM_BUILD $RPM_TEST" ;;
ci) deb="$DEB_BUILD $DEB_TEST $DEB_CI" rpm="$RPM_BUILD $RPM_TEST $RPM_CI" ;;
esac
deb=$(echo $deb) rpm=$(echo $rpm)

if [ "$mode" = print ]; then
        echo "apt: $deb"
        [ "$set_name" != ci ] || echo "apt (tests/boot/deps.sh, no Recommends): $boot_pkgs"
        echo "dnf: $rpm"
        exit 0
fi

as_root() {
        if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if command -v apt-get >/dev/null 2>&1; then
        apt_opts="-o DPkg::Lock::Timeout=120 -o Acquire::Retries=3"
        [ "$set_name" != build ] || apt_opts="$apt_opts --no-install-recommends"
        missing=""
        for p in $deb; do
                dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
        done
        if [ "$mode" = dry-run ]; then
                [ -n "$missing" ] || { echo "deps: nothing to install for --$set_name"; exit 0; }
                # shellcheck disable=SC2086
                apt-get install --print-uris -qq -y $apt_opts $missing |
                        awk -v set="$set_name" '{ n++; b += $3; print $2, $3 }
                                END { printf "deps: --%s downloads %d packages, %.1f MB\n", set, n, b / 1e6 }'
                [ "$set_name" != ci ] || echo "deps: and tests/boot/deps.sh installs what is missing of: $boot_pkgs"
                exit 0
        fi
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
                as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $apt_opts $missing ||
                        { [ -z "$policy" ] || as_root rm -f "$policy"; exit 1; }
                [ -z "$policy" ] || as_root rm -f "$policy"
        fi
        if [ "$set_name" = ci ]; then
                as_root sh "$top/tests/boot/deps.sh"
        fi
elif command -v dnf >/dev/null 2>&1; then
        if [ "$mode" = dry-run ]; then
                # shellcheck disable=SC2086
                exec dnf install --assumeno $rpm
        fi
        # RHEL/OL need CRB/PowerTools (libconfig-devel) and, for --test,
        # EPEL (libcmocka-devel, jq, mandoc, rpmlint).
        # shellcheck disable=SC2086
        as_root dnf install -y $rpm
else
        echo "deps: neither apt-get nor dnf found; install by hand: $deb" >&2
        exit 1
fi
