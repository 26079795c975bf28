#!/bin/sh
# Host packages the real-boot test needs (Debian/Ubuntu host, run as root).
# Idempotent: installs only what is missing, so CI can call it every run.
set -eu

# jq and systemd (systemctl --root, systemd-tmpfiles --root): image-offline.sh
# genisoimage: the NoCloud seed of scenario cloud-init (as cloud-localds makes it);
# dpkg-dev: dpkg-scanpackages, the seed's apt repository index
PKGS="qemu-system-x86 qemu-utils mmdebstrap grub-pc-bin grub2-common fdisk e2fsprogs jq systemd genisoimage dpkg-dev"
APT_OPTS="-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3"

missing=
for p in $PKGS; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
                missing="$missing $p"
done
[ -z "$missing" ] && { echo "deps.sh: all present"; exit 0; }

if [ "$(id -u)" != 0 ]; then
        echo "deps.sh: need root to install:$missing" >&2
        exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
apt-get $APT_OPTS update -qq
# shellcheck disable=SC2086
apt-get $APT_OPTS install -y -qq --no-install-recommends $missing
