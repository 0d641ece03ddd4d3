//! COM_STMT_EXECUTE decoding.
//!
//! ```text
//! u8      0x17
//! u32     statement id
//! u8      flags (cursor type, see consts::cursor)
//! u32     iteration count (always 1)
//! if num_params > 0:
//!   [(num_params + 7) / 8]  NULL bitmap, bit i = parameter i is NULL (no offset)
//!   u8      new-params-bound flag
//!   if != 0: num_params x (type u8, flags u8; 0x80 = unsigned)
//!   values of the non-NULL parameters that were not sent with SEND_LONG_DATA,
//!   in binary protocol form (see crate::value)
//! ```
//!
//! Parameter count and the types bound by an earlier execute live in the server's
//! statement table, so they are arguments. A statement executed for the first time
//! without types, an unknown type code or a truncated value is
//! [`ProtoError::BadExecute`] (errno 1210) — never a panic.
//!
//! Decoded values: signed integer types give `Value::Int`, unsigned ones
//! `Value::UInt`; FLOAT and DOUBLE give `Value::Double`; DECIMAL/NEWDECIMAL give
//! `Value::Decimal` when the text parses and fits, else `Value::Bytes` of the text;
//! string, BLOB, ENUM, SET, BIT, JSON and GEOMETRY give `Value::Bytes`; DATE gives
//! `Value::Date`, DATETIME/TIMESTAMP `Value::DateTime`, TIME `Value::Time` (hours
//! beyond 838:59:59 saturate as MySQL does); YEAR gives `Value::Int`; the NULL type
//! gives `Value::Null`. Temporal parts are passed through unvalidated (month 13
//! reaches the SQL layer, which decides).

use crate::codec::Reader;
use crate::error::ProtoError;
use basalt_common::{ColumnType, Date, DateTime, Decimal, Time, Value};

/// Type of a bound parameter, as sent by the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamType {
    pub column_type: ColumnType,
    pub unsigned: bool,
}

/// A decoded COM_STMT_EXECUTE.
#[derive(Clone, Debug, PartialEq)]
pub struct StmtExecute {
    pub stmt_id: u32,
    /// Cursor flags (`consts::cursor`).
    pub flags: u8,
    pub iteration_count: u32,
    /// One value per parameter.
    pub params: Vec<Value>,
}

/// Decodes a COM_STMT_EXECUTE payload (including the command byte).
///
/// - `num_params`: the statement's parameter count (from its PREPARE_OK).
/// - `bound_types`: the types of the previous execute; replaced when the client
///   sends new ones. Must be kept per statement by the caller (cleared by
///   COM_STMT_RESET is *not* required: MySQL keeps types across resets).
/// - `long_data`: per-parameter data accumulated from COM_STMT_SEND_LONG_DATA;
///   entries that are `Some` are taken (left `None`) and become `Value::Bytes`, and
///   the packet carries no value for them.
pub fn decode_stmt_execute(
    payload: &[u8],
    num_params: usize,
    bound_types: &mut Vec<ParamType>,
    long_data: &mut [Option<Vec<u8>>],
) -> Result<StmtExecute, ProtoError> {
    let bad = ProtoError::BadExecute;
    let mut r = Reader::new(payload);
    r.u8("command").map_err(|_| bad("empty packet"))?;
    let stmt_id = r.u32("").map_err(|_| bad("statement id"))?;
    let flags = r.u8("").map_err(|_| bad("flags"))?;
    let iteration_count = r.u32("").map_err(|_| bad("iteration count"))?;
    let mut exec = StmtExecute {
        stmt_id,
        flags,
        iteration_count,
        params: Vec::new(),
    };
    if num_params == 0 {
        return Ok(exec);
    }
    let bitmap = r
        .take(num_params.div_ceil(8), "")
        .map_err(|_| bad("null bitmap"))?;
    let new_types = r.u8("").map_err(|_| bad("new-params-bound flag"))?;
    // MySQL reads types whenever the flag is non-zero. New types replace the bound
    // ones only when the whole packet decodes: a malformed execute must not leave
    // garbage types for the next one that relies on them.
    let fresh = if new_types != 0 {
        Some(read_types(&mut r, num_params)?)
    } else if bound_types.len() != num_params {
        return Err(bad("parameter types were never sent"));
    } else {
        None
    };
    exec.params.reserve(num_params);
    for (i, ty) in fresh.as_deref().unwrap_or(bound_types).iter().enumerate() {
        if let Some(data) = long_data.get_mut(i).and_then(Option::take) {
            exec.params.push(Value::Bytes(data));
        } else if bitmap[i / 8] & (1 << (i % 8)) != 0 {
            exec.params.push(Value::Null);
        } else {
            exec.params.push(decode_param(&mut r, *ty)?);
        }
    }
    if let Some(types) = fresh {
        *bound_types = types;
    }
    Ok(exec)
}

fn read_types(r: &mut Reader<'_>, n: usize) -> Result<Vec<ParamType>, ProtoError> {
    let raw = r
        .take(n * 2, "")
        .map_err(|_| ProtoError::BadExecute("parameter types"))?;
    raw.chunks_exact(2)
        .map(|p| {
            let column_type = ColumnType::from_u8(p[0])
                .ok_or(ProtoError::BadExecute("unknown parameter type"))?;
            Ok(ParamType {
                column_type,
                unsigned: p[1] & 0x80 != 0,
            })
        })
        .collect()
}

/// Decodes one binary-protocol value of type `ty`.
pub fn decode_param(r: &mut Reader<'_>, ty: ParamType) -> Result<Value, ProtoError> {
    let t = |e: ProtoError| match e {
        ProtoError::Malformed(what) => ProtoError::BadExecute(what),
        other => other,
    };
    decode_value(r, ty).map_err(t)
}

fn decode_value(r: &mut Reader<'_>, ty: ParamType) -> Result<Value, ProtoError> {
    let int = |signed: i64, unsigned: u64| {
        if ty.unsigned {
            Value::UInt(unsigned)
        } else {
            Value::Int(signed)
        }
    };
    Ok(match ty.column_type {
        ColumnType::Null => Value::Null,
        ColumnType::Tiny => {
            let v = r.u8("TINY parameter")?;
            int(v as i8 as i64, v as u64)
        }
        ColumnType::Short => {
            let v = r.u16("SHORT parameter")?;
            int(v as i16 as i64, v as u64)
        }
        ColumnType::Year => Value::Int(r.u16("YEAR parameter")? as i64),
        ColumnType::Long | ColumnType::Int24 => {
            let v = r.u32("LONG parameter")?;
            int(v as i32 as i64, v as u64)
        }
        ColumnType::LongLong => {
            let v = r.u64("LONGLONG parameter")?;
            int(v as i64, v)
        }
        ColumnType::Float => Value::Double(f32::from_le_bytes(r.array("FLOAT parameter")?) as f64),
        ColumnType::Double => Value::Double(f64::from_le_bytes(r.array("DOUBLE parameter")?)),
        ColumnType::Decimal | ColumnType::NewDecimal => {
            let text = r.lenenc_bytes("DECIMAL parameter")?;
            std::str::from_utf8(text)
                .ok()
                .and_then(Decimal::parse)
                .map_or_else(|| Value::Bytes(text.to_vec()), Value::Decimal)
        }
        ColumnType::Date => Value::Date(decode_datetime(r)?.date),
        ColumnType::DateTime | ColumnType::Timestamp => Value::DateTime(decode_datetime(r)?),
        ColumnType::Time => Value::Time(decode_time(r)?),
        ColumnType::VarChar
        | ColumnType::Bit
        | ColumnType::Enum
        | ColumnType::Set
        | ColumnType::TinyBlob
        | ColumnType::MediumBlob
        | ColumnType::LongBlob
        | ColumnType::Blob
        | ColumnType::VarString
        | ColumnType::String
        | ColumnType::Geometry => Value::Bytes(r.lenenc_bytes("string parameter")?.to_vec()),
    })
}

/// Binary DATE/DATETIME/TIMESTAMP (length 0, 4, 7 or 11).
pub fn decode_datetime(r: &mut Reader<'_>) -> Result<DateTime, ProtoError> {
    let len = r.u8("DATETIME length")?;
    if !matches!(len, 0 | 4 | 7 | 11) {
        return Err(ProtoError::Malformed("DATETIME length"));
    }
    let b = r.take(len as usize, "DATETIME value")?;
    let mut dt = DateTime::default();
    if len >= 4 {
        dt.date = Date::new(u16::from_le_bytes([b[0], b[1]]), b[2], b[3]);
    }
    if len >= 7 {
        (dt.hour, dt.minute, dt.second) = (b[4], b[5], b[6]);
    }
    if len == 11 {
        dt.micro = u32::from_le_bytes([b[7], b[8], b[9], b[10]]);
    }
    Ok(dt)
}

/// Binary TIME (length 0, 8 or 12).
pub fn decode_time(r: &mut Reader<'_>) -> Result<Time, ProtoError> {
    let len = r.u8("TIME length")?;
    if !matches!(len, 0 | 8 | 12) {
        return Err(ProtoError::Malformed("TIME length"));
    }
    let b = r.take(len as usize, "TIME value")?;
    if len == 0 {
        return Ok(Time::default());
    }
    let days = u32::from_le_bytes([b[1], b[2], b[3], b[4]]) as u64;
    let hours = days * 24 + b[5] as u64;
    let micro = if len == 12 {
        u32::from_le_bytes([b[8], b[9], b[10], b[11]])
    } else {
        0
    };
    let t = Time {
        negative: b[0] != 0,
        hours: hours.min(838) as u16,
        minute: b[6],
        second: b[7],
        micro,
    };
    Ok(if hours > 838 {
        Time {
            minute: 59,
            second: 59,
            micro: 0,
            ..t
        }
    } else {
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{encode_binary_datetime, encode_binary_time};

    fn pt(t: ColumnType, unsigned: bool) -> ParamType {
        ParamType {
            column_type: t,
            unsigned,
        }
    }

    #[test]
    fn matches_protocol_doc_example() {
        // MySQL docs: 12 00 00 00 17 01 00 00 00 00 01 00 00 00 00 01 0f 00 03 66 6f 6f
        let payload = [
            0x17, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x0f, 0x00,
            0x03, 0x66, 0x6f, 0x6f,
        ];
        let mut types = Vec::new();
        let e = decode_stmt_execute(&payload, 1, &mut types, &mut []).expect("decode");
        assert_eq!(e.stmt_id, 1);
        assert_eq!(e.flags, 0);
        assert_eq!(e.iteration_count, 1);
        assert_eq!(e.params, vec![Value::str("foo")]);
        assert_eq!(types, vec![pt(ColumnType::VarChar, false)]);
    }

    /// A DECIMAL parameter with an exponent far beyond the precision is its text
    /// (the SQL layer decides), found without writing out the digits: the
    /// stmt_execute fuzz target's out-of-memory input was such a parameter.
    #[test]
    fn decimal_parameters_with_huge_exponents_stay_text() {
        let text = b"1E2000000000";
        let mut payload = vec![
            0x17, 0x01, 0, 0, 0, 0, 0x01, 0, 0, 0, 0x00, 0x01, 0xf6, 0x00,
        ];
        payload.push(text.len() as u8);
        payload.extend_from_slice(text);
        let mut types = Vec::new();
        let e = decode_stmt_execute(&payload, 1, &mut types, &mut []).expect("decode");
        assert_eq!(e.params, vec![Value::Bytes(text.to_vec())]);
    }

    fn header(n_params: usize, nulls: &[usize], types: Option<&[(u8, u8)]>) -> Vec<u8> {
        let mut p = vec![0x17, 7, 0, 0, 0, 0, 1, 0, 0, 0];
        let mut bitmap = vec![0u8; n_params.div_ceil(8)];
        for &i in nulls {
            bitmap[i / 8] |= 1 << (i % 8);
        }
        p.extend_from_slice(&bitmap);
        match types {
            Some(ts) => {
                p.push(1);
                for (t, f) in ts {
                    p.extend_from_slice(&[*t, *f]);
                }
            }
            None => p.push(0),
        }
        p
    }

    #[test]
    fn every_binary_type() {
        let types: &[(u8, u8)] = &[
            (0x01, 0x00),
            (0x01, 0x80),
            (0x02, 0x00),
            (0x02, 0x80),
            (0x03, 0x00),
            (0x09, 0x80),
            (0x08, 0x00),
            (0x08, 0x80),
            (0x04, 0x00),
            (0x05, 0x00),
            (0xf6, 0x00),
            (0xfc, 0x00),
            (0x0a, 0x00),
            (0x0c, 0x00),
            (0x07, 0x00),
            (0x0b, 0x00),
            (0x06, 0x00),
            (0x0d, 0x00),
            (0xfd, 0x00),
        ];
        let mut p = header(types.len(), &[], Some(types));
        p.push(0xff);
        p.push(0xff);
        p.extend_from_slice(&(-2i16).to_le_bytes());
        p.extend_from_slice(&0xfffeu16.to_le_bytes());
        p.extend_from_slice(&(-3i32).to_le_bytes());
        p.extend_from_slice(&0xffff_fffdu32.to_le_bytes());
        p.extend_from_slice(&i64::MIN.to_le_bytes());
        p.extend_from_slice(&u64::MAX.to_le_bytes());
        p.extend_from_slice(&1.5f32.to_le_bytes());
        p.extend_from_slice(&(-2.25f64).to_le_bytes());
        p.extend_from_slice(b"\x06-12.50");
        p.extend_from_slice(b"\x03\x00\xffz");
        let dt = DateTime::parse("2024-02-29 13:14:15.000016").expect("dt");
        encode_binary_datetime(&mut p, &DateTime::from_date(dt.date));
        encode_binary_datetime(&mut p, &dt);
        encode_binary_datetime(&mut p, &DateTime::default());
        let t = Time::parse("-100:02:03.5").expect("time");
        encode_binary_time(&mut p, &t);
        // NULL type: no bytes.
        p.extend_from_slice(&2024u16.to_le_bytes());
        p.extend_from_slice(b"\x02hi");
        let mut bound = Vec::new();
        let e = decode_stmt_execute(&p, types.len(), &mut bound, &mut []).expect("decode");
        assert_eq!(
            e.params,
            vec![
                Value::Int(-1),
                Value::UInt(255),
                Value::Int(-2),
                Value::UInt(0xfffe),
                Value::Int(-3),
                Value::UInt(0xffff_fffd),
                Value::Int(i64::MIN),
                Value::UInt(u64::MAX),
                Value::Double(1.5),
                Value::Double(-2.25),
                Value::Decimal(Decimal::new(-1250, 2)),
                Value::Bytes(vec![0, 0xff, b'z']),
                Value::Date(dt.date),
                Value::DateTime(dt),
                Value::DateTime(DateTime::default()),
                Value::Time(t),
                Value::Null,
                Value::Int(2024),
                Value::str("hi"),
            ]
        );
        assert_eq!(bound.len(), types.len());
    }

    #[test]
    fn nulls_rebinding_and_long_data() {
        let types: &[(u8, u8)] = &[(0x08, 0), (0xfc, 0), (0x08, 0)];
        let mut p = header(3, &[0], Some(types));
        p.extend_from_slice(&5i64.to_le_bytes());
        let mut bound = Vec::new();
        let mut long = vec![None, Some(b"big".to_vec()), None];
        let e = decode_stmt_execute(&p, 3, &mut bound, &mut long).expect("decode");
        assert_eq!(
            e.params,
            vec![Value::Null, Value::str("big"), Value::Int(5)]
        );
        assert_eq!(long, vec![None, None, None], "long data consumed");
        // Second execute without types reuses the bound ones.
        let mut p = header(3, &[1], None);
        p.extend_from_slice(&1i64.to_le_bytes());
        p.extend_from_slice(&2i64.to_le_bytes());
        let e = decode_stmt_execute(&p, 3, &mut bound, &mut long).expect("rebind");
        assert_eq!(e.params, vec![Value::Int(1), Value::Null, Value::Int(2)]);
        // Without any bound types: error, not panic.
        let mut none = Vec::new();
        assert!(matches!(
            decode_stmt_execute(&p, 3, &mut none, &mut []),
            Err(ProtoError::BadExecute(_))
        ));
    }

    #[test]
    fn bad_payloads() {
        let mut bound = Vec::new();
        // Unknown type code 0x20.
        let p = header(1, &[], Some(&[(0x20, 0)]));
        assert!(decode_stmt_execute(&p, 1, &mut bound, &mut []).is_err());
        // Truncated LONGLONG.
        let mut p = header(1, &[], Some(&[(0x08, 0)]));
        p.extend_from_slice(&[1, 2, 3]);
        assert!(decode_stmt_execute(&p, 1, &mut bound, &mut []).is_err());
        // Bad DATETIME length.
        let mut p = header(1, &[], Some(&[(0x0c, 0)]));
        p.extend_from_slice(&[5, 1, 2, 3, 4, 5]);
        assert!(decode_stmt_execute(&p, 1, &mut bound, &mut []).is_err());
        // Truncated header.
        assert!(decode_stmt_execute(&[0x17, 1, 0], 0, &mut bound, &mut []).is_err());
        // No parameters: the packet may end after the iteration count.
        let e = decode_stmt_execute(&[0x17, 1, 0, 0, 0, 1, 1, 0, 0, 0], 0, &mut bound, &mut [])
            .expect("no params");
        assert_eq!((e.stmt_id, e.flags, e.params.len()), (1, 1, 0));
    }

    #[test]
    fn failed_execute_keeps_the_bound_types() {
        let mut bound = Vec::new();
        // Types LONG, LONG but only one value: an error, and nothing bound.
        let mut p = header(2, &[], Some(&[(0x03, 0), (0x03, 0)]));
        p.extend_from_slice(&1i32.to_le_bytes());
        assert!(decode_stmt_execute(&p, 2, &mut bound, &mut []).is_err());
        assert!(bound.is_empty());
        // A good execute binds; a later malformed one with other types keeps them.
        let mut p = header(2, &[], Some(&[(0x03, 0), (0x03, 0)]));
        p.extend_from_slice(&1i32.to_le_bytes());
        p.extend_from_slice(&2i32.to_le_bytes());
        decode_stmt_execute(&p, 2, &mut bound, &mut []).expect("decode");
        let mut p = header(2, &[], Some(&[(0x08, 0), (0x08, 0)]));
        p.extend_from_slice(&1i64.to_le_bytes());
        assert!(decode_stmt_execute(&p, 2, &mut bound, &mut []).is_err());
        assert_eq!(bound.len(), 2);
        assert_eq!(bound[0].column_type, ColumnType::Long);
    }

    #[test]
    fn time_saturates() {
        let mut b = vec![8, 0];
        b.extend_from_slice(&40u32.to_le_bytes());
        b.extend_from_slice(&[1, 2, 3]);
        let t = decode_time(&mut Reader::new(&b)).expect("time");
        assert_eq!((t.hours, t.minute, t.second), (838, 59, 59));
    }
}
