#!/bin/sh
# Installs what gpumats needs on Debian bookworm (only what is missing).
set -e
need=""
for p in petsc-dev slepc-dev libpetsc3.18-dev-examples libslepc3.18-dev-examples python3-petsc4py python3-slepc4py meson ninja-build pkg-config; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "gpumats: installing$need"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
