#!/usr/bin/env bash
# Compares `starbench tpch` with go-tpc v1.0.7's tpch on the same private MariaDB
# (1 GB buffer pool), in the same run (A B, B A, ... interleaved): the load of a
# scale factor (wall time, rows/s, client CPU, server CPU per row), then a stream
# of queries (client CPU per query). -rounds must be even (an odd count exits 2).
# Needs mariadb-server and go-tpc (on PATH or in $(go env GOPATH)/bin:
# GOFLAGS= go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7).
#   scripts/bench-tpch-vs-gotpc.sh [-sf 1] [-load-threads 2] [-queries q2,q10,q11,q16] [-passes 4] [-rounds 6] [-starbench BIN]
set -euo pipefail
cd "$(dirname "$0")/.."
# Built rather than `go run`, which would turn every exit status into 1.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/bench-tpch-vs-gotpc" ./cmd/bench-tpch-vs-gotpc
"$dir/bench-tpch-vs-gotpc" "$@"
