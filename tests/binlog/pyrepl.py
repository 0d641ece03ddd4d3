#!/usr/bin/env python3
"""Reads row events from a primary's binary log with python-mysql-replication.

Usage: pyrepl.py PORT COUNT [SERVER_ID]

Connects to 127.0.0.1:PORT as root (no password), streams from the start of the
binary log with `only_events` Write/Update/DeleteRowsEvent, and prints one JSON line
per row change until COUNT changes were printed (then exits 0), or exits 2 when the
stream stays silent for 20 s.  A line:

  {"kind": "insert"|"update"|"delete", "schema": S, "table": T,
   "columns": [names...], "before": [values]|null, "after": [values]|null}

Values are normalised to JSON: None -> null, bytes -> {"hex": "..."}, int/str as they
are, float -> repr text under {"float": "..."}, Decimal -> str, date/datetime/time
/timedelta -> ISO-ish text (see `norm`), set -> sorted list.
"""
import datetime
import decimal
import json
import sys
import time

from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.constants.NONE_SOURCE import EMPTY_SET
from pymysqlreplication.row_event import (
    DeleteRowsEvent,
    UpdateRowsEvent,
    WriteRowsEvent,
)


def norm(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (bytes, bytearray)):
        return {"hex": bytes(v).hex()}
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, datetime.datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(v, datetime.date):
        return v.strftime("%Y-%m-%d")
    if isinstance(v, datetime.timedelta):
        total = v.days * 86400 * 1000000 + v.seconds * 1000000 + v.microseconds
        sign = "-" if total < 0 else ""
        total = abs(total)
        secs, micros = divmod(total, 1000000)
        return "%s%02d:%02d:%02d.%06d" % (sign, secs // 3600, secs // 60 % 60, secs % 60, micros)
    if isinstance(v, datetime.time):
        return v.strftime("%H:%M:%S.%f")
    if isinstance(v, (set, frozenset)):
        return sorted(v)
    if isinstance(v, (dict, list)):
        return {"json": json.dumps(v, sort_keys=True)}
    return v


def values(columns, row, sources):
    """The row's values in column order. The library reports an empty SET as None
    with the none-source "empty set"; it is printed as [] so it differs from NULL."""
    out = []
    for c in columns:
        v = row.get(c)
        if v is None and (sources or {}).get(c) == EMPTY_SET:
            v = set()
        out.append(norm(v))
    return out


def main():
    port = int(sys.argv[1])
    want = int(sys.argv[2])
    server_id = int(sys.argv[3]) if len(sys.argv) > 3 else 4242
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": port, "user": "root", "passwd": ""},
        server_id=server_id,
        blocking=True,
        resume_stream=False,
        only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent],
        is_mariadb=True,
    )
    printed = 0
    deadline = time.monotonic() + 20
    try:
        for ev in stream:
            cols = [c.name for c in ev.columns]
            for row in ev.rows:
                out = {"schema": ev.schema, "table": ev.table, "columns": cols}
                if isinstance(ev, WriteRowsEvent):
                    out.update(
                        kind="insert",
                        before=None,
                        after=values(cols, row["values"], row.get("none_sources")),
                    )
                elif isinstance(ev, UpdateRowsEvent):
                    out.update(
                        kind="update",
                        before=values(
                            cols, row["before_values"], row.get("before_none_sources")
                        ),
                        after=values(cols, row["after_values"], row.get("after_none_sources")),
                    )
                else:
                    out.update(
                        kind="delete",
                        before=values(cols, row["values"], row.get("none_sources")),
                        after=None,
                    )
                print(json.dumps(out, sort_keys=True), flush=True)
                printed += 1
                if printed >= want:
                    return 0
            if time.monotonic() > deadline:
                break
    finally:
        stream.close()
    print("pyrepl: only %d of %d row changes" % (printed, want), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
