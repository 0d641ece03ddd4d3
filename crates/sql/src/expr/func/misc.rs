//! Miscellaneous functions: BENCHMARK(), UUID_SHORT(), SYS_GUID() and the
//! address functions INET_ATON/INET_NTOA, INET6_ATON/INET6_NTOA, IS_IPV4,
//! IS_IPV6, IS_IPV4_COMPAT, IS_IPV4_MAPPED.
//!
//! INET_ATON follows MariaDB's lenient reading: up to four dot-separated decimal
//! parts where a short form puts the last part in the low byte (`'1.2.3'` is
//! 1.2.0.3). INET6_ATON gives 4 bytes for an IPv4 address and 16 for IPv6;
//! INET6_NTOA writes IPv6 in RFC 5952 form with IPv4-compatible and -mapped
//! addresses in dotted tail form, as MariaDB does.

use crate::expr::{EvalCtx, Expr, R};
use crate::ty::ExprType;
use crate::value::{to_bytes, to_num};
use basalt_common::{Collation, MySqlError, Value};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MiscFn {
    Benchmark,
    UuidShort,
    SysGuid,
    InetAton,
    InetNtoa,
    Inet6Aton,
    Inet6Ntoa,
    IsIpv4,
    IsIpv6,
    IsIpv4Compat,
    IsIpv4Mapped,
    Crc32c,
    RandomBytes,
    /// BINLOG_GTID_POS(file, pos): `@@gtid_binlog_pos` as it was at that point of
    /// the binary log; NULL for a file or position the log does not have.
    BinlogGtidPos,
}

pub fn lookup(name: &str) -> Option<(MiscFn, usize, usize)> {
    use MiscFn::*;
    Some(match name {
        "benchmark" => (Benchmark, 2, 2),
        "uuid_short" => (UuidShort, 0, 0),
        "sys_guid" => (SysGuid, 0, 0),
        "inet_aton" => (InetAton, 1, 1),
        "inet_ntoa" => (InetNtoa, 1, 1),
        "inet6_aton" => (Inet6Aton, 1, 1),
        "inet6_ntoa" => (Inet6Ntoa, 1, 1),
        "is_ipv4" => (IsIpv4, 1, 1),
        "is_ipv6" => (IsIpv6, 1, 1),
        "is_ipv4_compat" => (IsIpv4Compat, 1, 1),
        "is_ipv4_mapped" => (IsIpv4Mapped, 1, 1),
        "crc32c" => (Crc32c, 1, 2),
        "binlog_gtid_pos" => (BinlogGtidPos, 2, 2),
        "random_bytes" => (RandomBytes, 1, 1),
        _ => return None,
    })
}

fn ascii(len: u32) -> ExprType {
    let mut t = ExprType::string(len, Collation::Utf8mb3GeneralCi).nullable(true);
    t.decimals = 0;
    t
}

pub fn result_type(f: MiscFn) -> ExprType {
    use MiscFn::*;
    match f {
        Benchmark => ExprType::int(1).nullable(true),
        UuidShort => ExprType::bigint().unsigned(),
        SysGuid => ExprType::string(32, Collation::Utf8mb3GeneralCi),
        InetAton => ExprType::bigint().unsigned().nullable(true),
        InetNtoa => ascii(31),
        Inet6Aton => {
            let mut t = ExprType::string(16, Collation::Binary).nullable(true);
            t.decimals = 0;
            t
        }
        Inet6Ntoa => ascii(39),
        IsIpv4 | IsIpv6 | IsIpv4Compat | IsIpv4Mapped => ExprType::int(1),
        Crc32c => ExprType::long(10).unsigned().nullable(true),
        RandomBytes => ExprType::string(1024, Collation::Binary).nullable(true),
        BinlogGtidPos => ExprType::string(255, Collation::Utf8mb3GeneralCi).nullable(true),
    }
}

/// BENCHMARK(n, expr): evaluates `expr` n times and returns 0 (NULL for a NULL
/// or negative count, with MariaDB's warning); KILL QUERY and
/// `max_statement_time` stop it.
pub fn benchmark(args: &[Expr], row: &[Value], ctx: &mut EvalCtx) -> R {
    let n = args[0].eval(row, ctx)?;
    if n.is_null() {
        return Ok(Value::Null);
    }
    let count = to_num(&n).0.to_i128().unwrap_or(0);
    if count < 0 {
        ctx.warn(
            1411,
            format!(
                "Incorrect count value: '{}' for function benchmark",
                String::from_utf8_lossy(&to_bytes(&n))
            ),
        );
        return Ok(Value::Null);
    }
    for i in 0..count {
        if i % 1024 == 0 && ctx.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Err(MySqlError::query_interrupted());
        }
        args[1].eval(row, ctx)?;
    }
    Ok(Value::Int(0))
}

/// UUID_SHORT's counter: (server id & 255) << 56 | server start time << 24,
/// incremented per call, as MariaDB builds it.
static UUID_SHORT: AtomicU64 = AtomicU64::new(0);

fn uuid_short(ctx: &mut EvalCtx) -> u64 {
    if UUID_SHORT.load(Ordering::Relaxed) == 0 {
        let start = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_secs());
        let server = ctx.cx.var_u64("server_id") & 255;
        let seed = (server << 56) | ((start & 0xFFFF_FFFF) << 24);
        let _ = UUID_SHORT.compare_exchange(0, seed, Ordering::Relaxed, Ordering::Relaxed);
    }
    UUID_SHORT.fetch_add(1, Ordering::Relaxed)
}

pub fn eval(f: MiscFn, vals: Vec<Value>, ctx: &mut EvalCtx) -> R {
    use MiscFn::*;
    match f {
        UuidShort => return Ok(Value::UInt(uuid_short(ctx))),
        SysGuid => {
            let r1 = (ctx.cx.next_rand() * u64::MAX as f64) as u64;
            let r2 = (ctx.cx.next_rand() * u64::MAX as f64) as u64;
            return Ok(Value::str(&format!("{r1:016x}{r2:016x}")));
        }
        IsIpv4 | IsIpv6 | IsIpv4Compat | IsIpv4Mapped if vals[0].is_null() => {
            return Ok(Value::Int(0))
        }
        _ if vals.iter().any(Value::is_null) => return Ok(Value::Null),
        _ => {}
    }
    let text = || String::from_utf8_lossy(&to_bytes(&vals[0])).into_owned();
    Ok(match f {
        BinlogGtidPos => {
            let pos = to_num(&vals[1]).0.to_i128().unwrap_or(-1);
            let found = ctx.cx.engine.binlog().and_then(|b| {
                let pos = u64::try_from(pos).ok()?;
                b.gtid_pos_at(&text(), pos)
            });
            found.map_or(Value::Null, |list| {
                Value::str(&basalt_replication::gtid::format_list(&list))
            })
        }
        InetAton => inet_aton(&text()).map_or(Value::Null, |n| Value::UInt(n as u64)),
        InetNtoa => match to_num(&vals[0]).0.to_i128() {
            Some(n) if (0..=u32::MAX as i128).contains(&n) => {
                Value::str(&Ipv4Addr::from(n as u32).to_string())
            }
            _ => Value::Null,
        },
        Inet6Aton => inet6_aton(&text()).map_or(Value::Null, Value::Bytes),
        Inet6Ntoa => match &vals[0] {
            Value::Bytes(b) => inet6_ntoa(b).map_or(Value::Null, |s| Value::str(&s)),
            _ => Value::Null,
        },
        IsIpv4 => Value::Int(text().parse::<Ipv4Addr>().is_ok() as i64),
        IsIpv6 => Value::Int(text().parse::<Ipv6Addr>().is_ok() as i64),
        IsIpv4Compat | IsIpv4Mapped => {
            let b = to_bytes(&vals[0]);
            let ok = b.len() == 16
                && b[..10].iter().all(|&x| x == 0)
                && if f == IsIpv4Compat {
                    b[10..12] == [0, 0] && b[12..] != [0, 0, 0, 0] && b[12..] != [0, 0, 0, 1]
                } else {
                    b[10..12] == [0xff, 0xff]
                };
            Value::Int(ok as i64)
        }
        Crc32c => {
            let (prev, data) = match vals.as_slice() {
                [p, d] => (to_num(p).0.to_i128().unwrap_or(0) as u32, to_bytes(d)),
                _ => (0, to_bytes(&vals[0])),
            };
            Value::Int(crc32c::crc32c_append(prev, &data) as i64)
        }
        RandomBytes => match to_num(&vals[0]).0.to_i128() {
            Some(n) if (0..=1024).contains(&n) => random_bytes(n as usize)?,
            _ => Value::Null,
        },
        _ => Value::Null,
    })
}

/// RANDOM_BYTES(n): n bytes from the operating system's random source (as
/// MariaDB takes them from its TLS library's generator).
fn random_bytes(n: usize) -> R {
    use std::io::Read;
    let mut buf = vec![0u8; n];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .map_err(|e| MySqlError::internal(format!("random source: {e}")))?;
    Ok(Value::Bytes(buf))
}

/// INET_ATON: `a.b.c.d`, with short forms putting the last part in the low byte.
pub fn inet_aton(s: &str) -> Option<u32> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() > 4
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    let nums: Vec<u32> = parts
        .iter()
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    if nums.iter().any(|&n| n > 255) {
        return None;
    }
    let (last, head) = nums.split_last()?;
    let mut n = 0u32;
    for (i, &h) in head.iter().enumerate() {
        n |= h << (24 - 8 * i);
    }
    Some(n | last)
}

fn inet6_aton(s: &str) -> Option<Vec<u8>> {
    if let Ok(v4) = s.parse::<Ipv4Addr>() {
        return Some(v4.octets().to_vec());
    }
    s.parse::<Ipv6Addr>().ok().map(|v6| v6.octets().to_vec())
}

fn inet6_ntoa(b: &[u8]) -> Option<String> {
    match b.len() {
        4 => Some(Ipv4Addr::new(b[0], b[1], b[2], b[3]).to_string()),
        16 => {
            let mut o = [0u8; 16];
            o.copy_from_slice(b);
            let v6 = Ipv6Addr::from(o);
            // IPv4-compatible addresses keep the dotted tail (Rust prints hex).
            if o[..12].iter().all(|&x| x == 0) && o[12..] != [0, 0, 0, 0] && o[12..] != [0, 0, 0, 1]
            {
                return Some(format!("::{}", Ipv4Addr::new(o[12], o[13], o[14], o[15])));
            }
            Some(v6.to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inet_forms() {
        assert_eq!(inet_aton("10.0.5.9"), Some(167_773_449));
        assert_eq!(inet_aton("1.2.3"), Some(16_908_291));
        assert_eq!(inet_aton("x"), None);
        assert_eq!(inet_aton("1.2.3.256"), None);
        assert_eq!(
            inet6_ntoa(&inet6_aton("::ffff:10.0.5.9").expect("v6")).as_deref(),
            Some("::ffff:10.0.5.9")
        );
        assert_eq!(
            inet6_ntoa(&inet6_aton("::10.0.5.9").expect("v6")).as_deref(),
            Some("::10.0.5.9")
        );
    }
}
