#!/usr/bin/env bash
# Builds troupe and starts it on its embedded three-broker default.
# Extra arguments go to troupe, e.g. ./scripts/run.sh --help
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
exec ./build/troupe "$@"
