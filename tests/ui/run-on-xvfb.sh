#!/usr/bin/env bash
# Runs one UI test (the arguments) on an X server of its own. Xvfb chooses a free display itself and names it on a
# file descriptor once it accepts connections (-displayfd), so tests run side by side never race for a display number
# and none starts before its server is up. xvfb-run's lock-file search and its SIGUSR1 handshake can do either when
# the machine is loaded (a signal that comes before its `wait` leaves it waiting for ever).
set -uo pipefail
dir=$(mktemp -d "${TMPDIR:-/tmp}/ws-xvfb.XXXXXX")
xvfb= test_pid=
cleanup() {
  [[ -n $test_pid ]] && kill "$test_pid" 2>/dev/null
  [[ -n $xvfb ]] && kill "$xvfb" 2>/dev/null && wait "$xvfb" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$dir/display" >"$dir/xvfb.log" 2>&1 &
xvfb=$!
for _ in $(seq 300); do  # thirty seconds at most
  [[ $(wc -l <"$dir/display") -ge 1 ]] && break
  if ! kill -0 "$xvfb" 2>/dev/null; then
    echo "run-on-xvfb: Xvfb did not start:" >&2
    cat "$dir/xvfb.log" >&2
    xvfb=
    exit 1
  fi
  sleep 0.1
done
display=$(head -n1 "$dir/display")
if [[ ! $display =~ ^[0-9]+$ ]]; then
  echo "run-on-xvfb: Xvfb named no display within thirty seconds" >&2
  exit 1
fi
unset XAUTHORITY
DISPLAY=":$display" "$@" &
test_pid=$!
wait "$test_pid"
status=$?
test_pid=
exit $status
