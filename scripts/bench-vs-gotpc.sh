#!/usr/bin/env bash
# Compares `starbench tpcc` with go-tpc v1.0.7 on the same private MariaDB, in
# the same run (A B, B A, ... interleaved): the load's wall time, client CPU and
# server CPU per row, then at each thread count the client CPU per transaction,
# tpmC and the server CPU per transaction. -rounds must be even (an odd count
# exits 2). Needs mariadb-server and go-tpc (on PATH or in $(go env GOPATH)/bin:
# GOFLAGS= go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7).
#   scripts/bench-vs-gotpc.sh [-warehouses 2] [-load-threads 2] [-threads 1,4,16] [-time 20s] [-rounds 2] [-starbench BIN]
set -euo pipefail
cd "$(dirname "$0")/.."
# Built rather than `go run`, which would turn every exit status into 1.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/bench-vs-gotpc" ./cmd/bench-vs-gotpc
"$dir/bench-vs-gotpc" "$@"
