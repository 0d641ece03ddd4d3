#!/usr/bin/env bash
# Runs each cargo-fuzz target of crates/protocol/fuzz for a bounded time (default
# 40 s each; FUZZ_SECONDS=N to change, FUZZ_TARGETS="a b" to pick targets) on the
# stable toolchain (RUSTC_BOOTSTRAP=1 lets cargo-fuzz pass its -Z flags). Fails when a
# target crashes, printing the crashing input in hex and base64.
#
# Built without a sanitizer: the protocol and common crates have no unsafe code, so
# AddressSanitizer would only slow the run; debug assertions and overflow checks are
# on (-a). The build goes to target/fuzz, the corpus (seeded below) and any crash
# artifacts to a temporary directory removed at exit, and the fuzz crate's lock
# file is a copy of the workspace's (same dependency versions as the tests use),
# removed at exit too: nothing is left in the checkout.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${FUZZ_SECONDS:-40}
targets=${FUZZ_TARGETS:-"command stmt_execute handshake_response packets"}

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: cargo-fuzz not installed (bash scripts/install-test-deps.sh installs it)" >&2
    exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/basalt-fuzz.XXXXXX")
lock=crates/protocol/fuzz/Cargo.lock
cleanup() {
    rm -rf "$work"
    rm -f "$root/$lock"
}
trap cleanup EXIT
cp Cargo.lock "$lock"

export RUSTC_BOOTSTRAP=1
fuzz=(cargo fuzz)
opts=(--fuzz-dir crates/protocol/fuzz -s none -a --target-dir "$root/target/fuzz")

# A few well-formed inputs per target, so the short runs start past the first bytes.
seed() { # target name bytes(printf %b)
    mkdir -p "$work/corpus/$1"
    printf '%b' "$3" >"$work/corpus/$1/$2"
}
caps='\xff\xff\xff\xff'
seed command query "$caps\x03select 1"
seed command execute "$caps\x17\x01\0\0\0\x00\x01\0\0\0"
seed command long_data "$caps\x18\x01\0\0\0\x02\0abc"
seed command fetch "$caps\x1c\x01\0\0\0\x0a\0\0\0"
seed command field_list "$caps\x04t1\0c%"
seed command set_option "$caps\x1b\x01\0"
seed command change_user "$caps\x11bob\0\x03abcdb1\0\x2d\0mysql_native_password\0\x0b\x03k_1\x02v1\x02k2\x00"
# n=3 parameters, bound LONG/STRING/DATETIME; the execute sends new types and values.
seed stmt_execute three "\x03\x03\xfe\x0c\x17\x01\0\0\0\x00\x01\0\0\0\x00\x01\x03\0\xfe\0\x0c\0\x2a\0\0\0\x03abc\x07\xe8\x07\x01\x02\x03\x04\x05"
seed stmt_execute decimal_time "\x02\xf6\x0b\x17\x01\0\0\0\x00\x01\0\0\0\x00\x01\xf6\0\x0b\0\x041.50\x0c\x01\x02\0\0\0\x03\x04\x05\x06\0\0\0"
seed stmt_execute nulls "\x09\x08\x08\x08\x08\x08\x08\x08\x08\x08\x17\x07\0\0\0\x01\x01\0\0\0\xff\x01\x01$(printf '\\x08\\x80%.0s' 1 2 3 4 5 6 7 8 9)"
hs='\x0d\xa2\x3e\x01\0\0\0\x01\x2d'
hs+='\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
seed handshake_response native "${hs}root\0\x14abcdefghijklmnopqrstdb1\0mysql_native_password\0\x0b\x03k_1\x02v1\x02k2\x00"
seed handshake_response ssl_request '\x00\x0a\xaa\x01\0\0\0\x01\x2d\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0'
seed packets two "\x09\0\0\0\x03select 1\x01\0\0\x01\x0e"
seed packets empty_tail "\x00\0\0\0\x05\0\0\x01hello"

echo "fuzz: building the targets"
if ! "${fuzz[@]}" build "${opts[@]}" >"$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    echo "fuzz.sh: building the fuzz targets failed" >&2
    exit 1
fi

passed=0
failed=0
for t in $targets; do
    mkdir -p "$work/corpus/$t" "$work/artifacts/$t"
    log="$work/$t.log"
    start=$(date +%s)
    "${fuzz[@]}" run "${opts[@]}" "$t" "$work/corpus/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
        -artifact_prefix="$work/artifacts/$t/" >"$log" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
    runs=$(grep -o 'Done [0-9]* runs' "$log" | tail -1)
    if [ "$rc" -eq 0 ]; then
        passed=$((passed + 1))
        echo "fuzz: $t ok (${runs:-no run count}, ${took}s, $(ls "$work/corpus/$t" | wc -l) corpus entries)"
        continue
    fi
    failed=$((failed + 1))
    echo "fuzz: $t FAILED (exit $rc after ${took}s); the fuzzer's last lines:"
    tail -n 60 "$log"
    for a in "$work/artifacts/$t"/*; do
        [ -f "$a" ] || continue
        echo "fuzz: crashing input $(basename "$a") ($(wc -c <"$a") bytes):"
        od -A x -t x1z -v "$a" | head -n 64
        echo "fuzz: base64 (decode to a file, then: cargo fuzz run --fuzz-dir crates/protocol/fuzz $t FILE):"
        base64 -w0 "$a"
        echo
    done
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
