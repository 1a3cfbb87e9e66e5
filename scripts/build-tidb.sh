#!/usr/bin/env bash
# Builds the tidb-server starbench is tested with (TiDB's v8.4-era commit
# ec8b81b98edc, pinned with all its dependencies in scripts/tidb-server/)
# into DEST (default: $(go env GOPATH)/bin/tidb-server), once per machine:
# a binary already built from the same pin is kept. It takes about 13
# minutes on 2 cores and makes a 243 MB binary (about 170 MB stripped).
#
#   bash scripts/build-tidb.sh [DEST]
#
# The module needs nothing but the Go module proxy. The build writes to a
# temporary name and renames it when done, so an interrupted build leaves
# no half-written binary; DEST.pin records what it was built from.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
module_dir=$here/tidb-server
dest=${1:-$(go env GOPATH | cut -d: -f1)/bin/tidb-server}
pin=$(sed -n 's/^require github.com\/pingcap\/tidb \(.*\)$/\1/p' "$module_dir/go.mod")
if [ -z "$pin" ]; then
  echo "build-tidb: cannot read the pinned TiDB version in $module_dir/go.mod" >&2
  exit 1
fi
if [ -x "$dest" ] && [ "$(cat "$dest.pin" 2>/dev/null)" = "$pin" ]; then
  echo "build-tidb: $dest is already built from github.com/pingcap/tidb $pin" >&2
  exit 0
fi
mkdir -p "$(dirname "$dest")"
hash=${pin##*-}
echo "build-tidb: building tidb-server from github.com/pingcap/tidb $pin into $dest (about 13 minutes on 2 cores)" >&2
cd "$module_dir"
# GOFLAGS= : this module's own go.mod and go.sum rule, not the caller's flags.
GOFLAGS= nice -n 10 go build -trimpath \
  -ldflags "-s -w -X github.com/pingcap/tidb/pkg/util/versioninfo.TiDBGitHash=$hash" \
  -o "$dest.building" github.com/pingcap/tidb/cmd/tidb-server
mv -f "$dest.building" "$dest"
echo "$pin" >"$dest.pin"
echo "build-tidb: built $dest" >&2
