#!/usr/bin/env bash
# Throughput of hexveil-server on PostgreSQL against SQLite, with the same
# hexveil-load command (issues 13 and 25; BENCHMARKS.md). Starts a
# throwaway PostgreSQL cluster on loopback (as the postgres user when root;
# Debian's postgresql package, as .ci/run installs it), stops it at the end.
#
# 1. A warm-up: one SQLite run and one PostgreSQL run, not reported (the
#    first run after a build or a fresh cluster pays for cold caches: its
#    figures were half the warm ones).
# 2. PAIRS pairs, each one SQLite run right after one PostgreSQL run on one
#    node, in turn; each pair's ratio and the median ratio are printed.
# 3. Two nodes on the same database, the games split between them (two
#    hexveil-load runs at once, each on its node): their total against the
#    last one-node run.
#
# Every run also reports how busy the machine's CPUs were during it (all
# processes: the bots, the nodes, PostgreSQL, and anything else running),
# and every PostgreSQL run the CPU the PostgreSQL processes spent
# (hexveil-server's own is in the load tool's figure); the load average is
# printed before each step: the machine may be shared, and 2 cores run the
# bots, the nodes and PostgreSQL together.
#
#   scripts/pg-vs-sqlite.sh                 # 20 games, 5 s a run, 3 pairs
#   GAMES=100 SECS=10 PAIRS=5 scripts/pg-vs-sqlite.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GAMES="${GAMES:-20}"
SECS="${SECS:-5}"
PAIRS="${PAIRS:-3}"
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
URL="postgres://postgres@127.0.0.1:$PORT/postgres"
NODES=()
cleanup() {
  # SIGTERM drains each node (its leases released) before the cluster stops.
  for n in "${NODES[@]}"; do kill "$n" 2>/dev/null || true; done
  for n in "${NODES[@]}"; do wait "$n" 2>/dev/null || true; done
  as_pg "$PGBIN/pg_ctl" -D "$DIR/pg" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
# The limits hexveil-load gives a server it starts (load/src/server.rs).
LIMITS=(--rate-per-second 100000 --rate-burst 100000 --max-connections 4096
  --max-connections-per-address 4096 --max-unfinished-games 100000
  --max-unfinished-games-per-key 100000 --max-pad-len 4096)

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
TICKS="$(getconf CLK_TCK)"
# CPU seconds the PostgreSQL processes have used so far.
pg_cpu() {
  cat /proc/[0-9]*/stat 2>/dev/null |
    awk -v t="$TICKS" '$2 == "(postgres)" { s += $14 + $15 } END { print s / t }'
}
# The machine's CPU time so far: busy and in all (clock ticks).
cpu_now() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
# measure OUT COMMAND...: runs it and writes to OUT.cpu the PostgreSQL CPU
# seconds and the machine's busy share during it.
measure() {
  local out="$1"; shift
  local pg0 c0 pg1 c1
  pg0="$(pg_cpu)"; c0="$(cpu_now)"
  "$@"
  pg1="$(pg_cpu)"; c1="$(cpu_now)"
  echo "$pg0 $c0 $pg1 $c1" | awk '{ print $4 - $1, ($5 - $2) / ($6 - $3) }' > "$out.cpu"
}

# start_node NAME: a node on the cluster with its own data directory
# (the first node's secrets and certificate copied in); sets ADDR, FP, PID.
start_node() {
  local name="$1" dir="$DIR/$1"
  mkdir -p "$dir"
  if [ -d "$DIR/n1" ] && [ "$name" != n1 ]; then
    cp "$DIR/n1/"{tls-cert.der,tls-key.pk8,transcript-key.pk8,pad-master.key} "$dir/"
  fi
  "$BIN/hexveil-server" --listen 127.0.0.1:0 --data-dir "$dir" --store "$URL" "${LIMITS[@]}" \
    > "$dir/out" 2> "$dir/log" &
  PID=$!
  NODES+=("$PID")
  for _ in $(seq 1 200); do grep -q '^listening ' "$dir/out" 2>/dev/null && break; sleep 0.05; done
  FP="$(sed -n 's/^fingerprint //p' "$dir/out")"
  ADDR="$(sed -n 's/^listening //p' "$dir/out")"
}

sqlite_run() { "$BIN/hexveil-load" --games "$GAMES" --secs "$SECS" --json --quiet --no-floor > "$1"; }
# pg_run OUT ADDR FP PID GAMES
pg_run() {
  "$BIN/hexveil-load" --connect "$2" --fingerprint "$3" --server-pid "$4" \
    --games "$5" --secs "$SECS" --json --quiet --no-floor > "$1"
}

start_node n1
N1=("$ADDR" "$FP" "$PID")
echo "warm-up (not reported), load average $(loadavg)" >&2
sqlite_run "$DIR/warm-sqlite.json"
pg_run "$DIR/warm-pg.json" "${N1[@]}" "$GAMES"
for i in $(seq 1 "$PAIRS"); do
  echo "pair $i, load average $(loadavg)" >&2
  measure "$DIR/sqlite-$i" sqlite_run "$DIR/sqlite-$i.json"
  measure "$DIR/pg-$i" pg_run "$DIR/pg-$i.json" "${N1[@]}" "$GAMES"
done
start_node n2
N2=("$ADDR" "$FP" "$PID")
echo "two nodes, load average $(loadavg)" >&2
two() {
  pg_run "$DIR/two-1.json" "${N1[@]}" $((GAMES / 2)) &
  local first=$!
  pg_run "$DIR/two-2.json" "${N2[@]}" $((GAMES - GAMES / 2))
  wait "$first"
}
measure "$DIR/two" two
echo "load average after: $(loadavg)" >&2

python3 - "$DIR" "$PAIRS" "$SECS" <<'PY'
import json, statistics, sys
d, pairs, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
load = lambda name: json.load(open(f"{d}/{name}.json"))
cpu = lambda name: [float(x) for x in open(f"{d}/{name}.cpu").read().split()]
def line(name, s, run=None, pg=False):
    extra = ""
    if run is not None:
        pg_secs, busy = cpu(run)
        if pg:
            per_action = pg_secs / max(s["actions"], 1) * 1e6
            extra += f" | PostgreSQL CPU {pg_secs / secs * 100:4.0f} % of a core, {per_action:4.0f} us/action"
        extra += f" | CPUs busy {busy * 100:3.0f} %"
    return (f"{name:<18} actions/s {s['actions_per_sec']:6.0f} | p50 {s['latency_us']['p50']/1000:5.1f} ms"
            f" p99 {s['latency_us']['p99']/1000:5.1f} ms | hexveil-server CPU/action"
            f" {s['server_cpu_us_per_action']:4.0f} us | errors {s['errors']} refusals {s['refusals']}{extra}")
ratios = []
for i in range(1, pairs + 1):
    sq, pg = load(f"sqlite-{i}"), load(f"pg-{i}")
    print(line(f"pair {i} sqlite", sq, f"sqlite-{i}"))
    print(line(f"pair {i} postgres", pg, f"pg-{i}", True))
    ratios.append(pg["actions_per_sec"] / sq["actions_per_sec"])
    print(f"pair {i} postgres over sqlite, actions/s: {ratios[-1]:.2f}")
print(f"median postgres over sqlite, actions/s: {statistics.median(ratios):.2f} (pairs: {', '.join(f'{r:.2f}' for r in ratios)})")
a, b = load("two-1"), load("two-2")
print(line("two nodes: node 1", a))
print(line("two nodes: node 2", b))
total = a["actions_per_sec"] + b["actions_per_sec"]
one = load(f"pg-{pairs}")["actions_per_sec"]
pg_secs, busy = cpu("two")
per_action = pg_secs / max(a["actions"] + b["actions"], 1) * 1e6
print(f"two nodes in all: actions/s {total:.0f} ({total / one:.2f}x the last one-node run) | PostgreSQL CPU {pg_secs / secs * 100:.0f} % of a core, {per_action:.0f} us/action | CPUs busy {busy * 100:.0f} %")
PY
