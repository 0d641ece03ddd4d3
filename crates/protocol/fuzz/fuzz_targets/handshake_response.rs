//! Any bytes as the client's HandshakeResponse41 and as a COM_CHANGE_USER body.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = basalt_protocol::handshake::parse_handshake_response(data);
    let caps = basalt_protocol::capability::SERVER_DEFAULT;
    let _ = basalt_protocol::ChangeUser::parse(data, caps);
});
