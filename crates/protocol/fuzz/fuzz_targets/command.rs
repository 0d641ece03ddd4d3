//! Any bytes as a command packet, under any capability set.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (caps, payload) = match data.split_first_chunk::<4>() {
        Some((c, rest)) => (u32::from_le_bytes(*c), rest),
        None => (0, data),
    };
    let _ = basalt_protocol::parse_command(payload, caps);
});
