#!/usr/bin/env bash
# Renders every Graphviz source (*.dot) in this folder to SVG and PNG beside it. Needs Graphviz
# (Debian: apt-get install graphviz). Run from anywhere: docs/images/render.sh
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v dot >/dev/null 2>&1; then
  echo "render.sh: Graphviz 'dot' not found (apt-get install graphviz)" >&2
  exit 1
fi
for src in *.dot; do
  name="${src%.dot}"
  dot -Tsvg "$src" -o "$name.svg"
  dot -Tpng -Gdpi=110 "$src" -o "$name.png"
  echo "rendered $name.svg $name.png"
done
