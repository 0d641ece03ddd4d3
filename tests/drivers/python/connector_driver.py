"""MySQL Connector/Python against basaltd, with server-side prepared statements
(`cursor(prepared=True)`: COM_STMT_PREPARE / EXECUTE, binary rows) and plain text
queries: every type, NULLs, transactions, errors by errno.

Usage: connector_driver.py PORT pure|default  (`pure` forces use_pure=True; `default`
lets the connector pick its C extension when it loads, and says which it got)."""

import datetime as dt
import sys

import mysql.connector
import mysql.connector.pooling

from common import (COLUMNS, DDL, INSERT_PARAMS, MAX_ROW, MIN_ROW, MIN_SQL, NULL_ROW,
                    NULL_ROW_TEXT, check_rows, expect_errno, log, port_arg)


# The connector has no decoder for a YEAR column in a binary row (its
# `_parse_binary_values` reads it as a length-prefixed string, as it would from
# MySQL): the prepared selects read YEAR through CAST.
BINARY_COLUMNS = ", ".join(COLUMNS[:-1]) + ", CAST(yr AS SIGNED) AS yr"


def as_connector_decodes(row):
    """The row as the pure-Python connector decodes it from a binary result: for a negative TIME
    it negates only the day count, not the hours, minutes and seconds (its
    `_parse_binary_time`; MySQL's own server sends the same bytes as Basalt)."""
    out = list(row)
    for k in (COLUMNS.index("tm"), COLUMNS.index("tm3")):
        v = out[k]
        if v is not None and v < dt.timedelta(0):
            t = -v
            out[k] = dt.timedelta(days=-t.days, seconds=t.seconds, microseconds=t.microseconds)
    return tuple(out)


def main():
    port = port_arg()
    mode = sys.argv[2] if len(sys.argv) > 2 else "pure"
    kwargs = dict(host="127.0.0.1", port=port, user="root", password="",
                  charset="utf8mb4", autocommit=True, ssl_disabled=True)
    if mode == "pure":
        kwargs["use_pure"] = True
    conn = mysql.connector.connect(**kwargs)
    impl = type(conn).__name__
    log(f"connected ({mode}: {impl}): server {conn.server_info}")
    if mode == "pure":
        assert impl == "MySQLConnection", impl

    cur = conn.cursor()
    cur.execute("DROP DATABASE IF EXISTS drv_connector")
    cur.execute("CREATE DATABASE drv_connector")
    conn.database = "drv_connector"
    cur.execute(DDL)
    log("ok ddl")

    cur.execute("INSERT INTO all_types VALUES " + MIN_SQL)
    ps = conn.cursor(prepared=True)
    ps.execute(INSERT_PARAMS, MAX_ROW)
    assert ps.rowcount == 1, ps.rowcount
    ps.execute(INSERT_PARAMS, NULL_ROW)
    cur.execute("INSERT INTO all_types (id) VALUES (4)")
    all_rows = [MIN_ROW, MAX_ROW, NULL_ROW, NULL_ROW_TEXT]

    cur.execute("SELECT * FROM all_types ORDER BY id")
    check_rows("text select", cur.fetchall(), all_rows)
    if impl == "MySQLConnection":
        binary_rows = [as_connector_decodes(r) for r in all_rows]
    else:  # the C extension decodes binary rows with libmysqlclient
        binary_rows = all_rows
    ps.execute(f"SELECT {BINARY_COLUMNS} FROM all_types ORDER BY id")
    check_rows("prepared select", ps.fetchall(), binary_rows)
    for row in binary_rows:
        ps.execute(f"SELECT {BINARY_COLUMNS} FROM all_types WHERE id = ?", (row[0],))
        check_rows(f"prepared select id={row[0]}", ps.fetchall(), [row])
    # Every column compared with a bound parameter of the driver's own type.
    for i, name in enumerate(["ti", "tu", "si", "su", "mi", "mu", "i", "iu", "bi", "bu",
                              "de", "f", "d", "c", "vc", "bl", "da", "dt", "dt6", "ts",
                              "tm", "tm3", "yr"]):
        k = COLUMNS.index(name)
        for row in (MIN_ROW, MAX_ROW):
            if name in ("tm", "tm3") and row[k] < dt.timedelta(0):
                continue  # the connector sends a negative timedelta as another value
            ps.execute(f"SELECT id FROM all_types WHERE {name} = ?", (row[k],))
            got = [r[0] for r in ps.fetchall()]
            assert got == [row[0]], f"WHERE {name} = {row[k]!r}: ids {got}"
    log("ok prepared comparisons with every parameter type")
    ps.execute("SELECT id FROM all_types WHERE ti IS NULL AND ? IS NULL ORDER BY id", (None,))
    assert [r[0] for r in ps.fetchall()] == [3, 4]

    # executemany on the prepared cursor: one statement, ten executions.
    ps.executemany("INSERT INTO all_types (id, i, vc) VALUES (?, ?, ?)",
                   [(k, k * 10, f"batch {k}") for k in range(40, 50)])
    ps.execute("SELECT COUNT(*) FROM all_types WHERE id BETWEEN ? AND ? AND i = id * 10",
               (40, 49))
    assert ps.fetchall() == [(10,)]
    cur.execute("DELETE FROM all_types WHERE id BETWEEN 40 AND 49")
    log("ok executemany")

    # Transactions: rollback, then commit; driver API and SQL.
    conn.autocommit = False
    ps.execute("INSERT INTO all_types (id, vc) VALUES (?, ?)", (10, "rolled back"))
    conn.rollback()
    ps.execute("SELECT COUNT(*) FROM all_types WHERE id = ?", (10,))
    assert ps.fetchall() == [(0,)], "rolled-back row is visible"
    ps.execute("INSERT INTO all_types (id, vc) VALUES (?, ?)", (11, "committed"))
    conn.commit()
    conn.autocommit = True
    conn.start_transaction()
    ps.execute("UPDATE all_types SET vc = ? WHERE id = ?", ("changed", 11))
    conn.rollback()
    ps.execute("SELECT vc FROM all_types WHERE id = ?", (11,))
    assert ps.fetchall() == [("committed",)]
    cur.execute("BEGIN")
    ps.execute("DELETE FROM all_types WHERE id = ?", (11,))
    cur.execute("COMMIT")
    cur.execute("SELECT COUNT(*) FROM all_types WHERE id >= 10")
    assert cur.fetchall() == [(0,)]
    log("ok transactions")

    expect_errno("duplicate primary key (prepared)", 1062,
                 lambda: ps.execute("INSERT INTO all_types (id) VALUES (?)", (1,)))
    expect_errno("duplicate unique key (text)", 1062,
                 lambda: cur.execute("INSERT INTO all_types (id, vc) VALUES (20, '')"))
    expect_errno("missing table (prepare)", 1146,
                 lambda: ps.execute("SELECT * FROM nosuch WHERE a = ?", (1,)))
    expect_errno("missing table (text)", 1146, lambda: cur.execute("SELECT * FROM nosuch"))
    ps.execute("SELECT ? + 1", (41,))
    assert ps.fetchall()[0][0] == 42
    cur.execute("SELECT 1 + 1")
    assert cur.fetchall() == [(2,)]
    assert conn.is_connected()
    log("ok errors")

    # COM_RESET_CONNECTION (what the connector's pools send when a connection
    # goes back): session state is gone, the connection and its database stay.
    cur.execute("SET @v = 5")
    conn.cmd_reset_connection()
    cur.execute("SELECT @v, DATABASE()")
    assert cur.fetchall() == [(None, "drv_connector")]
    ps = conn.cursor(prepared=True)
    ps.execute("SELECT COUNT(*) FROM all_types WHERE id < ?", (100,))
    assert ps.fetchall() == [(4,)]
    pool = mysql.connector.pooling.MySQLConnectionPool(
        pool_name="basalt", pool_size=1, pool_reset_session=True, database="drv_connector",
        **kwargs)
    pc = pool.get_connection()
    pcur = pc.cursor()
    pcur.execute("SELECT CONNECTION_ID()")
    first_id = pcur.fetchall()[0][0]
    pcur.execute("SET @v = 6")
    pcur.close()
    pc.close()  # back to the pool, with a reset
    pc = pool.get_connection()
    pcur = pc.cursor(prepared=True)
    pcur.execute("SELECT CONNECTION_ID(), @v, ? + 0", (1,))
    assert pcur.fetchall() == [(first_id, None, 1)], "pooled connection kept its state"
    pcur.close()
    pc.close()
    log("ok reset connection (and through the connector's pool)")

    ps.close()
    cur.execute("DROP DATABASE drv_connector")
    cur.close()
    conn.close()
    log(f"OK mysql-connector-python ({mode}, {impl})")


if __name__ == "__main__":
    main()
