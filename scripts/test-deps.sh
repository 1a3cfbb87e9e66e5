#!/usr/bin/env bash
# Makes sure the real servers and tools the tests use are installed.
# As root with apt-get, missing Debian packages are installed; otherwise it
# prints what to install, and the tests that need them skip (or fail under CI=true).
set -euo pipefail

# program  Debian package
needs=(
  "mariadbd mariadb-server"
  "mariadb-install-db mariadb-server"
  "sysbench sysbench"
  "sshd openssh-server"
  "ssh-keygen openssh-client"
  "pgrep procps"
  "chromium chromium"
)

missing_pkgs=()
for pair in "${needs[@]}"; do
  prog=${pair%% *}
  pkg=${pair##* }
  if ! command -v "$prog" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$prog" ] && [ ! -x "/usr/bin/$prog" ]; then
    case " ${missing_pkgs[*]-} " in *" $pkg "*) ;; *) missing_pkgs+=("$pkg") ;; esac
  fi
done

if [ ${#missing_pkgs[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "test-deps: installing ${missing_pkgs[*]} with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # The servers are started by the tests as private instances; keep the
  # package scripts from starting system services.
  apt-get install -y -qq --no-install-recommends "${missing_pkgs[@]}" >/dev/null
  exit 0
fi

echo "test-deps: missing ${missing_pkgs[*]}; install with: sudo apt-get install -y ${missing_pkgs[*]}" >&2
echo "test-deps: tests that need them will be skipped (and fail when CI=true)" >&2
