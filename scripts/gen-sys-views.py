#!/usr/bin/env python3
"""Writes crates/sql/src/sysschema/views.sql: the CREATE VIEW statements of
MariaDB 10.11's sys schema (/usr/share/mysql/mysql_sys_schema.sql from Debian's
mariadb-server), one block per view: `VIEW name ALGORITHM (columns)`, the
query, and a line with `;`.

Usage: gen-sys-views.py [mysql_sys_schema.sql] > crates/sql/src/sysschema/views.sql"""
import re
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/mysql/mysql_sys_schema.sql"
src = "\n".join(l for l in open(path).read().splitlines() if not l.lstrip().startswith("--"))
pat = re.compile(
    r"CREATE OR REPLACE\s+(?:ALGORITHM\s*=\s*(\w+)\s+)?DEFINER\s*=\s*'mariadb.sys'@'localhost'"
    r"\s+SQL SECURITY INVOKER\s+VIEW\s+(\S+)\s*\((.*?)\)\s*AS\s*(.*?);\s*$",
    re.S | re.M,
)
out = [
    "-- The sys schema's views, from MariaDB 10.11's mysql_sys_schema.sql",
    "-- (scripts/gen-sys-views.py; do not edit). One view per block:",
    "-- VIEW name ALGORITHM (columns), then its query, then a line ';'.",
]
for m in pat.finditer(src):
    alg, name, cols, body = m.groups()
    cols = [c.strip() for c in cols.split(",") if c.strip()]
    body = "\n".join(l.rstrip() for l in body.strip().splitlines())
    out += [f"VIEW {name} {alg or 'UNDEFINED'} ({', '.join(cols)})", body, ";"]
print("\n".join(out))
