#!/usr/bin/env bash
# Installs, when missing, what the driver tests (tests/drivers.rs, tests/returning.rs)
# need on a fresh Debian machine: MariaDB Connector/J (and a JDK if java/javac are
# missing), PyMySQL (with PyNaCl), MySQL Connector/Python, SQLAlchemy 2 and Django 5, and node's
# mysql2 under tests/drivers/node; also Prometheus' mysqld_exporter
# (tests/differential_join.rs); Percona Toolkit (tests/slow_log.rs); DBD::MariaDB for innotop (tests/tools_watch.rs); mydumper/myloader (tests/charset_bytes.rs); tzdata
# (tests/time_zones.rs); python-mysql-replication (PyPI mysql-replication) and
# @vlasky/zongji under tests/binlog/node (tests/binlog_pyrepl.rs, tests/binlog_zongji.rs);
# cargo-fuzz (scripts/fuzz.sh).
# Idempotent: when everything is present it only checks, and returns in a second or two.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_need=()
ls /usr/share/java/mariadb-java-client*.jar >/dev/null 2>&1 || apt_need+=(libmariadb-java)
# The exporter's auto_increment collector (tests/differential_join.rs).
command -v prometheus-mysqld-exporter >/dev/null 2>&1 || apt_need+=(prometheus-mysqld-exporter)
# pt-query-digest on the slow query log (tests/slow_log.rs).
command -v pt-query-digest >/dev/null 2>&1 || apt_need+=(percona-toolkit)
# innotop (in mariadb-client) connects through DBD::MariaDB (tests/tools_watch.rs).
perl -MDBD::MariaDB -e1 >/dev/null 2>&1 || apt_need+=(libdbd-mariadb-perl)
# Dump and load round trips of non-UTF-8 data (tests/charset_bytes.rs).
command -v mydumper >/dev/null 2>&1 || apt_need+=(mydumper)
# The system zoneinfo CONVERT_TZ's differential test loads into MariaDB
# (tests/time_zones.rs).
[ -e /usr/share/zoneinfo/Europe/Berlin ] || apt_need+=(tzdata)
if ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
    apt_need+=(default-jdk-headless)
fi
if [ ${#apt_need[@]} -gt 0 ]; then
    echo "install-test-deps: apt-get install ${apt_need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${apt_need[@]}" >/dev/null
fi

if command -v python3 >/dev/null 2>&1; then
    # Exact versions: a new release of a driver must not change what CI checks.
    py_need=()
    python3 -c 'import pymysql' >/dev/null 2>&1 || py_need+=('pymysql==1.2.4')
    # PyMySQL's ed25519 support (tests/auth_plugins.rs).
    python3 -c 'import nacl' >/dev/null 2>&1 || py_need+=('pynacl==1.6.2')
    python3 -c 'import mysql.connector' >/dev/null 2>&1 || py_need+=('mysql-connector-python==26.10.0')
    python3 -c 'import sqlalchemy; assert sqlalchemy.__version__ >= "2"' >/dev/null 2>&1 ||
        py_need+=('sqlalchemy==2.1.9')
    python3 -c 'import django; assert django.VERSION[0] == 5' >/dev/null 2>&1 ||
        py_need+=('django==5.2.19')
    python3 -c 'import pymysqlreplication' >/dev/null 2>&1 || py_need+=('mysql-replication==1.0.17')
    if [ ${#py_need[@]} -gt 0 ]; then
        echo "install-test-deps: pip install ${py_need[*]}"
        pip=(python3 -m pip install -q --disable-pip-version-check)
        # A Debian system Python refuses plain pip installs (PEP 668).
        "${pip[@]}" "${py_need[@]}" ||
            "${pip[@]}" --break-system-packages "${py_need[@]}"
    fi
else
    echo "install-test-deps: python3 missing; Python driver tests will skip" >&2
fi

if command -v npm >/dev/null 2>&1; then
    if [ ! -f tests/drivers/node/node_modules/mysql2/package.json ]; then
        echo "install-test-deps: npm install (tests/drivers/node)"
        # package-lock=false (tests/drivers/node/.npmrc): no lock file is written;
        # package.json names exact versions instead.
        (cd tests/drivers/node && npm install --no-audit --no-fund --loglevel=error)
    fi
    if [ ! -f tests/binlog/node/node_modules/@vlasky/zongji/package.json ]; then
        echo "install-test-deps: npm install (tests/binlog/node)"
        (cd tests/binlog/node && npm install --no-audit --no-fund --loglevel=error)
    fi
else
    echo "install-test-deps: npm missing; node driver and zongji tests will skip" >&2
fi
# The protocol fuzz targets (scripts/fuzz.sh); a pinned release, built with its own
# lock file.
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "install-test-deps: cargo install cargo-fuzz"
    cargo install -q cargo-fuzz --version 0.13.2 --locked
fi
echo "install-test-deps: ok"
