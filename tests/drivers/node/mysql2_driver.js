// node mysql2 against basaltd: connect, DDL, execute() (COM_STMT_PREPARE / EXECUTE,
// binary rows) and query() (text) with every SQL type Basalt has, NULLs, a
// transaction committed and one rolled back, errors by errno, and the connection
// still working after each. Prints `ok ...` per check and `OK mysql2` at the end;
// exits non-zero on the first mismatch. Usage: node mysql2_driver.js PORT
'use strict';
const assert = require('node:assert/strict');
const mysql = require('mysql2/promise');

const port = Number(process.argv[2] || process.env.BASALT_PORT);
if (!port) {
  console.error('usage: node mysql2_driver.js PORT');
  process.exit(2);
}

const DDL = `CREATE TABLE all_types (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT, tu TINYINT UNSIGNED,
  si SMALLINT, su SMALLINT UNSIGNED,
  mi MEDIUMINT, mu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED,
  bi BIGINT, bu BIGINT UNSIGNED,
  de DECIMAL(20,6), f FLOAT, d DOUBLE,
  c CHAR(10), vc VARCHAR(100), tx TEXT, bl BLOB, vb VARBINARY(16),
  da DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP NULL, tm TIME, tm3 TIME(3),
  yr YEAR,
  UNIQUE KEY uk_vc (vc)
)`;

const COLUMNS = ['id', 'ti', 'tu', 'si', 'su', 'mi', 'mu', 'i', 'iu', 'bi', 'bu', 'de', 'f', 'd',
  'c', 'vc', 'tx', 'bl', 'vb', 'da', 'dt', 'dt6', 'ts', 'tm', 'tm3', 'yr'];

const VC = 'h\u00e9llo w\u00f6rld \u2713 \u{1F600}';
const MIN_SQL = `(1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0,
  -12345678901234.123456, -1.5, -2.5e-300, 'abc', '${VC}', REPEAT('t\u00fc', 500),
  X'00010203FEFF', X'00FF', '1000-01-01', '1000-01-01 00:00:00', '2024-02-29 23:59:59.123456',
  '1970-01-02 00:00:01', '-838:59:59', '-00:00:01.500', 1901)`;

// As mysql2 hands them back with supportBigNumbers + bigNumberStrings + dateStrings.
const MIN_ROW = [1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, '-9223372036854775808', '0',
  '-12345678901234.123456', -1.5, -2.5e-300, 'abc', VC, 't\u00fc'.repeat(500),
  Buffer.from([0, 1, 2, 3, 0xfe, 0xff]), Buffer.from([0, 0xff]),
  '1000-01-01', '1000-01-01 00:00:00', '2024-02-29 23:59:59.123456', '1970-01-02 00:00:01',
  '-838:59:59', '-00:00:01.500', 1901];
const MAX_ROW = [2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,
  '9223372036854775807', '18446744073709551615', '99999999999999.999999', 3.25,
  3.141592653589793, 'xyz', '', '', Buffer.from([...Array(256).keys()]), Buffer.alloc(0),
  '9999-12-31', '9999-12-31 23:59:59', '2001-02-03 04:05:06.000007', '2038-01-19 03:14:07',
  '838:59:59', '12:34:56.789', 2155];
const NULL_ROW = [3, ...Array(COLUMNS.length - 1).fill(null)];
const NULL_ROW_TEXT = [4, ...Array(COLUMNS.length - 1).fill(null)];
const INSERT = `INSERT INTO all_types VALUES (${COLUMNS.map(() => '?').join(', ')})`;

function log(msg) {
  console.log(msg);
}

function checkRows(what, got, want) {
  assert.equal(got.length, want.length, `${what}: row count`);
  got.forEach((row, r) => {
    COLUMNS.forEach((name, k) => {
      const a = Array.isArray(row) ? row[k] : row[name];
      const w = want[r][k];
      assert.deepStrictEqual(a, w, `${what}: row id=${want[r][0]} column ${name}`);
    });
  });
  log(`ok ${what}: ${got.length} rows`);
}

async function expectErrno(what, errno, fn) {
  try {
    await fn();
  } catch (e) {
    assert.equal(e.errno, errno, `${what}: ${e.message}`);
    log(`ok ${what}: errno ${e.errno} (${e.code})`);
    return;
  }
  assert.fail(`${what}: no error, want errno ${errno}`);
}

async function main() {
  const conn = await mysql.createConnection({
    host: '127.0.0.1', port, user: 'root', password: '',
    charset: 'utf8mb4', supportBigNumbers: true, bigNumberStrings: true, dateStrings: true,
  });
  log(`connected: server ${conn.connection._handshakePacket.serverVersion}`);
  await conn.query('DROP DATABASE IF EXISTS drv_mysql2');
  await conn.query('CREATE DATABASE drv_mysql2');
  await conn.changeUser({ database: 'drv_mysql2' });
  await conn.query(DDL);
  log('ok ddl');

  await conn.query(`INSERT INTO all_types VALUES ${MIN_SQL}`);
  const params = MAX_ROW.slice();
  const [res] = await conn.execute(INSERT, params);
  assert.equal(res.affectedRows, 1);
  await conn.execute(INSERT, NULL_ROW);
  await conn.query('INSERT INTO all_types (id) VALUES (4)');
  const all = [MIN_ROW, MAX_ROW, NULL_ROW, NULL_ROW_TEXT];

  let [rows] = await conn.query('SELECT * FROM all_types ORDER BY id');
  checkRows('text select', rows, all);
  [rows] = await conn.execute('SELECT * FROM all_types ORDER BY id');
  checkRows('execute select', rows, all);
  for (const row of all) {
    [rows] = await conn.execute('SELECT * FROM all_types WHERE id = ?', [row[0]]);
    checkRows(`execute select id=${row[0]}`, rows, [row]);
  }
  [rows] = await conn.query({ sql: 'SELECT * FROM all_types WHERE id = 2', rowsAsArray: true });
  checkRows('text select as arrays', rows, [MAX_ROW]);
  // Each column compared with a bound parameter (numbers, strings, Buffers).
  for (const name of ['ti', 'tu', 'si', 'su', 'mi', 'mu', 'i', 'iu', 'bi', 'bu', 'de', 'f', 'd',
    'c', 'vc', 'bl', 'vb', 'da', 'dt', 'dt6', 'ts', 'tm', 'tm3', 'yr']) {
    const k = COLUMNS.indexOf(name);
    for (const row of [MIN_ROW, MAX_ROW]) {
      [rows] = await conn.execute(`SELECT id FROM all_types WHERE ${name} = ?`, [row[k]]);
      assert.deepStrictEqual(rows.map((r) => r.id), [row[0]], `WHERE ${name} = ${row[k]}`);
    }
  }
  log('ok execute comparisons with every column');
  // A JS Date parameter (binary DATETIME) and BigInt parameters.
  const utc = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root',
    database: 'drv_mysql2', timezone: 'Z' });
  [rows] = await utc.execute('SELECT id, ts FROM all_types WHERE ts = ?',
    [new Date(Date.UTC(2038, 0, 19, 3, 14, 7))]);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].id, 2);
  assert.equal(rows[0].ts.getTime(), Date.UTC(2038, 0, 19, 3, 14, 7));
  [rows] = await utc.execute('SELECT id FROM all_types WHERE bi = ?', [9223372036854775807n]);
  assert.deepStrictEqual(rows.map((r) => r.id), [2]);
  await utc.end();
  log('ok Date and BigInt parameters');
  [rows] = await conn.execute('SELECT id FROM all_types WHERE ti IS NULL ORDER BY id');
  assert.deepStrictEqual(rows.map((r) => r.id), [3, 4]);

  // A pool of three connections, twenty concurrent execute()s.
  const pool = mysql.createPool({ host: '127.0.0.1', port, user: 'root', database: 'drv_mysql2',
    connectionLimit: 3 });
  const sums = await Promise.all([...Array(20).keys()].map(async (k) => {
    const [r] = await pool.execute('SELECT id, ? AS k FROM all_types WHERE id = ?', [k, 2]);
    return Number(r[0].k) + r[0].id;
  }));
  assert.deepStrictEqual(sums, [...Array(20).keys()].map((k) => k + 2));
  await pool.end();
  log('ok pool');

  // Transactions: rollback, then commit.
  await conn.beginTransaction();
  await conn.execute('INSERT INTO all_types (id, vc) VALUES (?, ?)', [10, 'rolled back']);
  await conn.rollback();
  [rows] = await conn.execute('SELECT COUNT(*) AS n FROM all_types WHERE id = ?', [10]);
  assert.equal(String(rows[0].n), '0', 'rolled-back row is visible');
  await conn.beginTransaction();
  await conn.execute('INSERT INTO all_types (id, vc) VALUES (?, ?)', [11, 'committed']);
  await conn.commit();
  [rows] = await conn.execute('SELECT vc FROM all_types WHERE id = ?', [11]);
  assert.deepStrictEqual(rows, [{ vc: 'committed' }]);
  await conn.query('START TRANSACTION');
  await conn.execute('DELETE FROM all_types WHERE id = ?', [11]);
  await conn.query('COMMIT');
  log('ok transactions');

  await expectErrno('duplicate primary key (execute)', 1062,
    () => conn.execute('INSERT INTO all_types (id) VALUES (?)', [1]));
  await expectErrno('duplicate unique key (query)', 1062,
    () => conn.query("INSERT INTO all_types (id, vc) VALUES (20, '')"));
  await expectErrno('missing table (execute)', 1146,
    () => conn.execute('SELECT * FROM nosuch WHERE a = ?', [1]));
  await expectErrno('missing table (query)', 1146, () => conn.query('SELECT * FROM nosuch'));
  [rows] = await conn.execute('SELECT ? + 1 AS x', [41]);
  assert.equal(Number(rows[0].x), 42);
  await conn.ping();
  log('ok errors');

  await conn.query('DROP DATABASE drv_mysql2');
  await conn.end();
  log('OK mysql2');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
