#!/usr/bin/env python3
"""The independent Parquet peers of the robot dataset tests and `dataset bench`: DuckDB and pyarrow (PyPI, pinned in
installer/requirements.txt, installed into .venv by installer/install-deps.sh).

  parquet-peer.py read REPEAT FILE...   DuckDB materialises every column of FILEs REPEAT times, on one thread;
                                        prints {"rows", "bytes", "seconds", "repeat"}
  parquet-peer.py sql SQL               DuckDB runs SQL; prints the result rows as a JSON list of objects
  parquet-peer.py arrow FILE            pyarrow reads FILE; prints {"columns": [names], "rows": [objects]}

Errors print one line on stderr and exit 1; a bad command line exits 2."""
import json
import os
import sys
import time


def fail(message, code=1):
    sys.stderr.write(message.splitlines()[0] if message else "failed")
    sys.stderr.write("\n")
    sys.exit(code)


def plain(value):
    """A JSON-ready value: Arrow and DuckDB give lists, dicts, numbers, strings, bytes and dates."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def main(argv):
    if len(argv) < 2 or argv[0] not in ("read", "sql", "arrow"):
        fail(__doc__.strip().splitlines()[0] + "\nusage: parquet-peer.py read REPEAT FILE... | sql SQL | arrow FILE", 2)
    mode, rest = argv[0], argv[1:]
    try:
        if mode == "arrow":
            import pyarrow.parquet as pq
            table = pq.read_table(rest[0])
            print(json.dumps({"columns": table.column_names, "rows": plain(table.to_pylist())}))
            return
        import duckdb
        con = duckdb.connect(":memory:")
        if mode == "read":
            repeat, files = int(rest[0]), rest[1:]
            con.execute("SET threads = 1")  # one thread, as our reader runs on one
            listed = "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"
            rows = 0
            start = time.perf_counter()
            for _ in range(repeat):
                # A table materialises (decodes) every column without converting values to Python.
                con.execute(f"CREATE OR REPLACE TEMP TABLE t AS SELECT * FROM read_parquet({listed})")
                rows += con.execute("SELECT count(*) FROM t").fetchone()[0]
            seconds = time.perf_counter() - start
            size = sum(os.path.getsize(f) for f in files)
            print(json.dumps({"rows": rows, "bytes": size * repeat, "seconds": seconds, "repeat": repeat}))
        else:
            cur = con.execute(" ".join(rest))
            names = [d[0] for d in cur.description or []]
            print(json.dumps([dict(zip(names, plain(list(r)))) for r in cur.fetchall()]))
    except ImportError as e:
        fail(f"parquet-peer: {e.name} is not installed (installer/install-deps.sh puts it in .venv)")
    except Exception as e:  # the peer's own message, one line
        fail(f"parquet-peer: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main(sys.argv[1:])
