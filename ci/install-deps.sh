#!/usr/bin/env bash
# Installs the Debian packages that build and test rocecheck need.
# Used by .ci/run and by the README's commands; safe to run again.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# Build: compiler, meson, the libraries the code links (their -dev packages
# pull in the runtime libraries; libmicrohttpd-dev for the monitor's
# /metrics endpoint); libcairo2-dev for cairo.h alone: the
# library loads cairo at run time (analysis/cairo_dl.c, libcairo2 below).
build_pkgs=(
  build-essential meson ninja-build pkg-config
  libibverbs-dev librdmacm-dev libnl-3-dev libnl-route-3-dev libnl-genl-3-dev
  libjansson-dev libpcap-dev lldpad-dev liblldpctl-dev libcmocka-dev libsodium-dev libcairo2-dev libpci-dev libc-ares-dev
  libmicrohttpd-dev
)
# Tests: valgrind, the veth/netns tools, ethtool to compare against, clang
# with its libFuzzer runtime for the fuzz suite, python3-jsonschema for the
# JSON schemas, tshark (and its editcap) to compare rocecap against, strace
# to hold a save in fsync while a signal arrives, systemd-analyze for units,
# prometheus for promtool (the sweep's textfiles); node and npm install the
# Kubernetes API schemas (npm's kubernetes-models, not in Debian) that
# contrib/kubernetes is checked against, python3-yaml reads those manifests;
# a real Slurm (slurm-wlm, munge) for contrib/slurm/ and shellcheck for its scripts;
# lldpad for rocedcb peer --lldpad (tests/unit/lldpad-netns.sh), lldpd for
# rocecheck topology --lldp (tests/unit/lldpd-netns.sh); libcairo2,
# which librocecheck dlopen()s to draw a PNG heatmap (tests/unit/test-heatmap.c).
test_pkgs=(valgrind iproute2 ethtool pciutils python3 jq clang libclang-rt-dev python3-jsonschema tshark strace systemd
  prometheus nodejs npm python3-yaml slurm-wlm munge shellcheck lldpad lldpd libcairo2)
# Virtual fabric (rocelab): Debian's kernel with rdma_rxe, qemu, guest userland.
lab_pkgs=(
  qemu-system-x86 linux-image-amd64 linux-headers-amd64 busybox-static kmod cpio
  ibverbs-providers ibverbs-utils rdma-core rdmacm-utils perftest tcpdump
  libgcc-s1 procps xz-utils dropbear-bin openssh-client
)

want=("${build_pkgs[@]}" "${test_pkgs[@]}")
case "${1:-all}" in
  build) ;;
  all) want+=("${lab_pkgs[@]}") ;;
  # The compiler and libraries alone (contrib/kubernetes/Containerfile).
  compile) want=("${build_pkgs[@]}") ;;
  *) echo "usage: $0 [build|all|compile]" >&2; exit 2 ;;
esac

# Installed, or provided by an installed package (a nodejs from another
# archive ships npm and conflicts with Debian's npm package). No grep -q:
# under pipefail a writer cut off early would turn a match into a failure.
have() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ] && return 0
  dpkg-query -W -f='${Status}|${Provides}\n' 2>/dev/null |
    grep "^install ok installed|" | cut -d'|' -f2 | tr ',' '\n' |
    sed 's/ *(.*//; s/^ *//' | grep -x "$1" >/dev/null
}

missing=()
for p in "${want[@]}"; do
  have "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  # wireshark-common asks whether non-root users may capture: no.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  $SUDO apt-get update -q
  # Daemons among the packages (lldpd, lldpad, slurmctld, munge) must not
  # start on the runner: tests start their own in private namespaces, and
  # an lldpd left running would send LLDP frames on the runner's links.
  policy=/usr/sbin/policy-rc.d
  added_policy=0
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy" && added_policy=1
  fi
  rc=0
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" || rc=$?
  [ $added_policy -eq 1 ] && $SUDO rm -f "$policy"
  [ $rc -eq 0 ] || exit $rc
fi
