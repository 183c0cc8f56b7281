#!/usr/bin/env bash
# Installs the Debian packages that build and test rocecheck need.
# Used by .ci/run and by the README's commands; safe to run again.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# Build: compiler, meson, the libraries the code links (their -dev packages
# pull in the runtime libraries, libcairo2 among them, for the heatmap PNG).
build_pkgs=(
  build-essential meson ninja-build pkg-config
  libibverbs-dev librdmacm-dev libnl-3-dev libnl-route-3-dev libnl-genl-3-dev
  libjansson-dev libpcap-dev lldpad-dev libcmocka-dev libssl-dev libcairo2-dev
)
# Tests: valgrind, the veth/netns tools, ethtool to compare against, clang
# with its libFuzzer runtime for the fuzz suite, python3-jsonschema for the
# JSON schemas, tshark (and its editcap) to compare rocecap against, strace
# to hold a save in fsync while a signal arrives, systemd-analyze for units,
# prometheus for promtool (the sweep's textfiles), a real Slurm (slurm-wlm,
# munge) for contrib/slurm/ and shellcheck for its scripts.
test_pkgs=(valgrind iproute2 ethtool python3 jq clang libclang-rt-dev python3-jsonschema tshark strace systemd prometheus
  slurm-wlm munge shellcheck)
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
  *) echo "usage: $0 [build|all]" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  # wireshark-common asks whether non-root users may capture: no.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
