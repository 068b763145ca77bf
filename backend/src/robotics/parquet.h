#pragma once
// A focused Parquet reader and writer for what LeRobot datasets hold (Debian 12 has no Arrow/Parquet C++
// library). Reads: Thrift compact footer, data pages v1 and v2, dictionary pages, PLAIN, PLAIN_DICTIONARY /
// RLE_DICTIONARY, RLE and DELTA encodings, BYTE_STREAM_SPLIT, RLE/bit-packed levels, nested lists through
// repetition and definition levels, Snappy and ZSTD; types BOOLEAN, INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY.
// Every length read from the file is bounded; every failure is a ws::Error naming the file (and column, page).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "worldstudio/robotics/dataset.h"

namespace ws::robotics::parquet {

// Parquet enum values (parquet.thrift).
enum Physical {
    kBoolean = 0,
    kInt32 = 1,
    kInt64 = 2,
    kInt96 = 3,
    kFloat = 4,
    kDouble = 5,
    kByteArray = 6,
    kFixedLenByteArray = 7
};
enum Codec { kUncompressed = 0, kSnappy = 1, kGzip = 2, kLzo = 3, kBrotli = 4, kLz4 = 5, kZstd = 6, kLz4Raw = 7 };
enum Repetition { kRequired = 0, kOptional = 1, kRepeated = 2 };

struct SchemaNode {
    std::string name;
    int physical = -1;  // -1 for groups
    int type_length = 0;
    int repetition = kRequired;
    int num_children = 0;
    int converted = -1;
    int logical = -1;  // LogicalType union field id, -1 when absent
    int int_bits = 0;  // IntType bit width
    bool int_signed = true;
};

// One leaf column of the schema, as the row groups' column chunks come.
struct LeafInfo {
    std::string name;               // the top-level field's name, or the dotted path when a field has several leaves
    std::vector<std::string> path;  // path_in_schema
    int physical = -1;
    int converted = -1, logical = -1, int_bits = 0;
    bool int_signed = true;
    int max_def = 0, max_rep = 0;
    std::vector<int> repeated_def;  // definition level at which each repeated ancestor is present
    bool supported = false;
    ValueKind kind = ValueKind::Float64;
    std::string why_unsupported;
};

struct ChunkInfo {
    int physical = -1;
    int codec = 0;
    int64_t num_values = 0;
    int64_t data_page_offset = 0, dictionary_page_offset = -1;
    int64_t total_compressed_size = 0;
};

struct RowGroupInfo {
    int64_t num_rows = 0;
    std::vector<ChunkInfo> chunks;  // one per leaf
};

class File {
public:
    // Reads and checks the whole footer; the pages are decoded only when a column is read.
    static File open(const std::string& path);
    // The same from bytes in memory (`name` is what errors call the file).
    static File from_bytes(std::string bytes, const std::string& name);

    const std::string& path() const { return path_; }
    int64_t num_rows() const { return num_rows_; }
    int64_t size() const { return static_cast<int64_t>(bytes_->size()); }
    const std::vector<LeafInfo>& leaves() const { return leaves_; }
    const std::vector<RowGroupInfo>& row_groups() const { return row_groups_; }
    const std::vector<std::pair<std::string, std::string>>& key_values() const { return key_values_; }
    const std::string& created_by() const { return created_by_; }
    int find(const std::string& name) const;  // leaf index, -1 when absent
    bool has(const std::string& name) const { return find(name) >= 0; }

    // Leaf `leaf` over row groups [rg_begin, rg_end) (rg_end < 0: to the last).
    Column read(int leaf, int rg_begin = 0, int rg_end = -1) const;
    Column read(const std::string& name) const;  // throws naming the file when the column is absent
    std::vector<Column> read_all() const;

private:
    std::string path_;
    std::shared_ptr<const std::string> bytes_;
    int64_t num_rows_ = 0;
    std::vector<SchemaNode> schema_;
    std::vector<LeafInfo> leaves_;
    std::vector<RowGroupInfo> row_groups_;
    std::vector<std::pair<std::string, std::string>> key_values_;
    std::string created_by_;
    void parse_footer();
    void build_leaves();
    void read_chunk(int leaf, int rg, Column& out) const;
};

// Writing (parquet_writer.cpp): PLAIN values, data pages v1 (or v2), uncompressed, Snappy or ZSTD, REQUIRED or
// OPTIONAL scalars and 3-level LISTs (nested `depth` deep) of scalars and strings.
struct WriteColumn {
    std::string name;
    ValueKind kind = ValueKind::Float64;
    int depth = 0;         // 0 scalar, 1 list, 2 list of lists ...
    bool optional = true;  // every non-repeated node OPTIONAL (as Arrow writes) or REQUIRED
};

struct WriteOptions {
    int codec = kSnappy;
    int page_version = 1;
    int64_t rows_per_page = 0;      // 0: one page per column chunk
    bool bitpacked_levels = false;  // levels as bit-packed groups instead of RLE runs (to exercise both paths)
    std::vector<std::pair<std::string, std::string>> key_values;
};

// One row group per entry of `row_groups`; each holds one Column per schema entry (same kind and depth).
std::string write_bytes(const std::vector<WriteColumn>& schema, const std::vector<std::vector<Column>>& row_groups,
                        const WriteOptions& options = {});
void write_file(const std::string& path, const std::vector<WriteColumn>& schema,
                const std::vector<std::vector<Column>>& row_groups, const WriteOptions& options = {});

}  // namespace ws::robotics::parquet
