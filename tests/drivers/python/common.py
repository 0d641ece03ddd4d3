"""What the Python driver programs share: the table with every SQL type Basalt has,
the rows put into it, and the values a driver must hand back.

A driver program prints one line per check it passed and `OK <driver>` at the end;
the first mismatch raises, so the program exits non-zero with a traceback.
"""

import datetime as dt
import decimal
import sys

D = decimal.Decimal

DDL = """CREATE TABLE all_types (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT, tu TINYINT UNSIGNED,
  si SMALLINT, su SMALLINT UNSIGNED,
  mi MEDIUMINT, mu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED,
  bi BIGINT, bu BIGINT UNSIGNED,
  de DECIMAL(20,6), f FLOAT, d DOUBLE,
  c CHAR(10), vc VARCHAR(100), tx TEXT, bl BLOB, vb VARBINARY(16),
  da DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, tm TIME, tm3 TIME(3),
  yr YEAR,
  UNIQUE KEY uk_vc (vc)
)"""

COLUMNS = [
    "id", "ti", "tu", "si", "su", "mi", "mu", "i", "iu", "bi", "bu", "de", "f", "d",
    "c", "vc", "tx", "bl", "vb", "da", "dt", "dt6", "ts", "tm", "tm3", "yr",
]

# Minimums, written as SQL literals (inserted with a text query).
MIN_SQL = (
    "(1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0,"
    " -12345678901234.123456, -1.5, -2.5e-300,"
    " 'abc', 'h\u00e9llo w\u00f6rld \u2713 \U0001F600', REPEAT('t\u00fc', 500),"
    " X'00010203FEFF', X'00FF',"
    " '1000-01-01', '1000-01-01 00:00:00', '2024-02-29 23:59:59.123456',"
    " '1970-01-02 00:00:01', '-838:59:59', '-00:00:01.500', 1901)"
)

MIN_ROW = (
    1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0,
    D("-12345678901234.123456"), -1.5, -2.5e-300,
    "abc", "h\u00e9llo w\u00f6rld \u2713 \U0001F600", "t\u00fc" * 500,
    bytes([0, 1, 2, 3, 0xFE, 0xFF]), b"\x00\xff",
    dt.date(1000, 1, 1), dt.datetime(1000, 1, 1, 0, 0, 0),
    dt.datetime(2024, 2, 29, 23, 59, 59, 123456),
    dt.datetime(1970, 1, 2, 0, 0, 1),
    -dt.timedelta(hours=838, minutes=59, seconds=59),
    -dt.timedelta(seconds=1, milliseconds=500),
    1901,
)

# Maximums, bound as parameters of a prepared INSERT.
MAX_ROW = (
    2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,
    9223372036854775807, 18446744073709551615,
    D("99999999999999.999999"), 3.25, 3.141592653589793,
    "xyz", "", "", bytes(range(256)), b"",
    dt.date(9999, 12, 31), dt.datetime(9999, 12, 31, 23, 59, 59),
    dt.datetime(2001, 2, 3, 4, 5, 6, 7),
    dt.datetime(2038, 1, 19, 3, 14, 7),
    dt.timedelta(hours=838, minutes=59, seconds=59),
    dt.timedelta(hours=12, minutes=34, seconds=56, milliseconds=789),
    2155,
)

NULL_ROW = (3,) + (None,) * (len(COLUMNS) - 1)
NULL_ROW_TEXT = (4,) + (None,) * (len(COLUMNS) - 1)

INSERT_PARAMS = "INSERT INTO all_types VALUES (" + ", ".join(["%s"] * len(COLUMNS)) + ")"


def log(msg):
    print(msg, flush=True)


def check_rows(what, got, want):
    got = [tuple(r) for r in got]
    want = [tuple(r) for r in want]
    if len(got) != len(want):
        raise AssertionError(f"{what}: {len(got)} rows, want {len(want)}: {got!r}")
    for g, w in zip(got, want):
        if len(g) != len(w):
            raise AssertionError(f"{what}: row of {len(g)} columns, want {len(w)}")
        for name, a, b in zip(COLUMNS, g, w):
            if not same(a, b):
                raise AssertionError(
                    f"{what}: row id={w[0]} column {name}: got {a!r} ({type(a).__name__}),"
                    f" want {b!r} ({type(b).__name__})"
                )
    log(f"ok {what}: {len(got)} rows")


def same(a, b):
    if isinstance(a, (bytearray, memoryview)):
        a = bytes(a)
    if type(b) is float and isinstance(a, float):
        return a == b
    if type(a) is not type(b):
        return False
    return a == b


def expect_errno(what, errno, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - drivers use their own exception classes
        code = getattr(e, "errno", None)
        if code is None and e.args and isinstance(e.args[0], int):
            code = e.args[0]
        if code != errno:
            raise AssertionError(f"{what}: errno {code} ({e!r}), want {errno}") from e
        log(f"ok {what}: errno {code}")
        return
    raise AssertionError(f"{what}: no error, want errno {errno}")


def port_arg():
    if len(sys.argv) < 2:
        sys.exit("usage: <program> PORT")
    return int(sys.argv[1])
