#!/usr/bin/env bash
# The Kafka listener's security cost, in one run against one `troupe serve`
# (the embedded node, three brokers) with PLAINTEXT, SASL_PLAINTEXT and
# SASL_SSL listeners (certificates made with tests/lib/certs.py):
#
#   - librdkafka producing acks=all (1 KiB records, linger.ms=5) over
#     PLAINTEXT and over SASL_SSL with SCRAM-SHA-512, alternated, each
#     ROUNDS times: records/s and MB/s as fast as the producer goes, then
#     p50 and p99 of produce-to-ack at RATE records/s (below saturation,
#     so that the latency is the broker's, not the producer's queue), and
#     the SASL_SSL/PLAINTEXT ratios (issue 21's target: >= 0.7);
#   - new connections per second, each authenticated with SCRAM-SHA-512 at
#     4096 iterations (and verified), from THREADS client threads, over
#     SASL_PLAINTEXT and SASL_SSL.
#
#   bench/security/produce_bench.sh            # ~1 minute
#   SECONDS_EACH=5 ROUNDS=1 THREADS=2 bench/security/produce_bench.sh
#   TROUPE=/path/to/troupe BENCH=/path/to/produce_bench bench/security/produce_bench.sh
#
# Builds troupe and produce_bench in build/ unless TROUPE and BENCH are
# given. Prints a markdown table; the server log stays in $OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds="${SECONDS_EACH:-8}"
rounds="${ROUNDS:-2}"
threads="${THREADS:-4}"
rate="${RATE:-5000}"
out="${OUT:-$(mktemp -d /tmp/security-bench-XXXXXX)}"
troupe="${TROUPE:-}"
bench="${BENCH:-}"
if [[ -z "$troupe" || -z "$bench" ]]; then
  cmake --build build --parallel 2 --target troupe produce_bench >"$out/build.log"
  troupe="${troupe:-build/troupe}"
  bench="${bench:-build/produce_bench}"
fi

/usr/bin/python3 tests/lib/certs.py "$out/pki" >/dev/null
base=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, "tests/lib"); from ports import free_port_range; print(free_port_range(9))')
plain=$base
sasl_ssl=$((base + 3))
sasl_plain=$((base + 6))
jaas='org.apache.kafka.common.security.plain.PlainLoginModule required user_admin="admin-secret";'
"$troupe" serve --http-port 0 --log-level warn \
  --override "log.dirs=$out/logs" --override "port=$plain" \
  --override "listeners=PLAINTEXT://127.0.0.1:$plain,SASL_SSL://127.0.0.1:$sasl_ssl,SASL_PLAINTEXT://127.0.0.1:$sasl_plain" \
  --override "ssl.keystore.location=$out/pki/server-keystore.pem" \
  --override "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512" \
  --override "listener.name.sasl_ssl.plain.sasl.jaas.config=$jaas" \
  --override "listener.name.sasl_plaintext.plain.sasl.jaas.config=$jaas" \
  --override num.partitions=3 --override default.replication.factor=3 \
  --override min.insync.replicas=2 >"$out/troupe.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q "Kafka listeners on $plain" "$out/troupe.log" && break
  kill -0 "$pid" || { cat "$out/troupe.log"; exit 1; }
  sleep 0.1
done

# The SCRAM user, as AdminClient would create it (4096 iterations).
/usr/bin/python3 - "$plain" <<'PY'
import sys
sys.path.insert(0, "tests/lib")
import kafka_wire as kw
res = kw.upsert_scram("127.0.0.1", int(sys.argv[1]), "bench", "bench-secret",
                      "SCRAM-SHA-512", 4096)
assert res == [("bench", 0, None)], res
PY

# Both runs with socket.nagle.disable=true (NAGLE_DISABLE=false: librdkafka's
# default). With Nagle on, librdkafka's TLS writes wait for the broker's
# delayed ACK: SASL_SSL's p99 goes from ~7 ms to ~50 ms at 5000/s while
# PLAINTEXT's stays.
common=(-X "socket.nagle.disable=${NAGLE_DISABLE:-true}")
ssl_conf=("${common[@]}" -X security.protocol=SASL_SSL -X sasl.mechanism=SCRAM-SHA-512
          -X sasl.username=bench -X sasl.password=bench-secret
          -X "ssl.ca.location=$out/pki/ca.pem")
bootstrap() { echo "127.0.0.1:$1,127.0.0.1:$(($1 + 1)),127.0.0.1:$(($1 + 2))"; }
declare -a rows
for r in $(seq "$rounds"); do
  p=$("$bench" produce --bootstrap "$(bootstrap $plain)" "${common[@]}" --seconds "$seconds" \
        --topic "bench-plain-$r" | grep '^produce')
  s=$("$bench" produce --bootstrap "$(bootstrap $sasl_ssl)" "${ssl_conf[@]}" \
        --seconds "$seconds" --topic "bench-sasl-ssl-$r" | grep '^produce')
  lp=$("$bench" produce --bootstrap "$(bootstrap $plain)" "${common[@]}" --seconds "$seconds" \
         --rate "$rate" --topic "bench-plain-rate-$r" | grep '^produce')
  ls=$("$bench" produce --bootstrap "$(bootstrap $sasl_ssl)" "${ssl_conf[@]}" \
         --seconds "$seconds" --rate "$rate" --topic "bench-sasl-ssl-rate-$r" \
         | grep '^produce')
  rows+=("PLAINTEXT|$r|$p|$lp" "SASL_SSL SCRAM-SHA-512|$r|$s|$ls")
done
c_plain=$("$bench" connect --port "$sasl_plain" --user bench \
            --password bench-secret --threads "$threads" --seconds "$seconds")
c_ssl=$("$bench" connect --port "$sasl_ssl" --user bench \
          --password bench-secret --tls "$out/pki/ca.pem" --threads "$threads" \
          --seconds "$seconds")

echo "## Produce, acks=all, 1 KiB records, linger.ms=5, socket.nagle.disable=${NAGLE_DISABLE:-true}, ${seconds} s per run"
echo
echo "| listener | run | records/s (max) | MB/s | p50 ms at $rate/s | p99 ms at $rate/s |"
echo "|---|---|---|---|---|---|"
sum_p=0; sum_s=0; p99_p=0; p99_s=0
for row in "${rows[@]}"; do
  IFS='|' read -r name run line lline <<<"$row"
  read -r _ max mb _ _ failed <<<"$line"
  read -r _ _ _ p50 p99 lfailed <<<"$lline"
  echo "| $name | $run | $max | $mb | $p50 | $p99 |"
  if [[ "$failed" != 0 || "$lfailed" != 0 ]]; then echo "(failed deliveries: $failed, $lfailed)"; fi
  if [[ "$name" == PLAINTEXT ]]; then
    sum_p=$((sum_p + max)); p99_p=$(/usr/bin/python3 -c "print($p99_p + $p99)")
  else
    sum_s=$((sum_s + max)); p99_s=$(/usr/bin/python3 -c "print($p99_s + $p99)")
  fi
done
echo
/usr/bin/python3 -c "print('SASL_SSL / PLAINTEXT: throughput %.2f (target >= 0.7), p99 %.2f x' % ($sum_s / $sum_p, $p99_s / $p99_p))"
echo
echo "## New connections authenticated with SCRAM-SHA-512 (4096 iterations), $threads client threads, ${seconds} s"
echo
echo "| listener | connections/s | failed |"
echo "|---|---|---|"
read -r _ rate failed <<<"$c_plain"; echo "| SASL_PLAINTEXT | $rate | $failed |"
read -r _ rate failed <<<"$c_ssl"; echo "| SASL_SSL | $rate | $failed |"
echo
echo "(cores: $(nproc); server log and certificates in $out)"
