#!/usr/bin/env bash
# Client CPU per query of a load run in agents (bench.together parts with
# cpus=, each a 'starbench agent' process) against one process with the
# same threads, on a private MariaDB, in the same run (A B, B A, ...).
# Needs mariadb-server and taskset (scripts/test-deps.sh installs them).
#   scripts/bench-agents.sh [-time 10s] [-rounds 6] [-threads 4] [-parts 3]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/bench-agents" ./cmd/bench-agents
"$dir/bench-agents" "$@"
