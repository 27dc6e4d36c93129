#!/usr/bin/env bash
# Throughput of one hexveil-server node on PostgreSQL against one on SQLite,
# with the same hexveil-load command, one right after the other (issue 13;
# BENCHMARKS.md). Starts a throwaway PostgreSQL cluster on loopback (as
# the postgres user when root; Debian's postgresql package, as .ci/run
# installs it), stops it at the end.
#
#   scripts/pg-vs-sqlite.sh            # 20 games, 5 s each
#   GAMES=100 SECS=10 scripts/pg-vs-sqlite.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES="${GAMES:-20}"
SECS="${SECS:-5}"
PGBIN="${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
  echo "pg-vs-sqlite: no PostgreSQL server binaries (apt-get install postgresql)" >&2
  exit 2
fi
cargo build --release --locked -q -p hexveil-server -p hexveil-load
BIN="${CARGO_TARGET_DIR:-$PWD/target}/release"
DIR="$(mktemp -d)"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
PORT=$((20000 + RANDOM % 20000))
as_pg "$PGBIN/initdb" -D "$DIR/pg" -A trust -U postgres >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$DIR/pg" -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1" -l "$DIR/pg.log" -w start >/dev/null
NODE=""
cleanup() {
  [ -n "$NODE" ] && kill "$NODE" 2>/dev/null || true
  as_pg "$PGBIN/pg_ctl" -D "$DIR/pg" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT

echo "loadavg before: $(cat /proc/loadavg)" >&2
"$BIN/hexveil-load" --games "$GAMES" --secs "$SECS" --json --quiet --no-floor > "$DIR/sqlite.json"
echo "loadavg between: $(cat /proc/loadavg)" >&2
# The limits hexveil-load gives a server it starts (load/src/server.rs).
mkdir -p "$DIR/node"
"$BIN/hexveil-server" --listen 127.0.0.1:0 --data-dir "$DIR/node" \
  --store "postgres://postgres@127.0.0.1:$PORT/postgres" \
  --rate-per-second 100000 --rate-burst 100000 --max-connections 4096 \
  --max-connections-per-address 4096 --max-unfinished-games 1024 --max-pad-len 4096 \
  > "$DIR/node.out" 2> "$DIR/node.log" &
NODE=$!
for _ in $(seq 1 100); do grep -q '^listening ' "$DIR/node.out" 2>/dev/null && break; sleep 0.1; done
FP="$(sed -n 's/^fingerprint //p' "$DIR/node.out")"
ADDR="$(sed -n 's/^listening //p' "$DIR/node.out")"
"$BIN/hexveil-load" --connect "$ADDR" --fingerprint "$FP" --server-pid "$NODE" \
  --games "$GAMES" --secs "$SECS" --json --quiet --no-floor > "$DIR/pg.json"
echo "loadavg after: $(cat /proc/loadavg)" >&2
python3 - "$DIR/sqlite.json" "$DIR/pg.json" <<'PY'
import json, sys
rows = [(name, json.load(open(path))) for name, path in zip(["sqlite", "postgres"], sys.argv[1:])]
for name, s in rows:
    print(f"{name:<9} actions/s {s['actions_per_sec']:8.0f} | p50 {s['latency_us']['p50']/1000:6.1f} ms p99 {s['latency_us']['p99']/1000:6.1f} ms"
          f" | hexveil-server CPU/action {s['server_cpu_us_per_action']:6.0f} us | errors {s['errors']} refusals {s['refusals']}")
print(f"postgres over sqlite, actions/s: {rows[1][1]['actions_per_sec'] / rows[0][1]['actions_per_sec']:.2f}")
PY
