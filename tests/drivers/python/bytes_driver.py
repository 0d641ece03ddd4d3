"""PyMySQL sending statement text as raw bytes: string literals whose bytes are not
UTF-8 reach BLOB, VARBINARY and BINARY columns byte for byte (after SET NAMES
binary and under utf8mb4, as dumps send them), text columns refuse them with 1366
(strict) or store '?' with warning 1366, and a latin1 client's bytes are stored as
the characters they stand for."""

import pymysql

from common import log, port_arg


def literal(b):
    """A quoted SQL string literal of arbitrary bytes, escaped as mariadb-dump does."""
    out = bytearray(b"'")
    for c in b:
        if c == 0:
            out += b"\\0"
        elif c in (0x27, 0x5C):
            out += b"\\" + bytes([c])
        elif c == 0x0A:
            out += b"\\n"
        elif c == 0x0D:
            out += b"\\r"
        elif c == 0x1A:
            out += b"\\Z"
        else:
            out.append(c)
    return bytes(out + b"'")


def one(cur, sql):
    cur.execute(sql)
    rows = cur.fetchall()
    assert len(rows) == 1 and len(rows[0]) == 1, rows
    return rows[0][0]


def main():
    port = port_arg()
    conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                           charset="utf8mb4", autocommit=True)
    cur = conn.cursor()
    cur.execute("DROP DATABASE IF EXISTS drv_bytes")
    cur.execute("CREATE DATABASE drv_bytes")
    conn.select_db("drv_bytes")

    # The reported case: SET NAMES binary, raw bytes into a BLOB.
    cur.execute("CREATE TABLE bl (id INT PRIMARY KEY, b BLOB, n INT)")
    cur.execute("SET NAMES binary")
    cur.execute(b"insert into bl values (1, '\xff\xfex', 0)")
    assert one(cur, "SELECT HEX(b) FROM bl WHERE id = 1") == b"FFFE78"
    cur.execute("SET NAMES utf8mb4")
    log("ok set names binary")

    # Every byte value, in each binary type, one statement per row and multi-row.
    cur.execute("CREATE TABLE bin (id INT PRIMARY KEY, b BLOB, vb VARBINARY(300),"
                " bb BINARY(1), t TEXT)")
    every = bytes(range(256))
    for i in range(256):
        row = bytes([i]) * 3 + every
        cur.execute(b"INSERT INTO bin VALUES (%d, %s, %s, %s, NULL)"
                    % (i, literal(row), literal(row), literal(bytes([i]))))
    cur.execute("SELECT id, b, vb, bb FROM bin ORDER BY id")
    for i, b, vb, bb in cur.fetchall():
        row = bytes([i]) * 3 + every
        assert (b, vb, bb) == (row, row, bytes([i])), (i, b, vb, bb)
    log("ok 256 single-row inserts")
    values = b",".join(b"(%d, %s, %s, %s, %s)"
                       % (1000 + i, literal(every[i:] + every[:i]), literal(bytes([i, 255 - i])),
                          literal(bytes([i])), b"NULL" if i % 3 else b"'t'")
                       for i in range(256))
    cur.execute(b"INSERT INTO bin VALUES " + values)
    cur.execute("SELECT id, b, vb, bb FROM bin WHERE id >= 1000 ORDER BY id")
    got = cur.fetchall()
    assert len(got) == 256, len(got)
    for (id_, b, vb, bb) in got:
        i = id_ - 1000
        assert (b, vb, bb) == (every[i:] + every[:i], bytes([i, 255 - i]), bytes([i])), i
    log("ok multi-row insert")
    cur.execute(b"UPDATE bin SET b = _binary'\x80\x81' WHERE id = 0")
    assert one(cur, "SELECT HEX(b) FROM bin WHERE id = 0") == "8081"
    log("ok update with _binary")

    # Text columns: 1366 in strict mode, '?' and a warning otherwise.
    cur.execute("SET sql_mode = 'STRICT_TRANS_TABLES'")
    try:
        cur.execute(b"INSERT INTO bin (id, t) VALUES (2000, 'a\xff\xfexyzzzzzzz')")
        raise AssertionError("strict insert of bad bytes succeeded")
    except pymysql.err.DataError as e:
        assert e.args == (1366, "Incorrect string value: '\\xFF\\xFExyzz...' for column "
                                "`drv_bytes`.`bin`.`t` at row 1"), e.args
    cur.execute("SET sql_mode = ''")
    cur.execute(b"INSERT INTO bin (id, t) VALUES (2000, 'a\xff\xfex')")
    w = conn.show_warnings()
    assert [(x[1], x[2]) for x in w] == [(1366, "Incorrect string value: '\\xFF\\xFEx' for"
                                          " column `drv_bytes`.`bin`.`t` at row 1")], w
    assert one(cur, "SELECT HEX(t) FROM bin WHERE id = 2000") == "613F3F78"
    log("ok 1366")

    # A latin1 client: bytes 0x80-0xFF are the characters of latin1 (MariaDB's
    # cp1252, whose five undefined bytes are the C1 controls of the same value).
    cur.execute("CREATE TABLE u (id INT PRIMARY KEY, t VARCHAR(300))")
    high = bytes(range(0x80, 0x100))
    lat = pymysql.connect(host="127.0.0.1", port=port, user="root", password="",
                          charset="latin1", use_unicode=False, autocommit=True,
                          database="drv_bytes")
    lcur = lat.cursor()
    assert one(lcur, "SELECT @@character_set_client") == b"latin1"
    lcur.execute(b"INSERT INTO u VALUES (1, " + literal(high) + b")")
    assert one(lcur, "SELECT t FROM u WHERE id = 1") == high
    expected = "".join(chr(c) if c in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
                       else bytes([c]).decode("cp1252") for c in high)
    assert one(cur, "SELECT t FROM u WHERE id = 1") == expected
    assert one(cur, "SELECT HEX(t) FROM u WHERE id = 1") == expected.encode().hex().upper()
    log("ok latin1 client")
    print("OK pymysql bytes")


if __name__ == "__main__":
    main()
