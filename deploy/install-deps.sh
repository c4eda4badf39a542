#!/usr/bin/env bash
# Installs every build and test dependency of topoplace from Debian 12's packages, and a
# Go toolchain from the Go module proxy where the machine's Go is too old.
# Unattended and idempotent: packages already present are skipped quickly.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler zlib1g-dev
  libboost-graph-dev libabsl-dev
  libibverbs-dev rdma-core
  libsqlite3-dev sqlite3 openssl libmunge-dev munge
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev
  lldpd iproute2 nftables iputils-ping graphviz
  clang libclang-rt-14-dev clang-format-14 clang-tidy-14
  slurmctld slurmd slurm-client libslurm-dev slurm-wlm-basic-plugins-dev
  prometheus-cpp-dev prometheus prometheus-node-exporter
  etcd-server jq curl unzip
  libcpp-httplib-dev
  chromium chromium-driver fonts-dejavu-core
  dpkg-dev file systemd python3 python3-yaml
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} > 0)); then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Go for the tests' Go modules (Kubernetes v1.36 needs Go 1.26; Debian 12 has 1.19): the
# machine's own when new enough, else the toolchain module from the Go module proxy.
"$(dirname "${BASH_SOURCE[0]}")/go-toolchain.sh" >/dev/null
