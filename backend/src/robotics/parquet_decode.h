#pragma once
// Page decoding for the Parquet reader: levels (RLE/bit-packed hybrid), value encodings, dictionaries, and the
// assembly of repetition/definition levels into a Column's offsets and leaves. Failures carry a short reason; the
// caller adds the file, column, row group and page.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "robotics/parquet.h"

namespace ws::robotics::parquet {

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// RLE/bit-packed hybrid: exactly `count` values of `bit_width` bits into `out`.
void decode_hybrid(const uint8_t* p, size_t n, int bit_width, int64_t count, std::vector<int32_t>& out);
// DELTA_BINARY_PACKED: `count` values; returns the bytes it used.
size_t decode_delta(const uint8_t* p, size_t n, int64_t count, std::vector<int64_t>& out);
int bit_width(int64_t max_value);

class Decoder {
public:
    Decoder(const LeafInfo& leaf, Column& out) : l_(leaf), out_(out) {}
    void dictionary(const uint8_t* p, size_t n, int64_t count, int encoding);
    void page_v1(const uint8_t* p, size_t n, int64_t count, int encoding, int def_encoding, int rep_encoding);
    void page_v2(const uint8_t* p, size_t n, int64_t count, int encoding, size_t rep_bytes, size_t def_bytes);

private:
    void values(const uint8_t* p, size_t n, int64_t count, int encoding, Column& into) const;
    void plain(const uint8_t* p, size_t n, int64_t count, Column& into) const;
    void assemble(int64_t count, int64_t present);
    const LeafInfo& l_;
    Column& out_;
    Column dict_;
    bool has_dict_ = false;
    int open_ = -1;  // the deepest list level with an item in the current row (-1: no row yet)
    std::vector<int32_t> rep_, def_;
    Column vals_;
};

}  // namespace ws::robotics::parquet
