#!/usr/bin/env bash
# Compares starbench's client CPU per query and tps with Debian's sysbench on
# the same private MariaDB, in the same run (A B, B A, ... interleaved). Needs
# mariadb-server and sysbench (make deps installs them as root).
#   scripts/bench-vs-sysbench.sh [-time 10s] [-rounds 2] [-threads 1,4,16]
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./cmd/bench-vs-sysbench "$@"
