//! Bad input to the statement commands: each is an error for that command only, and
//! the connection keeps working.

use super::*;

#[test]
fn bad_input_is_an_error_for_that_command_only() {
    let b = Basalt::start();
    let mut s = raw_setup(&b);
    let two = prepare(&mut s, "select ? + ?").expect("prepare");
    assert_eq!(two.params, 2);
    // Unknown statement id.
    expect_err(execute(&mut s, 12345, 0, &[]), 1243, "unknown id");
    still_works(&mut s);
    // Wrong parameter count: one value for two parameters.
    expect_err(
        execute(&mut s, two.id, 0, &[p_long(1)]),
        1210,
        "too few parameters",
    );
    still_works(&mut s);
    // First execute without types bound.
    let mut p = execute_payload(two.id, 0, &[p_long(1), p_long(2)], false);
    p.truncate(p.len() - 8);
    p.extend_from_slice(&1i32.to_le_bytes());
    p.extend_from_slice(&2i32.to_le_bytes());
    send_packet(&mut s, 0, &p);
    expect_err(read_reply(&mut s), 1210, "no types bound");
    still_works(&mut s);
    // An impossible parameter type byte.
    let bad = [
        Param {
            ty: 0x20,
            flag: 0,
            value: Some(vec![1, 0, 0, 0]),
        },
        p_long(2),
    ];
    expect_err(execute(&mut s, two.id, 0, &bad), 1210, "type 0x20");
    still_works(&mut s);
    // A truncated COM_STMT_EXECUTE: header cut short, and values cut short.
    send_packet(&mut s, 0, &[COM_STMT_EXECUTE, 1, 0]);
    match read_reply(&mut s) {
        // 1835: malformed packet (too short to hold a statement id).
        Reply::Err(code, _) => assert!([1210, 1243, 1835].contains(&code), "{code}"),
        other => panic!("truncated header: {other:?}"),
    }
    still_works(&mut s);
    let full = execute_payload(two.id, 0, &[p_longlong(1), p_longlong(2)], true);
    for cut in [11, 12, 15, full.len() - 1] {
        send_packet(&mut s, 0, &full[..cut]);
        expect_err(read_reply(&mut s), 1210, &format!("cut at {cut}"));
        still_works(&mut s);
    }
    // A bad DATETIME length byte.
    let dt = Param {
        ty: T_DATETIME,
        flag: 0,
        value: Some(vec![5, 1, 2, 3, 4, 5]),
    };
    expect_err(
        execute(&mut s, two.id, 0, &[dt, p_long(1)]),
        1210,
        "datetime",
    );
    // After all that the statement still executes.
    let Reply::Rows { rows, .. } = execute(&mut s, two.id, 0, &[p_longlong(40), p_longlong(2)])
    else {
        panic!("rows")
    };
    assert_eq!(rows.len(), 1);
    // Preparing bad SQL.
    assert_eq!(prepare(&mut s, "selec ?").expect_err("syntax").0, 1064);
    assert_eq!(
        prepare(&mut s, "select * from no_such_table")
            .expect_err("table")
            .0,
        1146
    );
    // Fetch, reset, close of unknown ids.
    assert_eq!(fetch(&mut s, 777, 1).expect_err("fetch").0, 1243);
    expect_err(stmt_reset(&mut s, 777), 1243, "reset");
    stmt_close(&mut s, 777);
    // A COM_STMT_CLOSE or SEND_LONG_DATA too short to parse gets no reply either.
    send_packet(&mut s, 0, &[COM_STMT_CLOSE, 1]);
    send_packet(&mut s, 0, &[COM_STMT_SEND_LONG_DATA, 1, 0]);
    still_works(&mut s);
}

#[test]
fn max_prepared_stmt_count_is_enforced() {
    let b = Basalt::start();
    let mut s = raw_setup(&b);
    query_ok(&mut s, "set global max_prepared_stmt_count = 5");
    assert_eq!(
        query_rows(&mut s, "select @@global.max_prepared_stmt_count"),
        [[Some("5".into())]]
    );
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(
            prepare(&mut s, &format!("select {i}"))
                .expect("within the limit")
                .id,
        );
    }
    let (code, msg) = prepare(&mut s, "select 5").expect_err("over the limit");
    assert_eq!(code, 1461, "{msg}");
    still_works(&mut s);
    // The existing statements keep working; closing one makes room.
    let Reply::Rows { rows, .. } = execute(&mut s, ids[4], 0, &[]) else {
        panic!("rows")
    };
    assert_eq!(rows.len(), 1);
    stmt_close(&mut s, ids[0]);
    let p = prepare(&mut s, "select 6").expect("room again");
    assert_eq!(prepare(&mut s, "select 7").expect_err("full").0, 1461);
    // SQL PREPARE counts too.
    expect_err(
        query(&mut s, "prepare x from 'select 1'"),
        1461,
        "sql prepare",
    );
    // Raising the limit takes effect at once.
    query_ok(&mut s, "set global max_prepared_stmt_count = 100");
    prepare(&mut s, "select 8").expect("after raising the limit");
    query_ok(&mut s, "prepare x from 'select 1'");
    let _ = p;
    // Through the mysql crate on another connection (its own statement cache).
    query_ok(&mut s, "set global max_prepared_stmt_count = 3");
    let mut c = connect(&b);
    for i in 0..3 {
        c.prep(format!("select {i}")).expect("prep");
    }
    let e = c.prep("select 99").expect_err("limit");
    assert_eq!(err_code(e), 1461);
    let one: Option<i32> = c.query_first("select 1").expect("still works");
    assert_eq!(one, Some(1));
    still_works(&mut s);
}
