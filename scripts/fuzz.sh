#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ with clang (ASan + UBSan) into
# ./build-fuzz and runs each for the given number of seconds (default 30):
# every target, or the ones named after the seconds.
# The corpus grows in build-fuzz/corpus/<target>; crashes land beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
shift || true
command -v clang++ >/dev/null || ./scripts/setup.sh

out=build-fuzz
targets=(kafka_frame_fuzz record_batch_fuzz legacy_records_fuzz sasl_plain_fuzz
         scram_fuzz)
if [ "$#" -gt 0 ]; then targets=("$@"); fi
# Every domain/kafka/*_messages.cpp: protocol.cpp dispatches to all of them.
sources=(domain/kafka/wire.cpp domain/kafka/protocol.cpp
         domain/kafka/*_messages.cpp domain/error_code.cpp
         domain/log/record_batch.cpp domain/log/crc32c.cpp)
# The SASL targets need only the security core (and libcrypto).
security_sources=(domain/base64.cpp domain/security/acl.cpp
                  domain/security/scram.cpp domain/security/sasl.cpp
                  domain/security/security_store.cpp)
# Every translation unit is compiled once, with the fuzzer's coverage but
# not its main, on every core; each target then links the objects it needs.
cflags=(-std=c++17 -O1 -g -fno-omit-frame-pointer -I.
        -fsanitize=fuzzer-no-link,address,undefined
        -fno-sanitize-recover=undefined)
jobs=$(nproc)
obj="$out/obj"
mkdir -p "$obj"
object() { printf '%s/%s.o' "$obj" "${1//\//_}"; }
units_of() {
  case "$1" in
    sasl_plain_fuzz | scram_fuzz) echo "fuzz/$1.cpp ${security_sources[*]}" ;;
    legacy_records_fuzz)
      echo "fuzz/$1.cpp ${sources[*]} domain/log/legacy_records.cpp domain/log/compression.cpp" ;;
    make_seeds) echo "fuzz/make_seeds.cpp ${sources[*]}" ;;
    *) echo "fuzz/$1.cpp ${sources[*]}" ;;
  esac
}
libs_of() {
  case "$1" in
    sasl_plain_fuzz | scram_fuzz) echo "-lcrypto" ;;
    legacy_records_fuzz) echo "-lz -llz4 -lsnappy" ;;
  esac
}
# The Kafka targets' seeds come from fuzz/make_seeds.cpp, when one runs.
programs=("${targets[@]}")
case " ${targets[*]} " in
  *" kafka_frame_fuzz "* | *" record_batch_fuzz "*) programs+=(make_seeds) ;;
esac
units=$(for p in "${programs[@]}"; do units_of "$p" | tr ' ' '\n'; done | sort -u)
echo "fuzz: compiling $(echo "$units" | wc -l) translation units on $jobs cores"
pids=()
for unit in $units; do
  clang++ "${cflags[@]}" -c "$unit" -o "$(object "$unit")" &
  pids+=("$!")
  if [ "${#pids[@]}" -ge "$jobs" ]; then
    wait "${pids[0]}"
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
for p in "${programs[@]}"; do
  echo "fuzz: linking $p"
  # make_seeds has a main of its own: no libFuzzer driver.
  link=fuzzer
  [ "$p" = make_seeds ] && link=fuzzer-no-link
  # shellcheck disable=SC2046 # the object and library lists split on spaces
  clang++ -fsanitize="$link",address,undefined \
    $(for u in $(units_of "$p"); do object "$u"; echo; done) \
    $(libs_of "$p") -o "$out/$p"
done
for target in "${targets[@]}"; do mkdir -p "$out/corpus/$target"; done
# The legacy target's seeds: a plain magic 0 and a plain magic 1 message
# (the golden bytes of tests/domain/log_legacy_records_tests.cpp).
seed_hex() { mkdir -p "$out/corpus/$1"; printf '%s' "$3" | xxd -r -p > "$out/corpus/$1/$2"; }
seed_hex legacy_records_fuzz v0 0000000000000005000000101fecd70a0000000000016b0000000176
seed_hex legacy_records_fuzz v1 0000000000000007000000191cff7dfc01000000018bcfe56800ffffffff00000003616263
# The Kafka targets' seeds (fuzz/make_seeds.cpp).
if [ -x "$out/make_seeds" ] && [[ " ${programs[*]} " == *" make_seeds "* ]]; then
  "$out/make_seeds" "$out/corpus"
fi
# SASL seeds: PLAIN tokens, JAAS lines, SCRAM messages (the first byte picks
# SHA-256/512 and whether a genuine client-first comes first) and Kafka's
# credential text.
seed() { mkdir -p "$out/corpus/$1"; printf "$3" > "$out/corpus/$1/$2"; }
seed sasl_plain_fuzz plain '\0alice\0alice-secret'
seed sasl_plain_fuzz plain_authzid 'alice\0alice\0alice-secret'
seed sasl_plain_fuzz jaas 'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_alice="alice-secret";'
seed sasl_plain_fuzz jaas2 "a.B optional /* c */ k='v' // x\n; c.D sufficient;"
seed scram_fuzz first '\000n,,n=user,r=abc\nc=biws,r=abcfixed-server-nonce,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='
seed scram_fuzz genuine '\003c=biws,r=client-noncefixed-server-nonce,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='
seed scram_fuzz ext '\001n,a=user,n=us=2Cer,r=abc,tokenauth=true\n'
seed scram_fuzz credential '\000salt=AQIDBA==,stored_key=AAAA,server_key=AAAA,iterations=4096'

for target in "${targets[@]}"; do
  echo "fuzz: running $target for ${seconds}s"
  "$out/$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$out/$target-" "$out/corpus/$target"
done
