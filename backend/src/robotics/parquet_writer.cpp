// A small Parquet writer for the dataset export and the tests: PLAIN values, RLE (or bit-packed) levels, data
// pages v1 or v2, uncompressed / Snappy / ZSTD, REQUIRED or OPTIONAL scalars and 3-level LISTs nested to any depth.
#include <snappy.h>
#include <zstd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "robotics/parquet.h"
#include "robotics/thrift_compact.h"
#include "worldstudio/core/error.h"

namespace ws::robotics::parquet {

namespace {

int physical_of(ValueKind k) {
    switch (k) {
        case ValueKind::Bool: return kBoolean;
        case ValueKind::Int32: return kInt32;
        case ValueKind::Int64: return kInt64;
        case ValueKind::Float32: return kFloat;
        case ValueKind::Float64: return kDouble;
        case ValueKind::String: return kByteArray;
    }
    return kDouble;
}

int width_of(int max_level) {
    int w = 0;
    while (max_level > 0) ++w, max_level >>= 1;
    return w;
}

void put_varint(std::string& out, uint64_t v) {
    while (v >= 0x80) out.push_back(static_cast<char>((v & 0x7f) | 0x80)), v >>= 7;
    out.push_back(static_cast<char>(v));
}

// RLE/bit-packed hybrid of `levels` at `bw` bits.
std::string encode_levels(const std::vector<int>& levels, int bw, bool bitpacked) {
    std::string out;
    if (bitpacked) {
        const size_t groups = (levels.size() + 7) / 8;
        put_varint(out, (groups << 1) | 1);
        std::string bits(groups * static_cast<size_t>(bw), '\0');
        for (size_t i = 0; i < levels.size(); ++i)
            for (int b = 0; b < bw; ++b)
                if ((levels[i] >> b) & 1) {
                    const size_t bit = i * static_cast<size_t>(bw) + static_cast<size_t>(b);
                    bits[bit >> 3] = static_cast<char>(bits[bit >> 3] | (1 << (bit & 7)));
                }
        return out + bits;
    }
    for (size_t i = 0; i < levels.size();) {
        size_t j = i;
        while (j < levels.size() && levels[j] == levels[i]) ++j;
        put_varint(out, (j - i) << 1);
        for (int b = 0; b < (bw + 7) / 8; ++b) out.push_back(static_cast<char>((levels[i] >> (8 * b)) & 0xff));
        i = j;
    }
    return out;
}

std::string with_length(const std::string& s) {
    std::string out(4, '\0');
    const auto n = static_cast<uint32_t>(s.size());
    std::memcpy(out.data(), &n, 4);
    return out + s;
}

std::string compress(const std::string& s, int codec) {
    if (codec == kUncompressed) return s;
    if (codec == kSnappy) {
        std::string out;
        snappy::Compress(s.data(), s.size(), &out);
        return out;
    }
    if (codec == kZstd) {
        std::string out(ZSTD_compressBound(s.size()), '\0');
        const size_t n = ZSTD_compress(out.data(), out.size(), s.data(), s.size(), 3);
        if (ZSTD_isError(n)) throw Error("ZSTD compression failed");
        out.resize(n);
        return out;
    }
    throw Error("the Parquet writer has no codec " + std::to_string(codec));
}

// The levels and PLAIN values of rows [row_begin, row_end) of one column.
struct PageContent {
    std::vector<int> rep, def;
    std::string values;
    int64_t nulls = 0;
    uint8_t bit_byte = 0;
    int bit_count = 0;
};

class ColumnEncoder {
public:
    ColumnEncoder(const WriteColumn& spec, const Column& c) : s_(spec), c_(c) {
        max_def_ = s_.optional ? 2 * s_.depth + 1 : s_.depth;
    }
    int max_def() const { return max_def_; }
    PageContent encode(int64_t row_begin, int64_t row_end) {
        PageContent p;
        for (int64_t r = row_begin; r < row_end; ++r) emit(p, 0, r, 0);
        if (p.bit_count) p.values.push_back(static_cast<char>(p.bit_byte));
        return p;
    }

private:
    void emit(PageContent& p, int level, int64_t item, int rep) {
        if (level == s_.depth) {
            const auto leaf = static_cast<size_t>(item);
            const bool null = c_.null(leaf);
            if (null && !s_.optional) throw Error("column '" + s_.name + "' is REQUIRED but has a null");
            p.rep.push_back(rep);
            p.def.push_back(null ? max_def_ - 1 : max_def_);
            if (null) return void(++p.nulls);
            value(p, leaf);
            return;
        }
        const auto& off = c_.offsets[static_cast<size_t>(level)];
        const int64_t b = off[static_cast<size_t>(item)], e = off[static_cast<size_t>(item) + 1];
        if (b == e) {
            // The list at level + 1 is present and empty.
            const int k = level + 1;
            p.rep.push_back(rep);
            p.def.push_back(s_.optional ? 2 * k - 1 : k - 1);
            return;
        }
        for (int64_t j = b; j < e; ++j) emit(p, level + 1, j, j == b ? rep : level + 1);
    }
    void value(PageContent& p, size_t i) {
        auto raw = [&](const void* v, size_t n) { p.values.append(static_cast<const char*>(v), n); };
        switch (s_.kind) {
            case ValueKind::Bool:
                if (c_.ints[i]) p.bit_byte = static_cast<uint8_t>(p.bit_byte | (1 << p.bit_count));
                if (++p.bit_count == 8)
                    p.values.push_back(static_cast<char>(p.bit_byte)), p.bit_byte = 0, p.bit_count = 0;
                break;
            case ValueKind::Int32: {
                const auto v = static_cast<int32_t>(c_.ints[i]);
                raw(&v, 4);
                break;
            }
            case ValueKind::Int64: raw(&c_.ints[i], 8); break;
            case ValueKind::Float32: {
                const auto v = static_cast<float>(c_.reals[i]);
                raw(&v, 4);
                break;
            }
            case ValueKind::Float64: raw(&c_.reals[i], 8); break;
            case ValueKind::String: {
                const auto n = static_cast<uint32_t>(c_.strings[i].size());
                raw(&n, 4);
                p.values += c_.strings[i];
                break;
            }
        }
    }
    const WriteColumn& s_;
    const Column& c_;
    int max_def_ = 0;
};

void schema_element(thrift::Writer& w, const std::string& name, int physical, int repetition, int children,
                    int converted, int logical) {
    w.begin_element();
    if (physical >= 0) w.i32(1, physical);
    w.i32(3, repetition);
    w.binary(4, name);
    if (children > 0) w.i32(5, children);
    if (converted >= 0) w.i32(6, converted);
    if (logical >= 0) {
        w.begin_struct(10);
        w.begin_struct(static_cast<int16_t>(logical));  // StringType / ListType are empty
        w.end_struct();
        w.end_struct();
    }
    w.end_struct();
}

}  // namespace

std::string write_bytes(const std::vector<WriteColumn>& schema, const std::vector<std::vector<Column>>& row_groups,
                        const WriteOptions& o) {
    if (o.page_version != 1 && o.page_version != 2) throw Error("Parquet page version must be 1 or 2");
    std::string file = "PAR1";
    struct ChunkMeta {
        int64_t offset = 0, values = 0, compressed = 0, uncompressed = 0;
    };
    std::vector<std::vector<ChunkMeta>> metas;
    std::vector<int64_t> group_rows;
    int64_t total_rows = 0;
    for (const auto& group : row_groups) {
        if (group.size() != schema.size()) throw Error("a row group needs one column per schema entry");
        const int64_t rows = schema.empty() ? 0 : group[0].rows();
        std::vector<ChunkMeta> cm;
        for (size_t c = 0; c < schema.size(); ++c) {
            const WriteColumn& s = schema[c];
            const Column& col = group[c];
            if (col.kind != s.kind || col.depth != s.depth)
                throw Error("column '" + s.name + "' does not match its schema entry");
            if (col.rows() != rows)
                throw Error("column '" + s.name + "' has " + std::to_string(col.rows()) + " rows, the row group " +
                            std::to_string(rows));
            ColumnEncoder enc(s, col);
            ChunkMeta m;
            m.offset = static_cast<int64_t>(file.size());
            const int64_t step = o.rows_per_page > 0 ? o.rows_per_page : std::max<int64_t>(rows, 1);
            for (int64_t a = 0; a < rows || (a == 0 && rows == 0); a += step) {
                PageContent p = enc.encode(a, std::min(rows, a + step));
                const std::string rep =
                    s.depth ? encode_levels(p.rep, width_of(s.depth), o.bitpacked_levels) : std::string();
                const std::string def =
                    enc.max_def() ? encode_levels(p.def, width_of(enc.max_def()), o.bitpacked_levels) : std::string();
                thrift::Writer h;
                std::string body, raw;
                if (o.page_version == 1) {
                    raw = (s.depth ? with_length(rep) : "") + (enc.max_def() ? with_length(def) : "") + p.values;
                    body = compress(raw, o.codec);
                    h.i32(1, 0);
                    h.i32(2, static_cast<int64_t>(raw.size()));
                    h.i32(3, static_cast<int64_t>(body.size()));
                    h.begin_struct(5);
                    h.i32(1, static_cast<int64_t>(p.def.size()));
                    h.i32(2, 0), h.i32(3, 3), h.i32(4, 3);
                    h.end_struct();
                } else {
                    const std::string values = compress(p.values, o.codec);
                    body = rep + def + values;
                    h.i32(1, 3);
                    h.i32(2, static_cast<int64_t>(rep.size() + def.size() + p.values.size()));
                    h.i32(3, static_cast<int64_t>(body.size()));
                    h.begin_struct(8);
                    h.i32(1, static_cast<int64_t>(p.def.size()));
                    h.i32(2, p.nulls);
                    h.i32(3, std::min(rows, a + step) - a);
                    h.i32(4, 0);
                    h.i32(5, static_cast<int64_t>(def.size()));
                    h.i32(6, static_cast<int64_t>(rep.size()));
                    h.boolean(7, o.codec != kUncompressed);
                    h.end_struct();
                }
                h.out.push_back(0);
                file += h.out + body;
                m.values += static_cast<int64_t>(p.def.size());
                m.compressed += static_cast<int64_t>(h.out.size() + body.size());
                m.uncompressed +=
                    static_cast<int64_t>(h.out.size()) +
                    (o.page_version == 1 ? static_cast<int64_t>(raw.size())
                                         : static_cast<int64_t>(rep.size() + def.size() + p.values.size()));
                if (rows == 0) break;
            }
            cm.push_back(m);
        }
        metas.push_back(std::move(cm));
        group_rows.push_back(rows);
        total_rows += rows;
    }

    thrift::Writer f;
    f.i32(1, o.page_version == 2 ? 2 : 1);
    size_t nodes = 1;
    for (const auto& s : schema) nodes += 2 * static_cast<size_t>(s.depth) + 1;
    f.list_header(2, thrift::Struct, nodes);
    schema_element(f, "schema", -1, kRequired, static_cast<int>(schema.size()), -1, -1);
    std::vector<std::vector<std::string>> paths;
    for (const auto& s : schema) {
        const int rep = s.optional ? kOptional : kRequired;
        const int phys = physical_of(s.kind);
        const int conv = s.kind == ValueKind::String ? 0 : -1, logical = s.kind == ValueKind::String ? 1 : -1;
        std::vector<std::string> path{s.name};
        std::string name = s.name;
        for (int k = 0; k < s.depth; ++k) {
            schema_element(f, name, -1, rep, 1, 3, 3);            // <name> (LIST)
            schema_element(f, "list", -1, kRepeated, 1, -1, -1);  // repeated group list
            name = "element";
            path.push_back("list"), path.push_back("element");
        }
        schema_element(f, name, phys, rep, 0, conv, logical);
        paths.push_back(path);
    }
    f.i64(3, total_rows);
    f.list_header(4, thrift::Struct, row_groups.size());
    for (size_t g = 0; g < row_groups.size(); ++g) {
        f.begin_element();
        f.list_header(1, thrift::Struct, schema.size());
        int64_t bytes = 0;
        for (size_t c = 0; c < schema.size(); ++c) {
            const ChunkMeta& m = metas[g][c];
            bytes += m.uncompressed;
            f.begin_element();
            f.i64(2, m.offset);
            f.begin_struct(3);
            f.i32(1, physical_of(schema[c].kind));
            f.list_header(2, thrift::I32, 2);
            f.zigzag(0), f.zigzag(3);
            f.list_header(3, thrift::Binary, paths[c].size());
            for (const auto& p : paths[c]) f.bin(p);
            f.i32(4, o.codec);
            f.i64(5, m.values);
            f.i64(6, m.uncompressed);
            f.i64(7, m.compressed);
            f.i64(9, m.offset);
            f.end_struct();
            f.end_struct();
        }
        f.i64(2, bytes);
        f.i64(3, group_rows[g]);
        f.end_struct();
    }
    if (!o.key_values.empty()) {
        f.list_header(5, thrift::Struct, o.key_values.size());
        for (const auto& [k, v] : o.key_values) {
            f.begin_element();
            f.binary(1, k);
            f.binary(2, v);
            f.end_struct();
        }
    }
    f.binary(6, "worldstudio parquet writer");
    f.out.push_back(0);
    file += f.out;
    const auto len = static_cast<uint32_t>(f.out.size());
    file.append(reinterpret_cast<const char*>(&len), 4);
    file += "PAR1";
    return file;
}

void write_file(const std::string& path, const std::vector<WriteColumn>& schema,
                const std::vector<std::vector<Column>>& row_groups, const WriteOptions& options) {
    const std::string bytes = write_bytes(schema, row_groups, options);
    std::error_code ec;
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) throw Error(path + ": cannot write");
}

}  // namespace ws::robotics::parquet
