// DuckDB as the independent Parquet peer (npm @duckdb/node-api, installed by scripts/test.sh into build/peer).
//   node scripts/duckdb-read.mjs PEER_DIR read REPEAT FILE...   materialises every column of FILEs REPEAT times;
//                                                              prints {"rows", "bytes", "seconds", "repeat"}
//   node scripts/duckdb-read.mjs PEER_DIR sql SQL              runs SQL; prints the result rows as JSON
// PEER_DIR is the npm prefix holding node_modules/@duckdb/node-api.
import { createRequire } from 'node:module';
import { statSync } from 'node:fs';
import path from 'node:path';

const [peer, mode, ...rest] = process.argv.slice(2);
if (!peer || !mode) {
  console.error('usage: duckdb-read.mjs PEER_DIR read REPEAT FILE... | PEER_DIR sql SQL');
  process.exit(2);
}
const require = createRequire(path.resolve(peer, 'node_modules') + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";

try {
  if (mode === 'read') {
    const repeat = Number(rest[0]);
    const files = rest.slice(1);
    const list = '[' + files.map(quote).join(', ') + ']';
    const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
    let rows = 0;
    // One thread, as our reader runs on one.
    await connection.run('SET threads = 1');
    const start = performance.now();
    for (let i = 0; i < repeat; ++i) {
      // A table materialises (decodes) every column without converting values to JavaScript.
      await connection.run(`CREATE OR REPLACE TEMP TABLE t AS SELECT * FROM read_parquet(${list})`);
      const r = await connection.runAndReadAll('SELECT count(*)::INTEGER AS n FROM t');
      rows += r.getRowObjectsJson()[0].n;
    }
    const seconds = (performance.now() - start) / 1000;
    console.log(JSON.stringify({ rows, bytes: bytes * repeat, seconds, repeat }));
  } else if (mode === 'sql') {
    const reader = await connection.runAndReadAll(rest.join(' '));
    console.log(JSON.stringify(reader.getRowObjectsJson()));
  } else {
    console.error(`duckdb-read.mjs: unknown mode ${mode}`);
    process.exit(2);
  }
} catch (e) {
  console.error(`duckdb: ${e.message.split('\n')[0]}`);
  process.exit(1);
} finally {
  connection.closeSync();
}
