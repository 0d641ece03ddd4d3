//! Any byte stream through the packet reader with a small max_allowed_packet: must
//! end in Ok packets within the limit or an error, never a panic or a big allocation.
#![no_main]
use basalt_protocol::PacketConn;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut conn = PacketConn::new(data);
        conn.set_max_allowed_packet(4096);
        let mut buf = Vec::new();
        while conn.read_packet(&mut buf).await.is_ok() {
            assert!(buf.len() <= 4096);
        }
    });
});
