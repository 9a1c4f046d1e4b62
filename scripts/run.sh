#!/usr/bin/env bash
# Builds troupe and runs `troupe serve`: the embedded three-broker node,
# its Kafka listeners (9092..9094) and the HTTP/WebSocket gateway with the
# dashboard on http://localhost:8080/. Arguments replace `serve`, e.g.
# ./scripts/run.sh serve --http-port 9000, or ./scripts/run.sh --help
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
if [ $# -eq 0 ]; then
  set -- serve
fi
exec ./build/troupe "$@"
