"""PyMySQL against basaltd: connect, DDL, parameterised (client-side) and plain text
queries with every type, NULLs, a transaction committed and one rolled back, errors
by errno, and the connection still working after each."""

import pymysql

from common import (DDL, INSERT_PARAMS, MAX_ROW, MIN_ROW, MIN_SQL, NULL_ROW,
                    NULL_ROW_TEXT, check_rows, expect_errno, log, port_arg)


def main():
    port = port_arg()
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                           charset="utf8mb4", autocommit=True)
    log(f"connected: server {conn.get_server_info()}")
    cur = conn.cursor()
    cur.execute("DROP DATABASE IF EXISTS drv_pymysql")
    cur.execute("CREATE DATABASE drv_pymysql")
    conn.select_db("drv_pymysql")
    cur.execute(DDL)
    log("ok ddl")

    cur.execute("INSERT INTO all_types VALUES " + MIN_SQL)
    assert cur.rowcount == 1, cur.rowcount
    cur.execute(INSERT_PARAMS, MAX_ROW)
    cur.execute(INSERT_PARAMS, NULL_ROW)
    cur.execute("INSERT INTO all_types (id) VALUES (4)")
    cur.execute("SELECT * FROM all_types ORDER BY id")
    check_rows("text select", cur.fetchall(), [MIN_ROW, MAX_ROW, NULL_ROW, NULL_ROW_TEXT])
    cur.execute("SELECT * FROM all_types WHERE id = %s", (2,))
    check_rows("parameterised select", cur.fetchall(), [MAX_ROW])
    cur.execute("SELECT id FROM all_types WHERE ti IS NULL ORDER BY id")
    assert cur.fetchall() == ((3,), (4,))
    # Column metadata: names and a few type codes.
    cur.execute("SELECT * FROM all_types WHERE id = 1")
    names = [d[0] for d in cur.description]
    assert names[:3] == ["id", "ti", "tu"], names
    cur.fetchall()

    # executemany: PyMySQL folds an INSERT ... VALUES into one multi-row statement.
    cur.executemany("INSERT INTO all_types (id, i, vc) VALUES (%s, %s, %s)",
                    [(k, k * 10, f"batch {k}") for k in range(40, 50)])
    assert cur.rowcount == 10, cur.rowcount
    cur.execute("DELETE FROM all_types WHERE id BETWEEN 40 AND 49 AND i = id * 10")
    assert cur.rowcount == 10, cur.rowcount
    log("ok executemany")

    # Transactions: rollback, then commit (driver API and SQL).
    conn.autocommit(False)
    cur.execute("INSERT INTO all_types (id, vc) VALUES (10, 'rolled back')")
    conn.rollback()
    cur.execute("SELECT COUNT(*) FROM all_types WHERE id = 10")
    assert cur.fetchone() == (0,), "rolled-back row is visible"
    cur.execute("INSERT INTO all_types (id, vc) VALUES (11, 'committed')")
    conn.commit()
    conn.autocommit(True)
    cur.execute("START TRANSACTION")
    cur.execute("UPDATE all_types SET vc = 'changed' WHERE id = 11")
    cur.execute("ROLLBACK")
    cur.execute("SELECT vc FROM all_types WHERE id = 11")
    assert cur.fetchone() == ("committed",)
    conn.begin()
    cur.execute("DELETE FROM all_types WHERE id = 11")
    conn.commit()
    cur.execute("SELECT COUNT(*) FROM all_types WHERE id >= 10")
    assert cur.fetchone() == (0,)
    log("ok transactions")

    # Errors leave the connection usable.
    expect_errno("duplicate primary key", 1062,
                 lambda: cur.execute("INSERT INTO all_types (id) VALUES (1)"))
    expect_errno("duplicate unique key", 1062,
                 lambda: cur.execute("INSERT INTO all_types (id, vc) VALUES (%s, %s)",
                                     (20, "")))
    expect_errno("missing table", 1146, lambda: cur.execute("SELECT * FROM nosuch"))
    expect_errno("syntax", 1064, lambda: cur.execute("SELEC 1"))
    cur.execute("SELECT 1 + 1")
    assert cur.fetchone() == (2,)
    conn.ping(reconnect=False)
    log("ok errors")

    # Stored procedures through callproc: result sets, then OUT / INOUT values
    # read back from the @_name_n variables PyMySQL sets.
    cur.execute("CREATE PROCEDURE doubled(IN a INT, OUT b INT, INOUT c VARCHAR(20)) "
                "BEGIN SET b = a * 2; SET c = CONCAT(c, '!'); SELECT a, b; END")
    cur.callproc("doubled", (21, 0, "hi"))
    assert cur.fetchall() == ((21, 42),)
    while cur.nextset():
        pass
    cur.execute("SELECT @_doubled_1, @_doubled_2")
    assert cur.fetchone() == (42, "hi!")
    log("ok callproc")

    cur.execute("DROP DATABASE drv_pymysql")
    conn.close()
    log("OK pymysql")


if __name__ == "__main__":
    main()
