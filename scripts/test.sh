#!/usr/bin/env bash
# Runs every test: the workspace's unit and end-to-end tests, then the differential
# tests against a real MariaDB (marked #[ignore] because they need mariadb-server,
# which .ci/run installs), then the protocol fuzz targets for a bounded time
# (scripts/fuzz.sh; needs cargo-fuzz, which scripts/install-test-deps.sh installs).
# --no-fail-fast and running every part whatever the ones before gave: one failing
# test binary does not hide the others' results.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
cargo test --workspace --release -q --no-fail-fast || status=$?
if command -v mariadb-install-db >/dev/null 2>&1; then
    cargo test --workspace --release -q --no-fail-fast -- --ignored || status=$?
else
    echo "test.sh: mariadb-server not installed; differential tests skipped" >&2
fi
if cargo fuzz --version >/dev/null 2>&1; then
    bash scripts/fuzz.sh || status=$?
else
    echo "test.sh: cargo-fuzz not installed; fuzz targets skipped" >&2
fi
exit "$status"
