#!/usr/bin/env bash
# Runs MariaDB's own test suite (Debian package mariadb-test) against a running
# server, one test file at a time, and writes one line per test to OUT/results:
#   <test> <pass|fail|skip|timeout|down|runner> <seconds>
# and each failing test's diff under OUT/diff/. Run it once against MariaDB and
# once against Basalt, then compare with `scripts/mariadb-suite.sh compare A B`.
#
#   scripts/mariadb-suite.sh run PORT OUT [TEST...]   (default: every main/*.test)
#   scripts/mariadb-suite.sh compare OUT_MARIADB OUT_BASALT
#
# Between tests every database other than the system ones is dropped and `test`
# created again, so one test's leftovers do not fail the next. A server that
# stops answering is reported as `down` for the test that was running. A test
# that leaves the global variables or the accounts changed, or stops the server,
# makes the script run RESTART (a command that restores the server's pristine
# state and starts it) and wait for the server, when RESTART is set.
# The `mtr` database (mtr.add_suppression, which many tests call) is kept; load
# it with `scripts/mariadb-suite.sh mtr PORT` on a server that has procedures.
# SOCKET names the server's Unix socket (tests `connect` to localhost). Start
# both servers as the suite's own runner would: character-set-server=latin1,
# default-storage-engine=MyISAM, use-stat-tables=preferably, histogram-type=json_hb,
# secure-file-priv=OUT/var, local-infile (MariaDB takes the flags Basalt lacks).
set -u

SUITE=/usr/share/mysql/mysql-test
PER_TEST_SECONDS=${PER_TEST_SECONDS:-60}

client() {
    mariadb -h127.0.0.1 -P"$PORT" -uroot --connect-timeout=5 -N -B "$@"
}

reset_databases() {
    local dbs
    dbs=$(client -e "SELECT schema_name FROM information_schema.schemata WHERE schema_name NOT IN ('mysql','information_schema','performance_schema','sys','mtr')" 2>/dev/null) || return 1
    local sql="SET foreign_key_checks=0;"
    for db in $dbs; do sql+="DROP DATABASE \`$db\`;"; done
    client -e "$sql CREATE DATABASE test CHARACTER SET latin1; SET GLOBAL sql_mode=DEFAULT;" >/dev/null 2>&1
}

# What a test must leave as it found: the global variables and the accounts.
state() {
    client -e "SHOW GLOBAL VARIABLES" 2>&1
    client -e "CHECKSUM TABLE mysql.global_priv" 2>&1
}

server_up() {
    mariadb-admin -h127.0.0.1 -P"$PORT" -uroot --connect-timeout=3 ping >/dev/null 2>&1
}

wait_up() {
    for _ in $(seq 1 60); do
        server_up && return 0
        sleep 1
    done
    return 1
}

# Tests that stop, restart or kill the server, or need a debug build, need the
# suite's own runner (mariadb-test-run); they are listed as `runner`, not run.
needs_runner() {
    grep -qE "restart_mysqld|shutdown_server|kill_mysqld|shutdown_mysqld|start_mysqld|restart_abort|crash_mysqld|send_shutdown|have_debug" \
        "$SUITE/main/$1.test"
}

run_one() {
    local name=$1 status start end
    start=$(date +%s.%N)
    (cd "$SUITE" && timeout -k 5 "$PER_TEST_SECONDS" mariadb-test --host=127.0.0.1 --port="$PORT" --user=root \
        --socket="${SOCKET:-/run/mysqld/mysqld.sock}" --database=test --basedir="$SUITE" --tmpdir="$OUT/tmp" --logdir="$OUT/log" \
        --test-file="$SUITE/main/$name.test" --result-file="$SUITE/main/$name.result" \
        >"$OUT/log/$name.out" 2>&1)
    status=$?
    end=$(date +%s.%N)
    local verdict
    case $status in
        0) verdict=pass ;;
        62) verdict=skip ;;
        124 | 137) verdict=timeout ;;
        *) verdict=fail ;;
    esac
    local restart=
    if ! server_up; then
        verdict=down
        restart=1
    elif [ "$(state)" != "$BASELINE" ]; then
        restart=1
    fi
    if [ -n "$restart" ] && [ -n "${RESTART:-}" ]; then
        bash -c "$RESTART" >/dev/null 2>&1
        wait_up || { echo "server did not come back" >&2; exit 1; }
    fi
    if [ "$verdict" = fail ] || [ "$verdict" = timeout ] || [ "$verdict" = down ]; then
        cp "$OUT/log/$name.out" "$OUT/diff/$name.out"
        [ -f "$SUITE/main/$name.reject" ] && mv "$SUITE/main/$name.reject" "$OUT/diff/"
        [ -f "$OUT/log/$name.reject" ] && mv "$OUT/log/$name.reject" "$OUT/diff/"
    fi
    rm -f "$OUT/log/$name.out" "$OUT/log/$name.reject"
    printf '%s %s %.1f\n' "$name" "$verdict" "$(echo "$end - $start" | bc)" >>"$OUT/results"
}

run() {
    PORT=$1
    OUT=$2
    shift 2
    mkdir -p "$OUT/tmp" "$OUT/log" "$OUT/diff" "$OUT/var/tmp"
    export MYSQL_TEST_DIR=$SUITE MYSQLTEST_VARDIR=$OUT/var MYSQL_TMP_DIR=$OUT/var/tmp
    local tests=("$@")
    if [ ${#tests[@]} -eq 0 ]; then
        mapfile -t tests < <(cd "$SUITE/main" && ls ./*.test | sed 's#^\./##; s#\.test$##')
    fi
    touch "$OUT/results"
    BASELINE=$(state)
    for t in "${tests[@]}"; do
        [ -f "$SUITE/main/$t.result" ] || continue
        # A run that was stopped goes on where it stopped.
        grep -q "^$t " "$OUT/results" && continue
        if needs_runner "$t"; then
            echo "$t runner 0" >>"$OUT/results"
            continue
        fi
        reset_databases || { wait_up && reset_databases; }
        run_one "$t"
    done
}

compare() {
    local a=$1/results b=$2/results
    local on_mariadb both
    on_mariadb=$(awk '$2=="pass"{print $1}' "$a" | sort)
    both=$(comm -12 <(echo "$on_mariadb") <(awk '$2=="pass"{print $1}' "$b" | sort) | wc -l)
    local n
    n=$(echo "$on_mariadb" | grep -c .)
    echo "pass on MariaDB: $n; of those, pass on Basalt: $both ($(echo "scale=1; 100*$both/$n" | bc)%)"
    echo "Basalt verdicts for the tests MariaDB passes:"
    join <(echo "$on_mariadb") <(sort "$b") | awk '{print $2}' | sort | uniq -c
}

mtr_schema() {
    PORT=$1
    client -e "CREATE DATABASE IF NOT EXISTS mtr"
    # The file is written for mysqltest: its `delimiter X;` lines become the
    # client's `delimiter X`.
    sed -E 's/^delimiter (.*);$/delimiter \1/; /^\s*--[^ ]/d' "$SUITE/include/mtr_warnings.sql" | client mtr
}

case ${1:-} in
    mtr) shift; mtr_schema "$@" ;;
    run) shift; run "$@" ;;
    compare) shift; compare "$@" ;;
    *) sed -n 2,14p "$0"; exit 2 ;;
esac
