# Sourced by the benchmarks/scripts/plot-*.sh scripts: installs gnuplot (Debian gnuplot-nox) if missing.
if ! command -v gnuplot >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  echo "$(basename "$0"): installing gnuplot-nox"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null
fi
