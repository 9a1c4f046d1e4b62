#!/usr/bin/env bash
# Builds troupe and runs every test under ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
cd build
ctest --output-on-failure --timeout 600 "$@"
