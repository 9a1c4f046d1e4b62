#!/usr/bin/env bash
# The gateway's group heartbeat over HTTPS with HTTP Basic authentication
# (a SCRAM-SHA-512 user, 4096 iterations, under Kafka's AclAuthorizer)
# against Debian's nginx serving a small static file over HTTPS, in the
# same run, with the same certificate (issue 21's benchmark; wrk as in
# tests/http/bench_gateway.sh). Prints a table: requests/s, the ratio to
# nginx over HTTPS, p99.
# Usage: bench/security/https_gateway.sh TROUPE_BINARY [SECONDS]
# (AUTH=none: HTTPS only, no Basic and no authorizer, for comparison.)
set -euo pipefail
auth_mode=${AUTH:-basic}
troupe=$1
secs=${2:-10}
conns=${CONNS:-32}
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
chmod 755 "$work" # nginx workers run as www-data
tpid=; npid=
trap 'kill $tpid $npid 2>/dev/null || true; wait 2>/dev/null; rm -rf "$work"' EXIT
read -r hport nport kport < <(/usr/bin/python3 -c '
import sys; sys.path.insert(0, sys.argv[1] + "/tests/lib")
from ports import free_port_range
h = free_port_range(2)
print(h, h + 1, free_port_range(3))' "$here")

# Certificates: a CA and a server certificate for 127.0.0.1 (tests/lib/certs.py).
/usr/bin/python3 -c 'import sys; sys.path.insert(0, "'"$here"'/tests/lib")
from certs import make_pki; make_pki(sys.argv[1])' "$work/pki"
chmod -R a+r "$work/pki"
pki=$work/pki

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
  server {
    listen 127.0.0.1:$nport ssl; root $work/www; keepalive_requests 1000000;
    ssl_certificate $pki/server-chain.pem; ssl_certificate_key $pki/server-key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
  }
}
CONF
nginx -c "$work/nginx.conf" -g 'daemon off;' &
npid=$!
cat > "$work/server.properties" <<PROPS
log.dirs=$work/logs
port=$kport
group.initial.rebalance.delay.ms=0
troupe.http.ssl.enable=true
troupe.http.ssl.keystore.type=PEM
troupe.http.ssl.keystore.location=$pki/server-keystore.pem
troupe.http.admin.token=bench-token
PROPS
[ "$auth_mode" = basic ] && cat >> "$work/server.properties" <<PROPS
troupe.http.auth=basic
authorizer.class.name=kafka.security.authorizer.AclAuthorizer
super.users=User:ANONYMOUS
PROPS
"$troupe" serve --config "$work/server.properties" --http-port "$hport" \
  --log-level warn > "$work/troupe.log" 2>&1 &
tpid=$!
curl_t() { curl -sf --cacert "$pki/ca.pem" "$@"; }
for _ in $(seq 100); do curl_t "https://127.0.0.1:$hport/healthz" > /dev/null && break; sleep 0.1; done

# A SCRAM user and its ACLs, made through the Kafka listener (User:ANONYMOUS
# is the super user there), as an AdminClient would.
[ "$auth_mode" = basic ] && /usr/bin/python3 -c 'import sys; sys.path.insert(0, "'"$here"'/tests/http"); sys.path.insert(0, "'"$here"'/tests/lib")
from https_auth import add_scram_user, add_acls
port = int(sys.argv[1])
add_scram_user(port, "bench", "bench-secret", mechanism=2, iterations=4096)
add_acls(port, [("GROUP", "bench", "User:bench", "READ"),
                ("TOPIC", "bench", "User:bench", "READ")])' "$kport"
auth="Basic $(printf 'bench:bench-secret' | base64)"
curl_t -H "Authorization: Bearer bench-token" -H "Content-Type: application/json" \
  -XPOST "https://127.0.0.1:$hport/v1/topics" -d '{"name":"bench","partitions":3,"replication_factor":3}' > /dev/null
for _ in $(seq 50); do # until the coordinator has loaded its partition
  join=$(curl_t -H "Authorization: $auth" -H "Content-Type: application/json" \
    -XPOST "https://127.0.0.1:$hport/v1/groups/bench/join" \
    -d '{"session_timeout_ms":60000,"protocols":[{"name":"range","topics":["bench"]}]}' || true)
  echo "$join" | grep -q '"error_code":0' && break
  sleep 0.2
done
member=$(echo "$join" | python3 -c 'import json,sys; print(json.load(sys.stdin)["member_id"])')
gen=$(echo "$join" | python3 -c 'import json,sys; print(json.load(sys.stdin)["generation_id"])')
curl_t -H "Authorization: $auth" -H "Content-Type: application/json" \
  -XPOST "https://127.0.0.1:$hport/v1/groups/bench/sync" \
  -d "{\"generation_id\":$gen,\"member_id\":\"$member\",\"assignments\":[{\"member_id\":\"$member\",\"partitions\":[{\"topic\":\"bench\",\"partitions\":[0,1,2]}]}]}" > /dev/null
curl_t -H "Authorization: $auth" -H "Content-Type: application/json" \
  -XPOST "https://127.0.0.1:$hport/v1/groups/bench/heartbeat" \
  -d "{\"generation_id\":$gen,\"member_id\":\"$member\"}"; echo

cat > "$work/hb.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"generation_id":$gen,"member_id":"$member"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "$auth"
LUA

# "rate p99": requests/s and the 99th percentile latency in ms (wrk --latency).
run() {
  wrk -t2 -c$conns -d${secs}s --latency "$@" | tee /dev/stderr | awk '
    /Requests\/sec/ { rate = $2 }
    $1 == "99%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v);
                  ms = (u == "us") ? v / 1000 : (u == "s") ? v * 1000 : v }
    END { printf "%s %.2f\n", rate, ms }'
}
echo "wrk -t2 -c$conns -d${secs}s, $(nproc) cores, HTTPS (keep-alive)"
n=$(run "https://127.0.0.1:$nport/healthz")
h=$(run -s "$work/hb.lua" "https://127.0.0.1:$hport/v1/groups/bench/heartbeat")
g=$(run "https://127.0.0.1:$hport/healthz")
base=${n%% *}
printf '\n| target (HTTPS) | requests/s | vs nginx | p99 ms |\n|---|---|---|---|\n'
hb="troupe POST /v1/groups/{g}/heartbeat, Basic (SCRAM-SHA-512 user, ACLs)"
[ "$auth_mode" = basic ] || hb="troupe POST /v1/groups/{g}/heartbeat, no auth"
for row in "nginx static file|$n" "troupe GET /healthz (no auth)|$g" "$hb|$h"; do
  name=${row%|*}; v=${row##*|}; r=${v% *}; l=${v#* }
  printf '| %s | %.0f | %.2f | %s |\n' "$name" "$r" "$(python3 -c "print($r/$base)")" "$l"
done
