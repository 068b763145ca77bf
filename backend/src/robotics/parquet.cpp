// The Parquet reader: footer (Thrift compact), schema to leaf columns with their level structure, and column
// chunks decoded page by page into robotics::Column (flat leaves + per-level offsets).
#include "robotics/parquet.h"

#include <snappy.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "robotics/parquet_decode.h"
#include "robotics/thrift_compact.h"
#include "worldstudio/core/error.h"

namespace ws::robotics::parquet {

namespace {

constexpr int64_t kMaxFileBytes = int64_t{4} << 30;    // whole files are read into memory
constexpr int64_t kMaxPageBytes = int64_t{256} << 20;  // one decompressed page
constexpr size_t kMaxSchemaNodes = 100000;
constexpr int kMaxNesting = 32;

const char* physical_name(int t) {
    static const char* names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                  "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
    return t >= 0 && t < 8 ? names[t] : "unknown";
}

const char* codec_name(int c) {
    static const char* names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
    return c >= 0 && c < 8 ? names[c] : "unknown";
}

// Parquet ConvertedType values we interpret.
enum { kUint8 = 11, kUint16 = 12, kUint32 = 13, kUint64 = 14 };

SchemaNode read_schema_element(thrift::Reader& r) {
    SchemaNode n;
    r.read_struct([&](int16_t id, uint8_t, thrift::Reader& t) {
        switch (id) {
            case 1: n.physical = t.i32(); return true;
            case 2: n.type_length = t.i32(); return true;
            case 3: n.repetition = t.i32(); return true;
            case 4: n.name = t.binary(); return true;
            case 5: n.num_children = t.i32(); return true;
            case 6: n.converted = t.i32(); return true;
            case 10:
                t.read_struct([&](int16_t lid, uint8_t, thrift::Reader& lt) {
                    n.logical = lid;
                    if (lid != 10) return false;  // INTEGER carries bit width and signedness
                    lt.read_struct([&](int16_t iid, uint8_t, thrift::Reader& it) {
                        if (iid == 1) return n.int_bits = static_cast<int8_t>(it.varint() & 0xff), true;
                        if (iid == 2) return n.int_signed = it.field_bool(), true;
                        return false;
                    });
                    return true;
                });
                return true;
            default: return false;
        }
    });
    return n;
}

ChunkInfo read_column_meta(thrift::Reader& r) {
    ChunkInfo c;
    r.read_struct([&](int16_t id, uint8_t, thrift::Reader& t) {
        switch (id) {
            case 1: c.physical = t.i32(); return true;
            case 4: c.codec = t.i32(); return true;
            case 5: c.num_values = t.i64(); return true;
            case 7: c.total_compressed_size = t.i64(); return true;
            case 9: c.data_page_offset = t.i64(); return true;
            case 11: c.dictionary_page_offset = t.i64(); return true;
            default: return false;
        }
    });
    return c;
}

RowGroupInfo read_row_group(thrift::Reader& r) {
    RowGroupInfo g;
    r.read_struct([&](int16_t id, uint8_t type, thrift::Reader& t) {
        if (id == 1 && type == thrift::List) {
            auto [et, n] = t.list_header();
            if (et != thrift::Struct) throw thrift::Failure("row group columns are not structures");
            for (uint32_t i = 0; i < n; ++i) {
                ChunkInfo c;
                bool has_meta = false;
                t.read_struct([&](int16_t cid, uint8_t, thrift::Reader& ct) {
                    if (cid == 1) throw thrift::Failure("column chunks in other files are not supported");
                    if (cid == 3) return c = read_column_meta(ct), has_meta = true;
                    return false;
                });
                if (!has_meta) throw thrift::Failure("a column chunk has no metadata (encrypted?)");
                g.chunks.push_back(c);
            }
            return true;
        }
        if (id == 3) return g.num_rows = t.i64(), true;
        return false;
    });
    return g;
}

struct PageHeader {
    int type = -1;
    int64_t uncompressed = -1, compressed = -1;
    int64_t num_values = 0;
    int encoding = 0;
    int def_encoding = 3, rep_encoding = 3;
    // v2
    int64_t num_nulls = 0, num_rows = 0, def_bytes = 0, rep_bytes = 0;
    bool v2_compressed = true;
};

PageHeader read_page_header(thrift::Reader& r) {
    PageHeader h;
    r.read_struct([&](int16_t id, uint8_t, thrift::Reader& t) {
        switch (id) {
            case 1: h.type = t.i32(); return true;
            case 2: h.uncompressed = t.i32(); return true;
            case 3: h.compressed = t.i32(); return true;
            case 5:  // DataPageHeader
                t.read_struct([&](int16_t did, uint8_t, thrift::Reader& d) {
                    if (did == 1) return h.num_values = d.i32(), true;
                    if (did == 2) return h.encoding = d.i32(), true;
                    if (did == 3) return h.def_encoding = d.i32(), true;
                    if (did == 4) return h.rep_encoding = d.i32(), true;
                    return false;
                });
                return true;
            case 7:  // DictionaryPageHeader
                t.read_struct([&](int16_t did, uint8_t, thrift::Reader& d) {
                    if (did == 1) return h.num_values = d.i32(), true;
                    if (did == 2) return h.encoding = d.i32(), true;
                    return false;
                });
                return true;
            case 8:  // DataPageHeaderV2
                t.read_struct([&](int16_t did, uint8_t, thrift::Reader& d) {
                    switch (did) {
                        case 1: h.num_values = d.i32(); return true;
                        case 2: h.num_nulls = d.i32(); return true;
                        case 3: h.num_rows = d.i32(); return true;
                        case 4: h.encoding = d.i32(); return true;
                        case 5: h.def_bytes = d.i32(); return true;
                        case 6: h.rep_bytes = d.i32(); return true;
                        case 7: h.v2_compressed = d.field_bool(); return true;
                        default: return false;
                    }
                });
                return true;
            default: return false;
        }
    });
    return h;
}

}  // namespace

File File::open(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(path, ec)) throw Error(path + ": no such file");
    if (fs::is_directory(path, ec)) throw Error(path + ": is a folder, not a Parquet file");
    const auto size = fs::file_size(path, ec);
    if (ec) throw Error(path + ": cannot read");
    if (static_cast<int64_t>(size) > kMaxFileBytes) throw Error(path + ": larger than 4 GiB, not supported");
    std::ifstream f(path, std::ios::binary);
    std::string bytes(static_cast<size_t>(size), '\0');
    if (!f || !f.read(bytes.data(), static_cast<std::streamsize>(size))) throw Error(path + ": cannot read");
    return from_bytes(std::move(bytes), path);
}

File File::from_bytes(std::string bytes, const std::string& name) {
    File f;
    f.path_ = name;
    f.bytes_ = std::make_shared<const std::string>(std::move(bytes));
    f.parse_footer();
    f.build_leaves();
    return f;
}

void File::parse_footer() {
    const std::string& b = *bytes_;
    if (b.size() < 12) throw Error(path_ + ": not a Parquet file (" + std::to_string(b.size()) + " bytes, too short)");
    if (b.compare(b.size() - 4, 4, "PARE") == 0) throw Error(path_ + ": encrypted Parquet files are not supported");
    if (b.compare(0, 4, "PAR1") != 0 || b.compare(b.size() - 4, 4, "PAR1") != 0)
        throw Error(path_ + ": not a Parquet file (no PAR1 magic at both ends; truncated?)");
    uint32_t len;
    std::memcpy(&len, b.data() + b.size() - 8, 4);
    if (len == 0 || len > b.size() - 12)
        throw Error(path_ + ": corrupt footer (length " + std::to_string(len) + " past the file)");
    const auto* footer = reinterpret_cast<const uint8_t*>(b.data() + b.size() - 8 - len);
    try {
        thrift::Reader r(footer, len);
        bool has_schema = false, has_rows = false;
        r.read_struct([&](int16_t id, uint8_t type, thrift::Reader& t) {
            if (id == 2 && type == thrift::List) {
                auto [et, n] = t.list_header();
                if (et != thrift::Struct || n == 0 || n > kMaxSchemaNodes) throw thrift::Failure("bad schema list");
                for (uint32_t i = 0; i < n; ++i) schema_.push_back(read_schema_element(t));
                return has_schema = true;
            }
            if (id == 3) return num_rows_ = t.i64(), has_rows = true;
            if (id == 4 && type == thrift::List) {
                auto [et, n] = t.list_header();
                if (et != thrift::Struct) throw thrift::Failure("bad row group list");
                for (uint32_t i = 0; i < n; ++i) row_groups_.push_back(read_row_group(t));
                return true;
            }
            if (id == 5 && type == thrift::List) {
                auto [et, n] = t.list_header();
                if (et != thrift::Struct) throw thrift::Failure("bad key-value list");
                for (uint32_t i = 0; i < n; ++i) {
                    std::pair<std::string, std::string> kv;
                    t.read_struct([&](int16_t kid, uint8_t, thrift::Reader& kt) {
                        if (kid == 1) return kv.first = kt.binary(), true;
                        if (kid == 2) return kv.second = kt.binary(), true;
                        return false;
                    });
                    key_values_.push_back(std::move(kv));
                }
                return true;
            }
            if (id == 6) return created_by_ = t.binary(), true;
            return false;
        });
        if (!has_schema) throw thrift::Failure("no schema");
        if (!has_rows || num_rows_ < 0) throw thrift::Failure("no row count");
    } catch (const thrift::Failure& e) {
        throw Error(path_ + ": corrupt footer (" + e.what() + ")");
    }
    int64_t rows = 0;
    for (const auto& g : row_groups_) {
        if (g.num_rows < 0 || g.num_rows > num_rows_)
            throw Error(path_ + ": corrupt footer (row group of " + std::to_string(g.num_rows) + " rows)");
        rows += g.num_rows;
    }
    if (rows != num_rows_)
        throw Error(path_ + ": corrupt footer (row groups hold " + std::to_string(rows) + " rows, the file says " +
                    std::to_string(num_rows_) + ")");
}

void File::build_leaves() {
    const SchemaNode& root = schema_[0];
    if (root.num_children < 0 || static_cast<size_t>(root.num_children) >= schema_.size() + 1)
        throw Error(path_ + ": corrupt schema (root has " + std::to_string(root.num_children) + " children)");
    size_t next = 1;
    std::vector<const SchemaNode*> stack;
    // Depth-first over the flattened schema: each node's children follow it.
    struct Walker {
        File& f;
        size_t& next;
        std::vector<const SchemaNode*>& stack;
        std::vector<size_t> top_leaf_count;
        void node(int depth) {
            if (next >= f.schema_.size())
                throw Error(f.path_ + ": corrupt schema (fewer elements than the children counts say)");
            if (depth > kMaxNesting)
                throw Error(f.path_ + ": schema nested more than " + std::to_string(kMaxNesting) + " deep");
            const SchemaNode& n = f.schema_[next++];
            stack.push_back(&n);
            if (n.num_children < 0) throw Error(f.path_ + ": corrupt schema (field '" + n.name + "')");
            if (n.num_children == 0) {
                if (n.physical < 0)
                    throw Error(f.path_ + ": corrupt schema (field '" + n.name + "' has neither a type nor children)");
                leaf();
            } else {
                for (int i = 0; i < n.num_children; ++i) node(depth + 1);
            }
            stack.pop_back();
        }
        void leaf() {
            LeafInfo l;
            const SchemaNode& n = *stack.back();
            for (const SchemaNode* s : stack) {
                l.path.push_back(s->name);
                if (s->repetition == kOptional) ++l.max_def;
                if (s->repetition == kRepeated) ++l.max_def, ++l.max_rep, l.repeated_def.push_back(l.max_def);
            }
            l.physical = n.physical, l.converted = n.converted, l.logical = n.logical;
            l.int_bits = n.int_bits, l.int_signed = n.int_signed;
            l.name = l.path[0];
            l.supported = true;
            switch (n.physical) {
                case kBoolean: l.kind = ValueKind::Bool; break;
                case kInt32: l.kind = ValueKind::Int32; break;
                case kInt64: l.kind = ValueKind::Int64; break;
                case kFloat: l.kind = ValueKind::Float32; break;
                case kDouble: l.kind = ValueKind::Float64; break;
                case kByteArray: l.kind = ValueKind::String; break;
                default:
                    l.supported = false;
                    l.why_unsupported = std::string("type ") + physical_name(n.physical) + " is not supported";
            }
            f.leaves_.push_back(std::move(l));
        }
    } w{*this, next, stack, {}};
    for (int i = 0; i < root.num_children; ++i) {
        const size_t before = leaves_.size();
        w.node(1);
        // A field with several leaves (a struct) names each by its dotted path.
        if (leaves_.size() - before > 1)
            for (size_t k = before; k < leaves_.size(); ++k) {
                std::string dotted;
                for (size_t p = 0; p < leaves_[k].path.size(); ++p) dotted += (p ? "." : "") + leaves_[k].path[p];
                leaves_[k].name = dotted;
            }
    }
    if (next != schema_.size())
        throw Error(path_ + ": corrupt schema (" + std::to_string(schema_.size() - next) +
                    " elements outside the tree)");
    for (size_t g = 0; g < row_groups_.size(); ++g) {
        if (row_groups_[g].chunks.size() != leaves_.size())
            throw Error(path_ + ": corrupt footer (row group " + std::to_string(g) + " has " +
                        std::to_string(row_groups_[g].chunks.size()) + " column chunks for " +
                        std::to_string(leaves_.size()) + " columns)");
        for (size_t c = 0; c < leaves_.size(); ++c)
            if (row_groups_[g].chunks[c].physical != leaves_[c].physical)
                throw Error(path_ + ": corrupt footer (column '" + leaves_[c].name +
                            "' chunk type differs from the schema)");
    }
}

int File::find(const std::string& name) const {
    for (size_t i = 0; i < leaves_.size(); ++i)
        if (leaves_[i].name == name) return static_cast<int>(i);
    return -1;
}

Column File::read(const std::string& name) const {
    const int i = find(name);
    if (i < 0) throw Error(path_ + ": no column '" + name + "'");
    return read(i);
}

std::vector<Column> File::read_all() const {
    std::vector<Column> out;
    for (size_t i = 0; i < leaves_.size(); ++i) out.push_back(read(static_cast<int>(i)));
    return out;
}

Column File::read(int leaf, int rg_begin, int rg_end) const {
    if (leaf < 0 || static_cast<size_t>(leaf) >= leaves_.size())
        throw Error(path_ + ": no column number " + std::to_string(leaf));
    const LeafInfo& l = leaves_[static_cast<size_t>(leaf)];
    if (!l.supported) throw Error(path_ + ": column '" + l.name + "': " + l.why_unsupported);
    if (rg_end < 0) rg_end = static_cast<int>(row_groups_.size());
    Column c;
    c.name = l.name;
    c.kind = l.kind;
    c.depth = l.max_rep;
    c.offsets.resize(static_cast<size_t>(l.max_rep));
    // Reserve what the footer announces (bounded by what the file could hold) instead of growing page by page.
    int64_t values = 0, rows = 0;
    for (int g = std::max(rg_begin, 0); g < rg_end && g < static_cast<int>(row_groups_.size()); ++g)
        values += row_groups_[static_cast<size_t>(g)].chunks[static_cast<size_t>(leaf)].num_values,
            rows += row_groups_[static_cast<size_t>(g)].num_rows;
    const int64_t cap = size() * 8 + (int64_t{1} << 16);
    const auto reserve = static_cast<size_t>(std::clamp<int64_t>(values, 0, cap));
    if (c.is_real())
        c.reals.reserve(reserve);
    else if (c.kind == ValueKind::String)
        c.strings.reserve(std::min<size_t>(reserve, static_cast<size_t>(size())));
    else
        c.ints.reserve(reserve);
    if (c.depth) c.offsets[0].reserve(static_cast<size_t>(std::clamp<int64_t>(rows, 0, cap)) + 1);
    for (int g = std::max(rg_begin, 0); g < rg_end && g < static_cast<int>(row_groups_.size()); ++g)
        read_chunk(leaf, g, c);
    for (int k = 0; k < c.depth; ++k)
        c.offsets[static_cast<size_t>(k)].push_back(
            k + 1 < c.depth ? static_cast<int64_t>(c.offsets[static_cast<size_t>(k) + 1].size())
                            : static_cast<int64_t>(c.leaf_count()));
    if (!c.nulls.empty()) c.nulls.resize(c.leaf_count(), 0);
    return c;
}

void File::read_chunk(int leaf, int rg, Column& out) const {
    const LeafInfo& l = leaves_[static_cast<size_t>(leaf)];
    const ChunkInfo& ch = row_groups_[static_cast<size_t>(rg)].chunks[static_cast<size_t>(leaf)];
    const std::string where = path_ + ": column '" + l.name + "', row group " + std::to_string(rg);
    const int64_t fsize = static_cast<int64_t>(bytes_->size());
    int64_t start = ch.data_page_offset;
    if (ch.dictionary_page_offset > 0 && ch.dictionary_page_offset < start) start = ch.dictionary_page_offset;
    if (start < 4 || start >= fsize - 8)
        throw Error(where + ": page offset " + std::to_string(start) + " outside the file");
    int64_t end = fsize - 8;
    if (ch.total_compressed_size > 0 && ch.total_compressed_size <= end - start) end = start + ch.total_compressed_size;
    if (ch.num_values < 0) throw Error(where + ": negative value count");
    if (ch.codec != kUncompressed && ch.codec != kSnappy && ch.codec != kZstd)
        throw Error(where + ": compression " + codec_name(ch.codec) +
                    " is not supported (UNCOMPRESSED, SNAPPY, ZSTD are)");

    const int64_t rows_before =
        out.depth ? static_cast<int64_t>(out.offsets[0].size()) : static_cast<int64_t>(out.leaf_count());
    Decoder dec(l, out);
    const auto* base = reinterpret_cast<const uint8_t*>(bytes_->data());
    int64_t pos = start, values = 0;
    int page = 0;
    std::string buffer;
    while (values < ch.num_values && pos < end) {
        const std::string pwhere = where + ", page " + std::to_string(page);
        PageHeader h;
        size_t hlen = 0;
        try {
            thrift::Reader r(base + pos, static_cast<size_t>(end - pos));
            h = read_page_header(r);
            hlen = r.consumed();
        } catch (const thrift::Failure& e) {
            throw Error(pwhere + ": corrupt page header (" + e.what() + ")");
        }
        pos += static_cast<int64_t>(hlen);
        if (h.compressed < 0 || h.compressed > end - pos)
            throw Error(pwhere + ": page of " + std::to_string(h.compressed) + " bytes past the column chunk");
        if (h.uncompressed < 0 || h.uncompressed > kMaxPageBytes)
            throw Error(pwhere + ": page of " + std::to_string(h.uncompressed) +
                        " bytes uncompressed (at most 256 MiB)");
        const uint8_t* body = base + pos;
        pos += h.compressed;
        ++page;
        if (h.type != 0 && h.type != 2 && h.type != 3) continue;  // index pages and unknown kinds
        if (h.num_values < 0 || h.num_values > h.uncompressed * int64_t{8} + (int64_t{1} << 20))
            throw Error(pwhere + ": implausible count of " + std::to_string(h.num_values) + " values");
        // Page v2 keeps its levels uncompressed in front of the (maybe compressed) values.
        int64_t plain_prefix = 0;
        if (h.type == 3) {
            if (h.rep_bytes < 0 || h.def_bytes < 0 || h.rep_bytes + h.def_bytes > h.compressed ||
                h.rep_bytes + h.def_bytes > h.uncompressed)
                throw Error(pwhere + ": level lengths past the page");
            plain_prefix = h.rep_bytes + h.def_bytes;
        }
        const bool compressed = ch.codec != kUncompressed && (h.type != 3 || h.v2_compressed);
        const uint8_t* data = body;
        size_t size = static_cast<size_t>(h.compressed);
        if (compressed) {
            buffer.resize(static_cast<size_t>(h.uncompressed));  // kept across pages: no zeroing per page
            std::memcpy(buffer.data(), body, static_cast<size_t>(plain_prefix));
            const char* src = reinterpret_cast<const char*>(body + plain_prefix);
            const size_t src_n = static_cast<size_t>(h.compressed - plain_prefix);
            char* dst = buffer.data() + plain_prefix;
            const size_t dst_n = static_cast<size_t>(h.uncompressed - plain_prefix);
            if (ch.codec == kSnappy) {
                size_t n = 0;
                if (!snappy::GetUncompressedLength(src, src_n, &n) || n != dst_n ||
                    !snappy::RawUncompress(src, src_n, dst))
                    throw Error(pwhere + ": corrupt Snappy data");
            } else {
                const size_t n = ZSTD_decompress(dst, dst_n, src, src_n);
                if (ZSTD_isError(n) || n != dst_n) throw Error(pwhere + ": corrupt ZSTD data");
            }
            data = reinterpret_cast<const uint8_t*>(buffer.data());
            size = buffer.size();
        } else if (h.uncompressed != h.compressed) {
            throw Error(pwhere + ": uncompressed page sizes disagree");
        }
        try {
            if (h.type == 2) {
                dec.dictionary(data, size, h.num_values, h.encoding);
                continue;
            }
            if (h.num_values > ch.num_values - values) throw Failure("more values than the column chunk says");
            if (h.type == 0) {
                dec.page_v1(data, size, h.num_values, h.encoding, h.def_encoding, h.rep_encoding);
            } else {
                dec.page_v2(data, size, h.num_values, h.encoding, static_cast<size_t>(h.rep_bytes),
                            static_cast<size_t>(h.def_bytes));
            }
        } catch (const Failure& e) {
            throw Error(pwhere + ": " + e.what());
        }
        values += h.num_values;
    }
    if (values != ch.num_values)
        throw Error(where + ": " + std::to_string(values) + " values found, the footer says " +
                    std::to_string(ch.num_values) + " (truncated?)");
    const int64_t rows =
        (out.depth ? static_cast<int64_t>(out.offsets[0].size()) : static_cast<int64_t>(out.leaf_count())) -
        rows_before;
    if (rows != row_groups_[static_cast<size_t>(rg)].num_rows)
        throw Error(where + ": " + std::to_string(rows) + " rows decoded, the row group has " +
                    std::to_string(row_groups_[static_cast<size_t>(rg)].num_rows));
}

}  // namespace ws::robotics::parquet
