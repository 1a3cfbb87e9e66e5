#!/usr/bin/env bash
# Compares starbench's client CPU per query and tps with Debian's sysbench on
# the same private MariaDB, in the same run (A B, B A, ... interleaved), and
# prepare INSERT against INSERT in the same order, with starbench's LOAD DATA
# on a line of its own. -rounds must be even (an odd count exits 2). Needs
# mariadb-server and sysbench (make deps installs them as root).
#   scripts/bench-vs-sysbench.sh [-time 10s] [-rounds 2] [-threads 1,4,16] [-table-size N]
set -euo pipefail
cd "$(dirname "$0")/.."
# Built rather than `go run`, which would turn every exit status into 1.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/bench-vs-sysbench" ./cmd/bench-vs-sysbench
"$dir/bench-vs-sysbench" "$@"
