#!/usr/bin/env bash
# CI's web step: builds the page (web/build.sh) and runs its browser tests
# in Debian's headless Chromium (docs/web.md). Needs the CLI binary the
# page is compared with (target/debug/roofline, which `cargo test` builds).
# Installs what it needs itself: chromium with apt-get, playwright-core
# with npm ci; the wasm toolchain is web/build.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n== web: %s (%ss)\n' "$*" "$SECONDS"; }
die() { printf 'web: %s\n' "$*" >&2; exit 1; }

step "formatting and lints of the web crate"
cargo fmt --check --manifest-path web/Cargo.toml || die "web/: run cargo fmt --manifest-path web/Cargo.toml"
cargo clippy --manifest-path web/Cargo.toml --all-targets --locked -- -D warnings ||
    die "web/: cargo clippy found problems"

BIN=target/debug/roofline
[ -x "$BIN" ] || cargo build --locked
[ -x "$BIN" ] || die "no $BIN to compare the page with"

if ! [ -x /usr/bin/chromium ]; then
    step "installing Debian's chromium"
    [ "$(id -u)" = 0 ] || die "installing chromium needs root (apt-get install chromium chromium-driver)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq || die "apt-get update failed"
    apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null ||
        die "apt-get install chromium chromium-driver failed"
fi
command -v node >/dev/null && command -v npm >/dev/null || die "node and npm are needed for the browser tests"

step "building the page"
web/build.sh || die "web/build.sh failed"

step "installing playwright-core (no browser download)"
(cd web/tests && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error) ||
    die "npm ci in web/tests failed"

step "browser tests"
(cd web/tests && ROOFLINE_BIN="$PWD/../../$BIN" node --test --test-concurrency=1 page.test.mjs) ||
    die "the browser tests failed"
step "done"
