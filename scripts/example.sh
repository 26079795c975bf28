#!/bin/sh
# The newcomer's first command: install the build set (compiler, autotools,
# the five libraries: scripts/deps.sh --build), build, and show what
# `hosttune plan oracle` would change on the bundled example host (a
# Debian 12 KVM guest under tests/hosts/). A dry run against a tree of
# ordinary files: nothing on this machine is touched.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh --build
sh scripts/build.sh
set -x
# --live-root: the example host stands for a running system (a --root
# tree is an image otherwise, and an image's plan needs --facts)
./hosttune --root tests/hosts/debian12-kvm --live-root --profile-path profiles --rules-path rules \
        plan oracle --set sga_max_size=4G || [ $? -eq 2 ] # 2: changes pending
