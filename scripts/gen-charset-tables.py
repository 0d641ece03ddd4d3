#!/usr/bin/env python3
"""Generates crates/common/src/collation/{catalog,eight_orders}.rs and
crates/common/src/charset/eight.rs.

catalog.rs: the `Charset` and `Collation` enums with MariaDB 10.11's names, ids,
descriptions, Maxlen / Sortlen and defaults, as `SHOW CHARACTER SET` and
`SHOW COLLATION` print them, for every character set and collation Basalt has:
  - binary, utf8mb4, utf8mb3, latin1, ascii (the first sets, in their historic order);
  - ucs2, utf16, utf16le, utf32: their general, bin, unicode (UCA 4.0.0) and
    unicode_520 collations, PAD SPACE and NO PAD, and the general_mysql500 ones;
  - the 8-bit sets whose tables MariaDB ships (strings/ctype-extra.c, generated from
    sql/share/charsets/*.xml): each collation's sort order is one weight per byte.
Language-tailored UCA collations and the 8-bit collations MariaDB implements in code
(latin2_czech_cs, cp1250_czech_cs, latin1_german2_ci, tis620) are not listed.

eight.rs: per 8-bit set its byte -> code point table (the XML `<unicode>` map, 0 for
a byte that is no character); eight_orders.rs: the sort orders read out of the
running server through WEIGHT_STRING one byte at a time.

Variants are serialized by name into catalogs: the historic collations keep their
order (HISTORIC below) and new ones are appended in id order; never rename one.

    scripts/gen-charset-tables.py /path/to/mariadb.sock

with a MariaDB 10.11 server started as in tests/support/mariadb.rs (its Sequence
engine provides seq_0_to_N). The output is deterministic; it needs no `cargo fmt`.
"""
import re
import subprocess
import sys

SOCK = sys.argv[1]
XML = "/usr/share/mysql/charsets/"

HISTORIC_SETS = ["binary", "utf8mb4", "utf8mb3", "latin1", "ascii"]
WIDE = {"ucs2": (2, 2), "utf16": (2, 4), "utf16le": (2, 4), "utf32": (4, 4)}
EIGHT = ["dec8", "cp850", "hp8", "koi8r", "latin2", "swe7", "hebrew", "koi8u", "greek",
         "cp1250", "latin5", "armscii8", "cp866", "keybcs2", "macce", "macroman", "cp852",
         "latin7", "cp1251", "cp1256", "cp1257", "geostd8"]
HISTORIC = [
    ("binary", "Binary"), ("utf8mb4_general_ci", "General"), ("utf8mb4_bin", "Bin"),
    ("utf8mb4_unicode_ci", "Uca400"), ("utf8mb3_general_ci", "General"),
    ("utf8mb3_bin", "Bin"), ("latin1_swedish_ci", "Latin1(L1::Swedish)"),
    ("latin1_bin", "Latin1(L1::Bin)"), ("ascii_general_ci", "General"),
    ("utf8mb4_unicode_520_ci", "Uca520"), ("utf8mb4_general_nopad_ci", "General"),
    ("utf8mb4_nopad_bin", "Bin"), ("utf8mb4_unicode_nopad_ci", "Uca400"),
    ("utf8mb4_unicode_520_nopad_ci", "Uca520"), ("utf8mb3_unicode_ci", "Uca400"),
    ("utf8mb3_unicode_520_ci", "Uca520"), ("utf8mb3_general_nopad_ci", "General"),
    ("utf8mb3_nopad_bin", "Bin"), ("utf8mb3_unicode_nopad_ci", "Uca400"),
    ("utf8mb3_unicode_520_nopad_ci", "Uca520"), ("latin1_german1_ci", "Latin1(L1::German1)"),
    ("latin1_general_ci", "Latin1(L1::GeneralCi)"), ("latin1_general_cs", "Latin1(L1::GeneralCs)"),
    ("latin1_swedish_nopad_ci", "Latin1(L1::Swedish)"), ("latin1_nopad_bin", "Latin1(L1::Bin)"),
    ("ascii_bin", "Bin"), ("ascii_general_nopad_ci", "General"), ("ascii_nopad_bin", "Bin"),
]
UNICODE_KINDS = {"general_ci": "General", "general_nopad_ci": "General", "bin": "Bin",
                 "nopad_bin": "Bin", "unicode_ci": "Uca400", "unicode_nopad_ci": "Uca400",
                 "unicode_520_ci": "Uca520", "unicode_520_nopad_ci": "Uca520",
                 "general_mysql500_ci": "General500"}
CODED = {"latin2_czech_cs", "cp1250_czech_cs", "latin1_german2_ci"}


def query(sql):
    out = subprocess.run(
        ["mariadb", "--no-defaults", "-S", SOCK, "-uroot", "-N", "-B", "test", "-e", sql],
        check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def to_uni(cs):
    xml = open(XML + cs + ".xml").read()
    body = re.search(r"<unicode>\s*<map>(.*?)</map>", xml, re.S).group(1)
    vals = [int(x, 16) for x in body.split()]
    assert len(vals) == 256, cs
    return vals


def sort_order(cs, coll):
    rows = query(f"select seq, hex(weight_string(convert(unhex(lpad(hex(seq),2,'0')) using {cs}) "
                 f"collate {coll})) from seq_0_to_255")
    out = []
    for b, h in rows:
        assert len(h) == 2, (coll, b, h)
        out.append(int(h, 16))
    return out


def fmt_array(vals, width):
    lines = []
    for i in range(0, len(vals), 16):
        lines.append("    " + " ".join(f"0x{v:0{width}X}," for v in vals[i:i + 16]))
    return "\n".join(lines)


def main():
    sets = {r[0]: r for r in query("show character set")}
    colls = sorted((r for r in query("show collation") if r[2] != "NULL"), key=lambda r: int(r[2]))
    charsets = HISTORIC_SETS + list(WIDE) + EIGHT
    eight_sets = ["latin1"] + EIGHT
    orders, order_ix = [], {}
    chosen = [(n, k) for n, k in HISTORIC]
    known = {n for n, _ in HISTORIC}
    for name, cs, _id, _d, _c, _s in colls:
        if name in known or name in CODED or cs not in charsets:
            continue
        rest = name[len(cs) + 1:]
        if cs in WIDE or cs.startswith("utf8mb"):
            kind = UNICODE_KINDS.get(rest)
            if kind is None or cs.startswith("utf8mb") and kind != "General500":
                continue
        elif cs in eight_sets:
            if rest in ("bin", "nopad_bin"):
                kind = f"Eight {{ set: {eight_sets.index(cs)}, order: BIN }}"
            else:
                t = tuple(sort_order(cs, name))
                if t not in order_ix:
                    order_ix[t] = len(orders)
                    orders.append(t)
                kind = f"Eight {{ set: {eight_sets.index(cs)}, order: {order_ix[t]} }}"
        else:
            continue
        chosen.append((name, kind))
    by_name = {r[0]: r for r in colls}

    s = ("//! The character sets and collations Basalt has: MariaDB 10.11's names, ids,\n"
         "//! descriptions, Maxlen, Sortlen and defaults.\n//!\n"
         "//! Generated by scripts/gen-charset-tables.py from a running MariaDB 10.11\n"
         "//! (`SHOW CHARACTER SET`, `SHOW COLLATION`). Do not edit: variants are serialized by\n"
         "//! name, historic ones keep their place and new ones are appended.\n\n"
         "use super::{info, Info, Kind, L1, BIN};\nuse serde::{Deserialize, Serialize};\n\n")
    s += "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]\npub enum Charset {\n"
    s += "".join(f"    {camel(c)},\n" for c in charsets) + "}\n\n"
    s += "/// One row of `SHOW CHARACTER SET`, indexed by `Charset as usize`.\n"
    s += "pub(super) struct SetInfo {\n    pub name: &'static str,\n    pub description: &'static str,\n"
    s += "    pub default: Collation,\n    pub maxlen: u8,\n    pub minlen: u8,\n"
    s += "    /// Row in `charset::eight::SETS` of an 8-bit set.\n    pub eight: Option<u8>,\n}\n\n"
    s += f"pub(super) const SETS: [SetInfo; {len(charsets)}] = [\n"
    for c in charsets:
        _n, desc, default, maxlen = sets[c]
        minlen = WIDE.get(c, (1, 1))[0]
        eight = f"Some({eight_sets.index(c)})" if c in eight_sets else "None"
        s += (f"    SetInfo {{ name: \"{c}\", description: \"{desc}\", default: Collation::{camel(default)}, "
              f"maxlen: {maxlen}, minlen: {minlen}, eight: {eight} }},\n")
    s += "];\n\n"
    s += f"pub(super) const ALL_SETS: [Charset; {len(charsets)}] = [\n"
    s += "".join(f"    Charset::{camel(c)},\n" for c in charsets) + "];\n\n"
    s += "/// A collation. The order of the variants is the order of [`INFO`].\n"
    s += "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]\npub enum Collation {\n"
    s += "".join(f"    {camel(n)},\n" for n, _ in chosen) + "}\n\n"
    s += f"/// Indexed by `Collation as usize`.\npub(super) const INFO: [Info; {len(chosen)}] = [\n"
    for n, kind in chosen:
        _n, cs, cid, _d, _c, sortlen = by_name[n]
        pad = "false" if "nopad" in n or n == "binary" else "true"
        s += f"    info(\"{n}\", {cid}, Charset::{camel(cs)}, {sortlen}, Kind::{kind}, {pad}),\n"
    s += "];\n\n"
    s += f"pub(super) const ALL: [Collation; {len(chosen)}] = [\n"
    s += "".join(f"    Collation::{camel(n)},\n" for n, _ in chosen) + "];\n"
    open("crates/common/src/collation/catalog.rs", "w").write(s)

    e = ("//! 8-bit character sets: byte -> code point tables (the reverse is built from\n"
         "//! them on first use, see `charset::eight_byte`).\n//!\n"
         "//! Generated by scripts/gen-charset-tables.py from MariaDB 10.11's\n"
         "//! sql/share/charsets/*.xml maps. Do not edit.\n\n")
    e += "/// One 8-bit set: `to_uni[b]` is byte b's code point (0: no character, but for\n"
    e += "/// byte 0).\npub struct Eight {\n    pub to_uni: [u16; 256],\n}\n\n"
    e += f"/// latin1, then {', '.join(EIGHT)}.\npub static SETS: [Eight; {len(eight_sets)}] = [\n"
    for cs in eight_sets:
        if cs == "latin1":
            m = [ord(bytes([b]).decode("cp1252")) if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D) else b
                 for b in range(256)]
        else:
            m = to_uni(cs)
        e += f"    // {cs}\n    Eight {{\n        to_uni: [\n"
        e += "\n".join("        " + l for l in fmt_array(m, 4).splitlines()) + "\n        ],\n    },\n"
    e += "];\n"
    o = ("//! Sort orders of the 8-bit sets' collations (one weight per byte;\n"
         "//! `Kind::Eight`'s `order`).\n//!\n"
         "//! Generated by scripts/gen-charset-tables.py from MariaDB 10.11's compiled-in\n"
         "//! sort orders, read through WEIGHT_STRING one byte at a time. Do not edit.\n\n")
    o += f"pub static ORDERS: [[u8; 256]; {len(orders)}] = [\n"
    for t in orders:
        o += "    [\n" + "\n".join("    " + l for l in fmt_array(list(t), 2).splitlines()) + "\n    ],\n"
    o += "];\n"
    open("crates/common/src/collation/eight_orders.rs", "w").write(o)
    open("crates/common/src/charset/eight.rs", "w").write(e)


main()
