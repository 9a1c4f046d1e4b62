#!/usr/bin/env bash
# wrk against troupe's heartbeat and produce endpoints and, in the same run,
# against Debian's nginx serving a small static file (the ceiling for HTTP
# on this machine); requests/s and p99 latency per row.
# Usage: bench_gateway.sh TROUPE_BINARY [SECONDS]
set -euo pipefail
troupe=$1
secs=${2:-10}
conns=${CONNS:-32}
work=$(mktemp -d)
chmod 755 "$work" # nginx workers run as www-data
trap 'kill $tpid $npid 2>/dev/null || true; wait 2>/dev/null; rm -rf "$work"' EXIT
hport=18480
nport=18481

mkdir -p "$work/www" "$work/nginx"
echo '{"status":"ok"}' > "$work/www/healthz"
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx; proxy_temp_path $work/nginx;
  fastcgi_temp_path $work/nginx; uwsgi_temp_path $work/nginx;
  scgi_temp_path $work/nginx;
  server { listen 127.0.0.1:$nport; root $work/www; keepalive_requests 1000000; }
}
CONF
nginx -c "$work/nginx.conf" -g 'daemon off;' &
npid=$!
"$troupe" serve --http-port $hport --log-level warn \
  --override log.dirs="$work/logs" --override port=18492 \
  --override group.initial.rebalance.delay.ms=0 \
  --override troupe.http.admin.enable=true > "$work/troupe.log" 2>&1 &
tpid=$!
for _ in $(seq 100); do curl -sf localhost:$hport/healthz > /dev/null && break; sleep 0.1; done

curl -sf -H "Content-Type: application/json" -XPOST localhost:$hport/v1/topics -d '{"name":"bench","partitions":3,"replication_factor":3}' > /dev/null
for _ in $(seq 50); do # until the coordinator has loaded its partition
  join=$(curl -sf -H "Content-Type: application/json" -XPOST localhost:$hport/v1/groups/bench/join \
    -d '{"session_timeout_ms":60000,"protocols":[{"name":"range","topics":["bench"]}]}')
  echo "$join" | grep -q '"error_code":0' && break
  sleep 0.2
done
member=$(echo "$join" | python3 -c 'import json,sys; print(json.load(sys.stdin)["member_id"])')
gen=$(echo "$join" | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation_id"])')
curl -sf -H "Content-Type: application/json" -XPOST localhost:$hport/v1/groups/bench/sync \
  -d "{\"generation_id\":$gen,\"member_id\":\"$member\",\"assignments\":[{\"member_id\":\"$member\",\"partitions\":[{\"topic\":\"bench\",\"partitions\":[0,1,2]}]}]}" > /dev/null
curl -sf -H "Content-Type: application/json" -XPOST localhost:$hport/v1/groups/bench/heartbeat \
  -d "{\"generation_id\":$gen,\"member_id\":\"$member\"}"; echo

cat > "$work/hb.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"generation_id":$gen,"member_id":"$member"}'
wrk.headers["Content-Type"] = "application/json"
LUA
cat > "$work/produce.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"records":[{"key":"k","value":{"n":1}}]}'
wrk.headers["Content-Type"] = "application/vnd.kafka.json.v2+json"
LUA

# "rate p99": requests/s and the 99th percentile latency in ms (wrk --latency).
run() {
  wrk -t2 -c$conns -d${secs}s --latency "$@" | tee /dev/stderr | awk '
    /Requests\/sec/ { rate = $2 }
    $1 == "99%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
                  ms = (u == "us") ? v / 1000 : (u == "s") ? v * 1000 : v }
    END { printf "%s %.2f\n", rate, ms }'
}
echo "wrk -t2 -c$conns -d${secs}s, $(nproc) cores"
n=$(run http://127.0.0.1:$nport/healthz)
h=$(run -s "$work/hb.lua" http://127.0.0.1:$hport/v1/groups/bench/heartbeat)
g=$(run http://127.0.0.1:$hport/healthz)
p=$(run -s "$work/produce.lua" http://127.0.0.1:$hport/topics/bench)
base=${n%% *}
printf '\n| target | requests/s | vs nginx | p99 ms |\n|---|---|---|---|\n'
for row in "nginx static file|$n" "troupe GET /healthz|$g" "troupe POST /v1/groups/{g}/heartbeat|$h" "troupe POST /topics/{t} (acks=all, RF 3)|$p"; do
  name=${row%|*}; v=${row##*|}; r=${v% *}; l=${v#* }
  printf '| %s | %.0f | %.2f | %s |\n' "$name" "$r" "$(python3 -c "print($r/$base)")" "$l"
done
