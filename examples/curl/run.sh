#!/usr/bin/env bash
# The standalone server from any language's point of view: plain HTTP with curl.
# Usage: bash run.sh            (runs `npx model-gateway-mock`; MOCK=... to run another command)
set -euo pipefail
MOCK=${MOCK:-npx model-gateway-mock}
log=$(mktemp)
# --port 0: the system picks a free port; the server prints its address.
$MOCK --port 0 --seed 7 >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 600); do  # a hang detector only: start-up never takes a minute
  url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$log")
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "the server did not start:"; cat "$log"; exit 1; }

echo "== health"
curl -fsS "$url/__admin/health"; echo

echo "== pin a reply (a fixture), then ask for it"
curl -fsS "$url/__admin/fixtures" -H 'content-type: application/json' \
  -d '{"name": "capital", "match": {"userMessage": {"contains": "capital of France"}}, "reply": {"text": "Paris."}}' >/dev/null
curl -fsS "$url/v1/chat/completions" -H 'authorization: Bearer sk-test' -H 'content-type: application/json' \
  -d '{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "What is the capital of France?"}]}'
echo

echo "== stream a synthesized reply (server-sent events)"
curl -fsSN "$url/v1/chat/completions" -H 'authorization: Bearer sk-test' -H 'content-type: application/json' \
  -d '{"model": "gpt-4o-mini", "stream": true, "messages": [{"role": "user", "content": "Say something"}]}'

echo "== a wrong key gets OpenAI's 401"
curl -sS -o /dev/null -w '%{http_code}\n' "$url/v1/models" -H 'authorization: Bearer sk-wrong'

echo "== what the server received"
curl -fsS "$url/__admin/requests/count"; echo
