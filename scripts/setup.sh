#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs, idempotently, the Debian packages RSA Lab needs; only the missing ones.
# libopenblas0-openmp: Debian's OpenMP build of OpenBLAS cooperates with LibTorch's OpenMP
# threads (the pthread build that libopenblas-dev pulls in does not; measured ~1.6x slower).
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libtorch-dev libopenblas-dev libopenblas0-openmp
  qt6-base-dev qt6-svg-dev libqcustomplot-dev
  nlohmann-json3-dev libcli11-dev libbenchmark-dev
  libgsl-dev libeigen3-dev  # forecasting anchors (ETS, ARIMA, Theta): GSL's optimiser, Eigen's least squares
  xvfb xauth clang-format
  ccache  # optional: run.sh and test.sh use it when installed, so a second build takes minutes
  dpkg-dev file  # cpack -G DEB: dpkg-shlibdeps computes Depends, CPackDeb needs file(1) for it
  munge slurm-wlm  # sweeps on Slurm: scripts/slurm-local.sh runs a one-node cluster for the tests
)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
else
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup: installed ${#missing[@]} package(s)"
fi
# Make the OpenMP OpenBLAS the one libblas.so.3 resolves to (Debian alternatives).
for alt in libblas.so.3 liblapack.so.3 libopenblas.so.0; do

  multi=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
  name="${alt}-${multi}"
  target="/usr/lib/${multi}/openblas-openmp/${alt}"
  if [ -e "$target" ] && update-alternatives --query "$name" >/dev/null 2>&1; then
    current=$(update-alternatives --query "$name" | awk '/^Value:/{print $2}')
    if [ "$current" != "$target" ]; then
      echo "setup: selecting OpenMP OpenBLAS for $alt"
      $SUDO update-alternatives --set "$name" "$target" >/dev/null
    fi
  fi
done
