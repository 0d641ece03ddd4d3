//! Timing of the lexer and front end (run by hand).

/// `cargo test --release -p basalt-sql --lib front_speed -- --ignored --nocapture`
#[test]
#[ignore]
fn front_speed() {
    let q = "select j from foo where i = 100";
    let n: u32 = std::env::var("FRONT_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(super::lexer::lex(std::hint::black_box(q)));
    }
    println!("lex: {:?}/op", t.elapsed() / n);
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(super::analyze(std::hint::black_box(q), true, false).ok());
    }
    println!("analyze: {:?}/op", t.elapsed() / n);
}
