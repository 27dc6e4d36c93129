#!/usr/bin/env bash
# Round trips of a move, of steps among hidden minefields and of a mine
# attack over a long network path (issue 16; BENCHMARKS.md, "Round trips").
#
#   scripts/round-trips.sh            # 20 ms each way, 20 games
#   DELAY_MS=50 GAMES=40 scripts/round-trips.sh --json
#
# Where this machine can (root, network namespaces, the kernel's netem
# qdisc), the delay is `tc netem` on the loopback device of a network
# namespace made for the run, and hexveil-load with the server it starts
# runs inside it: every datagram between them is delayed DELAY_MS each way
# by the kernel. Where it can't, it says why and uses hexveil-load's
# user-space UDP relay instead (--delay-ms: the same delay, added by the
# tool in user space). Either way the probe reports each action's latency
# in round trips of that delay (`round_trips_p50`). Extra arguments go to
# hexveil-load.
set -euo pipefail
cd "$(dirname "$0")/.."
DELAY_MS="${DELAY_MS:-20}"
GAMES="${GAMES:-20}"

cargo build --release --locked -q -p hexveil-server -p hexveil-load
LOAD="${CARGO_TARGET_DIR:-$PWD/target}/release/hexveil-load"

netem_why=""
if [ "$(id -u)" != 0 ]; then
  netem_why="not root (network namespaces and tc need it)"
elif ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  netem_why="no ip or tc (Debian's iproute2)"
else
  NS="hexveil-rt-$$"
  if ! err=$(ip netns add "$NS" 2>&1); then
    netem_why="cannot make a network namespace: $err"
  else
    trap 'ip netns del "$NS" 2>/dev/null || true' EXIT
    ip netns exec "$NS" ip link set lo up
    if err=$(ip netns exec "$NS" tc qdisc add dev lo root netem delay "${DELAY_MS}ms" 2>&1); then
      echo "round trips: tc netem, ${DELAY_MS} ms each way on loopback in network namespace $NS" >&2
      ip netns exec "$NS" "$LOAD" --probe "$GAMES" --delay-ms "$DELAY_MS" --delay-on-path "$@"
      exit $?
    fi
    netem_why="tc netem is not available in this kernel ($err)"
  fi
fi
echo "round trips: SKIPPED tc netem: $netem_why; using hexveil-load's user-space delay relay instead (${DELAY_MS} ms each way)" >&2
"$LOAD" --probe "$GAMES" --delay-ms "$DELAY_MS" "$@"
