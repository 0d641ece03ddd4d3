#!/usr/bin/env bash
# Runs every test: the workspace's unit and end-to-end tests, then the differential
# tests against a real MariaDB (marked #[ignore] because they need mariadb-server,
# which .ci/run installs).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release -q
if command -v mariadb-install-db >/dev/null 2>&1; then
    cargo test --workspace --release -q -- --ignored
else
    echo "test.sh: mariadb-server not installed; differential tests skipped" >&2
fi
