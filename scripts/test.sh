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
# Each test binary runs through scripts/timed-run.sh, which notes how long it took.
times=$(mktemp "${TMPDIR:-/tmp}/basalt-test-times.XXXXXX")
export BASALT_TEST_TIMES=$times
export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=$PWD/scripts/timed-run.sh
phase() { # name start
    echo "test.sh: $1 took $(($(date +%s) - $2)) s"
}
t0=$(date +%s)
cargo test --workspace --release -q --no-fail-fast || status=$?
phase "the workspace's tests" "$t0"
t0=$(date +%s)
if command -v mariadb-install-db >/dev/null 2>&1; then
    cargo test --workspace --release -q --no-fail-fast -- --ignored || status=$?
else
    echo "test.sh: mariadb-server not installed; differential tests skipped" >&2
fi
phase "the differential tests" "$t0"
echo "test.sh: slowest test binaries (seconds, binary, arguments):"
sort -rn "$times" | head -15
rm -f "$times"
unset BASALT_TEST_TIMES CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER
t0=$(date +%s)
if cargo fuzz --version >/dev/null 2>&1; then
    bash scripts/fuzz.sh || status=$?
    phase "the fuzz targets" "$t0"
else
    echo "test.sh: cargo-fuzz not installed; fuzz targets skipped" >&2
fi
exit "$status"
