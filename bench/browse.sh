#!/usr/bin/env bash
# Figures for `nerd browse`: browser launch, load, capture, projection into
# facts and the kernel's derivation, on real pages (the Rust book and the
# standard library's reference as rustup installed them, and a small form),
# served on 127.0.0.1; then the whole command against Chromium's own
# `--dump-dom` of the same page (what a user would otherwise run: the DOM as
# text, without boxes, styles or accessibility), with farm-bench.
# Usage: bench/browse.sh [NERD_BINARY]   (default: target/release/nerd)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
nerd=${1:-$top/target/release/nerd}
docs=$(rustc --print sysroot)/share/doc/rust/html
[ -d "$docs" ] || { echo "no Rust HTML docs under $docs (rustup component add rust-docs)"; exit 1; }
work=$(mktemp -d)
trap 'kill $server 2>/dev/null; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/site" "$work/config/nerd" "$work/ws"
ln -s "$docs" "$work/site/docs"
cat > "$work/site/form.html" <<'HTML'
<!doctype html><title>Sign up</title><form><input type=checkbox id=t> <span>Agree</span>
<label for=n>Name</label> <input id=n type=text><button>Send</button></form>
HTML
(cd "$work/site" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) & server=$!
printf '[policy]\nallow_hosts = ["127.0.0.1:%s"]\n' "$port" > "$work/config/nerd/config.toml"
git -C "$work/ws" init -q
export XDG_CONFIG_HOME=$work/config
sleep 0.5
pages=(form.html docs/book/ch04-01-what-is-ownership.html docs/std/vec/struct.Vec.html docs/book/print.html)
printf '%-45s %7s %6s %7s %7s %7s %7s %7s %9s\n' page nodes cut launch load capture project derive facts
for p in "${pages[@]}"; do
  url="http://127.0.0.1:$port/$p"
  for run in 1 2 3; do
    (cd "$work/ws" && "$nerd" browse "$url" --json) > "$work/out.json"
  done
  python3 - "$p" "$work/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[2])); s = d["steps"][0]
print(f'{sys.argv[1][-45:]:<45} {s["nodes"]:>7} {s["cut"]:>6} {s["launch_ms"]:>5}ms {s["load_ms"]:>5}ms {s["capture_ms"]:>5}ms '
      f'{s["projection_ms"]:>5}ms {d["derive_ms"]:>5}ms {len(d["facts"]):>9}')
PY
done
chromium=$(command -v chromium || command -v chromium-browser)
flags="--headless --disable-gpu --disable-background-networking --disable-component-update --no-first-run --disable-sync --disable-quic"
[ "$(id -u)" = 0 ] && flags="$flags --no-sandbox"
for p in form.html docs/std/vec/struct.Vec.html; do
  url="http://127.0.0.1:$port/$p"
  echo "== $p: nerd browse --json (A) against chromium --dump-dom (B)"
  farm-bench -n 5 --timeout 600 --vs "sh -c 'exec $chromium $flags --user-data-dir=$work/prof-\$\$ --dump-dom $url'" \
    -- sh -c "cd $work/ws && exec $nerd browse $url --json" | tail -6
done
