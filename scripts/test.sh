#!/usr/bin/env bash
# Runs every test: the workspace's unit and end-to-end tests, then the differential
# tests against a real MariaDB (marked #[ignore] because they need mariadb-server,
# which .ci/run installs). --no-fail-fast and running both parts whatever the first
# gives: one failing test binary does not hide the others' results.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
cargo test --workspace --release -q --no-fail-fast || status=$?
if command -v mariadb-install-db >/dev/null 2>&1; then
    cargo test --workspace --release -q --no-fail-fast -- --ignored || status=$?
else
    echo "test.sh: mariadb-server not installed; differential tests skipped" >&2
fi
exit "$status"
