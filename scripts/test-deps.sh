#!/usr/bin/env bash
# Makes sure the real servers and tools the tests use are installed.
# go-tpc v1.0.7, the TPC-C peer, is installed with `go install` (as any user,
# into $(go env GOPATH)/bin) when it is missing. As root with apt-get, missing
# Debian packages are installed; otherwise it prints what to install, and the
# tests that need them skip (or fail under CI=true).
set -euo pipefail

# go-tpc: the tests look for it on PATH, then in $(go env GOPATH)/bin.
gotpc_module=github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7
if ! command -v go-tpc >/dev/null 2>&1; then
  gotpc_found=
  if command -v go >/dev/null 2>&1; then
    IFS=: read -r -a gopaths <<<"$(go env GOPATH)"
    for dir in "${gopaths[@]}"; do
      if [ -x "$dir/bin/go-tpc" ]; then gotpc_found=$dir/bin/go-tpc; fi
    done
    if [ -z "$gotpc_found" ]; then
      echo "test-deps: installing go-tpc with: GOFLAGS= go install $gotpc_module" >&2
      # GOFLAGS= : the module's own go.mod rules, not this repository's flags.
      if ! GOFLAGS= go install "$gotpc_module"; then
        echo "test-deps: installing go-tpc failed; the TPC-C tests that need it will be skipped (and fail when CI=true)" >&2
      fi
    fi
  else
    echo "test-deps: go is not on PATH, so go-tpc cannot be installed ($gotpc_module); the TPC-C tests that need it will be skipped (and fail when CI=true)" >&2
  fi
fi

# go-ycsb v1.0.3, the YCSB peer: its go.mod has replace directives, so
# `go install module@version` refuses it; it is built from the module's
# source (downloaded into the module cache, whose workloads/ the tests
# read) into $(go env GOPATH)/bin.
goycsb_module=github.com/pingcap/go-ycsb@v1.0.3
if ! command -v go-ycsb >/dev/null 2>&1 && command -v go >/dev/null 2>&1; then
  gobin=$(go env GOPATH | cut -d: -f1)/bin
  if [ ! -x "$gobin/go-ycsb" ]; then
    echo "test-deps: building go-ycsb from $goycsb_module into $gobin" >&2
    if src=$(GOFLAGS= go mod download -json "$goycsb_module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') && [ -n "$src" ]; then
      work=$(mktemp -d)
      cp -r "$src" "$work/go-ycsb" && chmod -R u+w "$work/go-ycsb"
      if ! (cd "$work/go-ycsb" && GOFLAGS= go build -o "$gobin/go-ycsb" ./cmd/go-ycsb); then
        echo "test-deps: building go-ycsb failed; the YCSB peer tests will be skipped (and fail when CI=true)" >&2
      fi
      rm -rf "$work"
    else
      echo "test-deps: downloading $goycsb_module failed; the YCSB peer tests will be skipped (and fail when CI=true)" >&2
    fi
  fi
fi

# tidb-server, for the tests on a real TiDB (unistore: no PD or TiKV): the
# one $STARBENCH_TIDB_SERVER names, on PATH, or built once from the pinned
# module in scripts/tidb-server into $(go env GOPATH)/bin (about 13 minutes
# on 2 cores; scripts/build-tidb.sh).
if [ -z "${STARBENCH_TIDB_SERVER:-}" ] && ! command -v tidb-server >/dev/null 2>&1 && command -v go >/dev/null 2>&1; then
  if ! bash "$(dirname "$0")/build-tidb.sh"; then
    echo "test-deps: building tidb-server failed; the tests on TiDB will be skipped (and fail when CI=true)" >&2
  fi
fi

# program  Debian package
needs=(
  "mariadbd mariadb-server"
  "mariadb-install-db mariadb-server"
  "sysbench sysbench"
  "sshd openssh-server"
  "ssh-keygen openssh-client"
  "ssh-agent openssh-client"
  "git git"
  "pgrep procps"
  "chromium chromium"
  "haproxy haproxy"
  "numactl numactl"
  "taskset util-linux"
  "prometheus-node-exporter prometheus-node-exporter"
  "prometheus-mysqld-exporter prometheus-mysqld-exporter"
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
