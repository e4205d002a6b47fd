#!/usr/bin/env bash
# Fetch eight real third-party projects WITH their own test suites from the package registries,
# each committed as its own git repository, as ground for the call-site truth under bench/truth/.
#
#   usage: eight.sh DEST               (idempotent: existing projects are kept)
#
#   DEST/py-click      click 8.1.8 sdist (pytest)            DEST/py-requests  requests 2.32.3 sdist (pytest)
#   DEST/rs-anyhow     anyhow 1.0.104 crate (cargo test)     DEST/rs-semver    semver 1.0.23 crate (cargo test)
#   DEST/rs-itertools  itertools 0.13.0 crate (cargo test)
#   DEST/go-pflag      Debian golang-github-spf13-pflag-dev (go test)
#   DEST/go-testify    Debian golang-github-stretchr-testify-dev (go test)
#   DEST/ts-zod        zod 3.25.76 npm package: TypeScript sources with their tests
# Test dependencies are the caller's job (a venv with pytest, cargo, go, node).
set -euo pipefail
dest=${1:?usage: eight.sh DEST}
mkdir -p "$dest"; dest=$(cd "$dest" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
commit() { (cd "$1" && git init -q && git add -A && git -c user.name=bench -c user.email=bench@nerd.invalid -c commit.gpgsign=false commit -qm "upstream sources"); }
py() { # name version dir
  [ -d "$dest/$3" ] && return
  (cd "$tmp" && python3 -m pip download -q --no-deps --no-binary :all: "$1==$2" -d . >/dev/null && tar xzf "$1-$2.tar.gz" --no-same-owner)
  mv "$tmp/$1-$2" "$dest/$3"; commit "$dest/$3"
}
rs() { # crate version dir
  [ -d "$dest/$3" ] && return
  mkdir -p "$tmp/$3/src" && printf '[package]\nname="fetch"\nversion="0.0.0"\nedition="2021"\n[dependencies]\n%s = "=%s"\n' "$1" "$2" > "$tmp/$3/Cargo.toml"
  echo 'fn main() {}' > "$tmp/$3/src/main.rs"
  (cd "$tmp/$3" && cargo vendor --quiet "$tmp/$3/v" >/dev/null)
  cp -r "$tmp/$3/v/$1" "$dest/$3"; rm -f "$dest/$3/.cargo-checksum.json"
  printf '\n[workspace]\n' >> "$dest/$3/Cargo.toml"; commit "$dest/$3"
}
deb() { # package import-path dir
  [ -d "$dest/$3" ] && return
  mkdir -p "$tmp/$3"
  (cd "$tmp/$3" && apt-get download -q "$1" >/dev/null 2>&1 && dpkg -x "$1"_*.deb x) || { echo "apt-get download $1 failed: run apt-get update first" >&2; exit 1; }
  cp -r "$tmp/$3/x/usr/share/gocode/src/$2" "$dest/$3"
  [ -f "$dest/$3/go.mod" ] || printf 'module %s\n\ngo 1.19\n' "$2" > "$dest/$3/go.mod"
  commit "$dest/$3"
}
py click 8.1.8 py-click
py requests 2.32.3 py-requests
rs anyhow 1.0.104 rs-anyhow
rs semver 1.0.23 rs-semver
rs itertools 0.13.0 rs-itertools
deb golang-github-spf13-pflag-dev github.com/spf13/pflag go-pflag
deb golang-github-stretchr-testify-dev github.com/stretchr/testify go-testify
if [ ! -d "$dest/ts-zod" ]; then
  (cd "$tmp" && npm pack --silent zod@3.25.76 >/dev/null && mkdir n && tar xzf zod-*.tgz --no-same-owner -C n)
  cp -r "$tmp/n/package" "$dest/ts-zod"; commit "$dest/ts-zod"
fi
for d in "$dest"/*/; do echo "$(basename "$d"): $(git -C "$d" ls-files | wc -l) files"; done
