#!/usr/bin/env bash
# Configures and builds troupe (Release) into ./build: every target, or
# the targets given (scripts/build.sh troupe).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
if [[ ! -f build/build.ninja ]]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build build --parallel "${TROUPE_BUILD_JOBS:-$(nproc)}" ${1:+--target "$@"}
