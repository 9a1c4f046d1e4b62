#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ with clang (ASan + UBSan) into
# ./build-fuzz and runs each for the given number of seconds (default 30).
# The corpus grows in build-fuzz/corpus/<target>; crashes land beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
command -v clang++ >/dev/null || ./scripts/setup.sh

out=build-fuzz
targets=(kafka_frame_fuzz record_batch_fuzz)
sources=(domain/kafka/wire.cpp domain/kafka/protocol.cpp
         domain/kafka/data_messages.cpp domain/kafka/group_messages.cpp
         domain/kafka/admin_messages.cpp domain/error_code.cpp
         domain/log/record_batch.cpp domain/log/crc32c.cpp)
flags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -I.
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined)

mkdir -p "$out"
for target in "${targets[@]}"; do
  echo "fuzz: building $target"
  clang++ "${flags[@]}" "fuzz/$target.cpp" "${sources[@]}" -o "$out/$target"
  mkdir -p "$out/corpus/$target"
done
clang++ -std=c++17 -O1 -I. fuzz/make_seeds.cpp "${sources[@]}" \
  -o "$out/make_seeds"
"$out/make_seeds" "$out/corpus"

for target in "${targets[@]}"; do
  echo "fuzz: running $target for ${seconds}s"
  "$out/$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$out/$target-" "$out/corpus/$target"
done
