#pragma once
// What the robot dataset tests share: the shared LeRobot fixtures, their truth.json comparisons, the Parquet peers.
#include <fstream>
#include <string>

#include "test_support.h"
#include "worldstudio/core/pyjson.h"

namespace wstest {

inline const std::string kLerobotFixtures = WS_SOURCE_DIR "/../shared/reference/golden/lerobot";

inline ws::ojson load_json(const std::string& path) {
    std::ifstream f(path);
    return ws::ojson::parse(f);
}

// Numbers compare as doubles (truth.json writes float32 values as their exact double); objects key by key.
inline bool same_json(const ws::ojson& a, const ws::ojson& b) {
    if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
    if (a.is_array() && b.is_array()) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); ++i)
            if (!same_json(a[i], b[i])) return false;
        return true;
    }
    if (a.is_object() && b.is_object()) {
        if (a.size() != b.size()) return false;
        for (const auto& [k, v] : a.items())
            if (!b.contains(k) || !same_json(v, b[k])) return false;
        return true;
    }
    return a == b;
}

// The Parquet peers, DuckDB and pyarrow, through scripts/parquet-peer.py on the project's Python (.venv).
inline bool have_parquet_peers() { return run(WS_PEER_PYTHON, {"-c", "import duckdb, pyarrow"}).code == 0; }
inline ProcResult parquet_peer(const QStringList& args) {
    return run(WS_PEER_PYTHON, QStringList{WS_SOURCE_DIR "/scripts/parquet-peer.py"} + args);
}

}  // namespace wstest
