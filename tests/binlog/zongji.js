// Reads row events from a primary's binary log with @vlasky/zongji.
//
// Usage: node zongji.js PORT COUNT [SERVER_ID]
//
// Connects to 127.0.0.1:PORT as root (no password), starts at the beginning of the
// binary log (startAtEnd: false) with includeEvents tablemap/writerows/updaterows/
// deleterows, and prints one JSON line per row change until COUNT were printed (exit 0),
// or exits 2 after 20 s of silence, 3 on an error.  A line:
//
//   {"kind": "insert"|"update"|"delete", "schema": S, "table": T,
//    "columns": [names...], "before": [values]|null, "after": [values]|null}
//
// Values: null, numbers and strings as zongji gives them; Buffer -> {"hex": "..."};
// Date -> {"date": ISO text in UTC}; a number that is not an integer ->
// {"float": text}; big integers (strings or BigInt) -> their decimal text.
'use strict';
const path = require('path');

// The package is an ES module installed under tests/binlog/node
// (scripts/install-test-deps.sh); imported by path, so no NODE_PATH is needed.
const ZONGJI = path.join(__dirname, 'node', 'node_modules', '@vlasky', 'zongji', 'index.js');

const port = Number(process.argv[2]);
const want = Number(process.argv[3]);
const serverId = Number(process.argv[4] || 4343);

function norm(v) {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) return { hex: v.toString('hex') };
  if (v instanceof Date) return { date: v.toISOString() };
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' && !Number.isInteger(v)) return { float: String(v) };
  if (typeof v === 'object') return { json: JSON.stringify(v) };
  return v;
}

let zongji = null;
let printed = 0;
let timer = null;
function arm() {
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => {
    process.stderr.write(`zongji: only ${printed} of ${want} row changes\n`);
    process.exit(2);
  }, 20000);
}
arm();

function emit(kind, ev, before, after) {
  const t = ev.tableMap[ev.tableId];
  const cols = t.columns.map((c) => c.name);
  const vals = (row) => (row ? cols.map((c) => norm(row[c])) : null);
  process.stdout.write(JSON.stringify({
    kind, schema: t.parentSchema, table: t.tableName, columns: cols,
    before: vals(before), after: vals(after),
  }) + '\n');
  printed += 1;
  arm();
  if (printed >= want) {
    zongji.stop();
    process.exit(0);
  }
}

import(ZONGJI).then(({ default: ZongJi }) => {
  zongji = new ZongJi({ host: '127.0.0.1', port, user: 'root', password: '' });
  zongji.on('binlog', (ev) => {
    const name = ev.getEventName();
    for (const row of ev.rows || []) {
      if (name === 'writerows') emit('insert', ev, null, row);
      else if (name === 'updaterows') emit('update', ev, row.before, row.after);
      else if (name === 'deleterows') emit('delete', ev, row, null);
    }
  });
  zongji.on('error', (err) => {
    process.stderr.write(`zongji error: ${err && err.stack ? err.stack : err}\n`);
    process.exit(3);
  });
  zongji.start({
    serverId,
    startAtEnd: false,
    includeEvents: ['tablemap', 'writerows', 'updaterows', 'deleterows'],
  });
});
