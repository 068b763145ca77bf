// Parquet page contents: levels, value encodings and the level-to-offsets assembly (see parquet_decode.h).
#include "robotics/parquet_decode.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace ws::robotics::parquet {

namespace {

enum Encoding {
    kPlain = 0,
    kPlainDictionary = 2,
    kRle = 3,
    kBitPacked = 4,
    kDeltaBinaryPacked = 5,
    kDeltaLengthByteArray = 6,
    kDeltaByteArray = 7,
    kRleDictionary = 8,
    kByteStreamSplit = 9
};

uint64_t varint(const uint8_t* p, size_t n, size_t& pos) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= n) throw Failure("truncated number");
        const uint8_t b = p[pos++];
        v |= static_cast<uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    throw Failure("number longer than 10 bytes");
}

int64_t zigzag(const uint8_t* p, size_t n, size_t& pos) {
    const uint64_t v = varint(p, n, pos);
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// `bw` bits at bit `pos` of p[0..n), least significant bit first.
inline uint64_t read_bits(const uint8_t* p, size_t n, uint64_t pos, int bw) {
    if (bw == 0) return 0;
    const size_t byte = static_cast<size_t>(pos >> 3);
    const int shift = static_cast<int>(pos & 7);
    if (bw <= 56 && byte + 8 <= n) {
        uint64_t w;
        std::memcpy(&w, p + byte, 8);
        return (w >> shift) & ((uint64_t{1} << bw) - 1);
    }
    if (bw > 32) return read_bits(p, n, pos, 32) | (read_bits(p, n, pos + 32, bw - 32) << 32);
    uint64_t v = 0;
    for (int b = 0; b < bw; ++b) {
        const uint64_t bit = pos + static_cast<uint64_t>(b);
        if ((bit >> 3) >= n) break;  // callers check the bytes they need
        v |= static_cast<uint64_t>((p[bit >> 3] >> (bit & 7)) & 1) << b;
    }
    return v;
}

uint32_t le32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

bool unsigned_int(const LeafInfo& l) {
    return (l.converted >= 11 && l.converted <= 14) || (l.logical == 10 && !l.int_signed);
}

}  // namespace

int bit_width(int64_t v) {
    int w = 0;
    while (v > 0) ++w, v >>= 1;
    return w;
}

void decode_hybrid(const uint8_t* p, size_t n, int bw, int64_t count, std::vector<int32_t>& out) {
    if (bw < 0 || bw > 32) throw Failure("bit width " + std::to_string(bw) + " above 32");
    out.resize(static_cast<size_t>(count));
    int64_t i = 0;
    size_t pos = 0;
    const uint64_t mask = bw == 32 ? 0xffffffffu : ((uint64_t{1} << bw) - 1);
    while (i < count) {
        if (pos >= n)
            throw Failure("levels or indices truncated (" + std::to_string(i) + " of " + std::to_string(count) + ")");
        const uint64_t h = varint(p, n, pos);
        if (h & 1) {
            const uint64_t groups = h >> 1;
            if (groups > (uint64_t{1} << 28)) throw Failure("bit-packed run too long");
            const int64_t take = std::min<int64_t>(static_cast<int64_t>(groups * 8), count - i);
            const uint64_t need = (static_cast<uint64_t>(take) * static_cast<uint64_t>(bw) + 7) / 8;
            if (need > n - pos) throw Failure("bit-packed run past the end of the page");
            const uint8_t* q = p + pos;
            const size_t qn = n - pos;
            for (int64_t k = 0; k < take; ++k)
                out[static_cast<size_t>(i + k)] =
                    static_cast<int32_t>(read_bits(q, qn, static_cast<uint64_t>(k) * bw, bw));
            pos += static_cast<size_t>(std::min<uint64_t>(groups * static_cast<uint64_t>(bw), n - pos));
            i += take;
        } else {
            const uint64_t run = h >> 1;
            const size_t vbytes = static_cast<size_t>((bw + 7) / 8);
            if (vbytes > n - pos) throw Failure("run value past the end of the page");
            uint64_t v = 0;
            for (size_t b = 0; b < vbytes; ++b) v |= static_cast<uint64_t>(p[pos + b]) << (8 * b);
            pos += vbytes;
            const int64_t take = static_cast<int64_t>(std::min<uint64_t>(run, static_cast<uint64_t>(count - i)));
            std::fill(out.begin() + i, out.begin() + i + take, static_cast<int32_t>(v & mask));
            i += take;
        }
    }
}

size_t decode_delta(const uint8_t* p, size_t n, int64_t count, std::vector<int64_t>& out) {
    size_t pos = 0;
    const uint64_t block = varint(p, n, pos), minis = varint(p, n, pos), total = varint(p, n, pos);
    const int64_t first = zigzag(p, n, pos);
    if (block == 0 || block % 128 || block > (1u << 20) || minis == 0 || block % minis || (block / minis) % 32)
        throw Failure("bad DELTA_BINARY_PACKED block header");
    if (total != static_cast<uint64_t>(count))
        throw Failure("DELTA_BINARY_PACKED holds " + std::to_string(total) + " values, the page needs " +
                      std::to_string(count));
    out.clear();
    out.reserve(static_cast<size_t>(count));
    if (count == 0) return pos;
    uint64_t last = static_cast<uint64_t>(first);
    out.push_back(first);
    const uint64_t per_mini = block / minis;
    while (static_cast<int64_t>(out.size()) < count) {
        const uint64_t min_delta = static_cast<uint64_t>(zigzag(p, n, pos));
        if (minis > n - pos) throw Failure("DELTA_BINARY_PACKED bit widths past the end");
        const uint8_t* widths = p + pos;
        pos += static_cast<size_t>(minis);
        for (uint64_t m = 0; m < minis && static_cast<int64_t>(out.size()) < count; ++m) {
            const int w = widths[m];
            if (w > 64) throw Failure("DELTA_BINARY_PACKED bit width above 64");
            const uint64_t take = std::min<uint64_t>(per_mini, static_cast<uint64_t>(count) - out.size());
            const uint64_t need = (take * static_cast<uint64_t>(w) + 7) / 8;
            if (need > n - pos) throw Failure("DELTA_BINARY_PACKED values past the end");
            for (uint64_t k = 0; k < take; ++k) {
                last += min_delta + read_bits(p + pos, n - pos, k * static_cast<uint64_t>(w), w);
                out.push_back(static_cast<int64_t>(last));
            }
            pos += static_cast<size_t>(std::min<uint64_t>(per_mini * static_cast<uint64_t>(w) / 8, n - pos));
        }
    }
    return pos;
}

void Decoder::plain(const uint8_t* p, size_t n, int64_t count, Column& into) const {
    const auto c = static_cast<size_t>(count);
    auto need = [&](uint64_t bytes) {
        if (bytes > n)
            throw Failure("PLAIN values truncated (" + std::to_string(count) + " values need " + std::to_string(bytes) +
                          " bytes, " + std::to_string(n) + " left)");
    };
    switch (l_.physical) {
        case kBoolean:
            need((static_cast<uint64_t>(count) + 7) / 8);
            into.ints.resize(c);
            for (size_t i = 0; i < c; ++i) into.ints[i] = (p[i >> 3] >> (i & 7)) & 1;
            break;
        case kInt32: {
            need(static_cast<uint64_t>(count) * 4);
            into.ints.resize(c);
            const bool u = unsigned_int(l_);
            for (size_t i = 0; i < c; ++i) {
                const uint32_t v = le32(p + 4 * i);
                into.ints[i] = u ? static_cast<int64_t>(v) : static_cast<int64_t>(static_cast<int32_t>(v));
            }
            break;
        }
        case kInt64:
            need(static_cast<uint64_t>(count) * 8);
            into.ints.resize(c);
            if (c) std::memcpy(into.ints.data(), p, 8 * c);  // an empty vector's data() may be null
            break;
        case kFloat:
            need(static_cast<uint64_t>(count) * 4);
            into.reals.resize(c);
            for (size_t i = 0; i < c; ++i) {
                float f;
                std::memcpy(&f, p + 4 * i, 4);
                into.reals[i] = f;
            }
            break;
        case kDouble:
            need(static_cast<uint64_t>(count) * 8);
            into.reals.resize(c);
            if (c) std::memcpy(into.reals.data(), p, 8 * c);
            break;
        case kByteArray: {
            need(static_cast<uint64_t>(count) * 4);
            into.strings.resize(c);
            size_t pos = 0;
            for (size_t i = 0; i < c; ++i) {
                if (n - pos < 4) throw Failure("string length past the end of the page");
                const uint32_t len = le32(p + pos);
                pos += 4;
                if (len > n - pos)
                    throw Failure("string of " + std::to_string(len) + " bytes past the end of the page");
                into.strings[i].assign(reinterpret_cast<const char*>(p + pos), len);
                pos += len;
            }
            break;
        }
        default: throw Failure("unsupported type");
    }
}

void Decoder::values(const uint8_t* p, size_t n, int64_t count, int encoding, Column& into) const {
    into.reals.clear(), into.ints.clear(), into.strings.clear();
    if (count == 0) return;
    const auto c = static_cast<size_t>(count);
    switch (encoding) {
        case kPlain: return plain(p, n, count, into);
        case kPlainDictionary:
        case kRleDictionary: {
            if (!has_dict_) throw Failure("dictionary-encoded page without a dictionary page");
            if (n < 1) throw Failure("dictionary indices missing");
            std::vector<int32_t> idx;
            decode_hybrid(p + 1, n - 1, p[0], count, idx);
            const size_t dn = dict_.leaf_count();
            for (int32_t k : idx)
                if (k < 0 || static_cast<size_t>(k) >= dn)
                    throw Failure("dictionary index " + std::to_string(k) + " past the dictionary of " +
                                  std::to_string(dn));
            if (l_.kind == ValueKind::Float32 || l_.kind == ValueKind::Float64) {
                into.reals.resize(c);
                for (size_t i = 0; i < c; ++i) into.reals[i] = dict_.reals[static_cast<size_t>(idx[i])];
            } else if (l_.kind != ValueKind::String) {
                into.ints.resize(c);
                for (size_t i = 0; i < c; ++i) into.ints[i] = dict_.ints[static_cast<size_t>(idx[i])];
            } else {
                into.strings.resize(c);
                for (size_t i = 0; i < c; ++i) into.strings[i] = dict_.strings[static_cast<size_t>(idx[i])];
            }
            return;
        }
        case kRle: {
            if (l_.physical != kBoolean) throw Failure("RLE values are only read for BOOLEAN");
            if (n < 4 || le32(p) > n - 4) throw Failure("RLE boolean values truncated");
            std::vector<int32_t> v;
            decode_hybrid(p + 4, le32(p), 1, count, v);
            into.ints.assign(v.begin(), v.end());
            return;
        }
        case kDeltaBinaryPacked: {
            if (l_.physical != kInt32 && l_.physical != kInt64)
                throw Failure("DELTA_BINARY_PACKED on a non-integer column");
            decode_delta(p, n, count, into.ints);
            if (l_.physical == kInt32)
                for (auto& v : into.ints)
                    v = unsigned_int(l_) ? static_cast<int64_t>(static_cast<uint32_t>(v))
                                         : static_cast<int64_t>(static_cast<int32_t>(v));
            return;
        }
        case kDeltaLengthByteArray:
        case kDeltaByteArray: {
            if (l_.physical != kByteArray) throw Failure("DELTA byte-array encoding on a non-string column");
            std::vector<int64_t> prefix, lengths;
            size_t pos = 0;
            if (encoding == kDeltaByteArray) pos = decode_delta(p, n, count, prefix);
            pos += decode_delta(p + pos, n - pos, count, lengths);
            into.strings.resize(c);
            for (size_t i = 0; i < c; ++i) {
                const int64_t len = lengths[i];
                if (len < 0 || static_cast<uint64_t>(len) > n - pos) throw Failure("string past the end of the page");
                std::string s;
                if (encoding == kDeltaByteArray) {
                    const int64_t pre = prefix[i];
                    if (pre < 0 || (i == 0 && pre > 0) ||
                        (i > 0 && static_cast<uint64_t>(pre) > into.strings[i - 1].size()))
                        throw Failure("string prefix longer than the previous string");
                    if (pre) s.assign(into.strings[i - 1], 0, static_cast<size_t>(pre));
                }
                s.append(reinterpret_cast<const char*>(p + pos), static_cast<size_t>(len));
                into.strings[i] = std::move(s);
                pos += static_cast<size_t>(len);
            }
            return;
        }
        case kByteStreamSplit: {
            const int w = l_.physical == kFloat || l_.physical == kInt32    ? 4
                          : l_.physical == kDouble || l_.physical == kInt64 ? 8
                                                                            : 0;
            if (!w) throw Failure("BYTE_STREAM_SPLIT on an unsupported type");
            if (static_cast<uint64_t>(count) * w > n) throw Failure("BYTE_STREAM_SPLIT values truncated");
            std::vector<uint8_t> joined(c * w);
            for (size_t i = 0; i < c; ++i)
                for (int b = 0; b < w; ++b) joined[i * w + b] = p[b * c + i];
            return plain(joined.data(), joined.size(), count, into);
        }
        case kBitPacked: throw Failure("the deprecated BIT_PACKED encoding is not supported");
        default: throw Failure("encoding " + std::to_string(encoding) + " is not supported");
    }
}

void Decoder::dictionary(const uint8_t* p, size_t n, int64_t count, int encoding) {
    if (encoding != kPlain && encoding != kPlainDictionary)
        throw Failure("dictionary page encoding " + std::to_string(encoding) + " is not PLAIN");
    dict_ = Column();
    dict_.kind = l_.kind;
    plain(p, n, count, dict_);
    has_dict_ = true;
}

void Decoder::page_v1(const uint8_t* p, size_t n, int64_t count, int encoding, int def_encoding, int rep_encoding) {
    size_t pos = 0;
    auto levels = [&](int max, int enc, std::vector<int32_t>& out) {
        if (max == 0) return out.assign(static_cast<size_t>(count), 0);
        if (enc != kRle) throw Failure("level encoding " + std::to_string(enc) + " is not supported (RLE is)");
        if (n - pos < 4) throw Failure("levels truncated");
        const uint32_t len = le32(p + pos);
        pos += 4;
        if (len > n - pos) throw Failure("levels of " + std::to_string(len) + " bytes past the end of the page");
        decode_hybrid(p + pos, len, bit_width(max), count, out);
        pos += len;
    };
    levels(l_.max_rep, rep_encoding, rep_);
    levels(l_.max_def, def_encoding, def_);
    int64_t present = 0;
    for (int32_t d : def_) present += d == l_.max_def;
    values(p + pos, n - pos, present, encoding, vals_);
    assemble(count, present);
}

void Decoder::page_v2(const uint8_t* p, size_t n, int64_t count, int encoding, size_t rep_bytes, size_t def_bytes) {
    if (l_.max_rep)
        decode_hybrid(p, rep_bytes, bit_width(l_.max_rep), count, rep_);
    else
        rep_.assign(static_cast<size_t>(count), 0);
    if (l_.max_def)
        decode_hybrid(p + rep_bytes, def_bytes, bit_width(l_.max_def), count, def_);
    else
        def_.assign(static_cast<size_t>(count), 0);
    int64_t present = 0;
    for (int32_t d : def_) present += d == l_.max_def;
    const size_t pos = rep_bytes + def_bytes;
    values(p + pos, n - pos, present, encoding, vals_);
    assemble(count, present);
}

void Decoder::assemble(int64_t count, int64_t present) {
    const int L = l_.max_rep;
    std::vector<size_t> null_at;
    if (L == 0 && present == count) {
        // Scalars without nulls: the values are the rows.
        out_.reals.insert(out_.reals.end(), vals_.reals.begin(), vals_.reals.end());
        out_.ints.insert(out_.ints.end(), vals_.ints.begin(), vals_.ints.end());
        out_.strings.insert(out_.strings.end(), std::make_move_iterator(vals_.strings.begin()),
                            std::make_move_iterator(vals_.strings.end()));
    } else {
        size_t next = 0;
        const bool real = out_.is_real(), str = out_.kind == ValueKind::String;
        auto leaf = [&](bool have) {
            if (!have) null_at.push_back(out_.leaf_count());
            if (real)
                out_.reals.push_back(have ? vals_.reals[next] : 0.0);
            else if (str)
                out_.strings.push_back(have ? std::move(vals_.strings[next]) : std::string());
            else
                out_.ints.push_back(have ? vals_.ints[next] : 0);
            if (have) ++next;
        };
        auto items = [&](int k) -> int64_t {  // items so far at level k (k >= 1)
            return k < L ? static_cast<int64_t>(out_.offsets[static_cast<size_t>(k)].size())
                         : static_cast<int64_t>(out_.leaf_count());
        };
        for (int64_t i = 0; i < count; ++i) {
            const int r = rep_[static_cast<size_t>(i)], d = def_[static_cast<size_t>(i)];
            if (d > l_.max_def)
                throw Failure("definition level " + std::to_string(d) + " above the maximum " +
                              std::to_string(l_.max_def));
            if (r > L)
                throw Failure("repetition level " + std::to_string(r) + " above the maximum " + std::to_string(L));
            // Repeating level r needs a non-empty list at level r in the current row.
            if (r > 0 && (r > open_ || d < l_.repeated_def[static_cast<size_t>(r) - 1]))
                throw Failure("repetition level " + std::to_string(r) + " repeats a list that does not exist");
            for (int k = r;; ++k) {
                if (k == L) {
                    leaf(d == l_.max_def);
                    open_ = L;
                    break;
                }
                out_.offsets[static_cast<size_t>(k)].push_back(items(k + 1));
                if (d < l_.repeated_def[static_cast<size_t>(k)]) {  // an empty or null list
                    open_ = k;
                    break;
                }
            }
        }
    }
    if (!null_at.empty() || !out_.nulls.empty()) {
        out_.nulls.resize(out_.leaf_count(), 0);
        for (size_t k : null_at) out_.nulls[k] = 1;
    }
}

}  // namespace ws::robotics::parquet
