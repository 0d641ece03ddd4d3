//! Any bytes as a COM_STMT_EXECUTE payload; the first byte picks the parameter count,
//! the next ones previously bound types.
#![no_main]
use basalt_protocol::{decode_stmt_execute, ParamType};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = (n % 64) as usize;
    let (types, payload) = rest.split_at(rest.len().min(n));
    let mut bound: Vec<ParamType> = types
        .iter()
        .filter_map(|&t| {
            basalt_common_type(t).map(|column_type| ParamType {
                column_type,
                unsigned: t & 1 == 1,
            })
        })
        .collect();
    let mut long_data = vec![None; n / 2];
    let _ = decode_stmt_execute(payload, n, &mut bound, &mut long_data);
});

fn basalt_common_type(t: u8) -> Option<basalt_common::ColumnType> {
    basalt_common::ColumnType::from_u8(t)
}
