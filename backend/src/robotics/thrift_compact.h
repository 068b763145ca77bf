#pragma once
// The Thrift compact protocol, as far as Parquet's footer and page headers need it: a bounded reader that skips
// the fields it is not asked for (so newer writers' additions pass) and a small writer. Errors are thrown as
// thrift::Failure with a short reason; the Parquet reader turns them into ws::Error naming the file.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace ws::robotics::thrift {

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum Type : uint8_t {
    Stop = 0,
    True = 1,
    False = 2,
    Byte = 3,
    I16 = 4,
    I32 = 5,
    I64 = 6,
    Double = 7,
    Binary = 8,
    List = 9,
    Set = 10,
    Map = 11,
    Struct = 12
};

class Reader {
public:
    Reader(const uint8_t* data, size_t size) : p_(data), end_(data + size), begin_(data) {}
    size_t consumed() const { return static_cast<size_t>(p_ - begin_); }

    uint64_t varint() {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const uint8_t b = byte();
            v |= static_cast<uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        throw Failure("varint longer than 10 bytes");
    }
    int64_t zigzag() {
        const uint64_t v = varint();
        return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
    }
    int32_t i32() {
        const int64_t v = zigzag();
        if (v < INT32_MIN || v > INT32_MAX) throw Failure("i32 out of range");
        return static_cast<int32_t>(v);
    }
    int64_t i64() { return zigzag(); }
    double f64() {
        need(8);
        double d;
        std::memcpy(&d, p_, 8);
        p_ += 8;
        return d;
    }
    std::string binary() {
        const uint64_t n = varint();
        need(n);
        std::string s(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
        p_ += n;
        return s;
    }
    // A list header: element type and count (the count bounded by the bytes left: every element takes one).
    std::pair<uint8_t, uint32_t> list_header() {
        const uint8_t h = byte();
        uint64_t n = h >> 4;
        if (n == 15) n = varint();
        if (n > static_cast<uint64_t>(end_ - p_))
            throw Failure("list of " + std::to_string(n) + " elements past the end");
        return {static_cast<uint8_t>(h & 0x0f), static_cast<uint32_t>(n)};
    }

    // Reads a struct: on_field(id, type, *this) returns false for fields it does not take, which are skipped.
    template <typename F>
    void read_struct(F&& on_field) {
        if (++depth_ > 64) throw Failure("structures nested too deep");
        int16_t last = 0;
        for (;;) {
            const uint8_t h = byte();
            const uint8_t type = h & 0x0f;
            if (type == Stop) break;
            const int delta = h >> 4;
            int16_t id;
            if (delta) {
                id = static_cast<int16_t>(last + delta);
            } else {
                const int64_t v = zigzag();
                if (v < INT16_MIN || v > INT16_MAX) throw Failure("field id out of range");
                id = static_cast<int16_t>(v);
            }
            last = id;
            bool_ = type == True;
            if (!on_field(id, type, *this)) skip(type);
        }
        --depth_;
    }
    // The value of a boolean field (compact protocol keeps it in the field header).
    bool field_bool() const { return bool_; }

    void skip(uint8_t type) {
        if (++depth_ > 64) throw Failure("structures nested too deep");
        switch (type) {
            case True:
            case False: break;
            case Byte: byte(); break;
            case I16:
            case I32:
            case I64: varint(); break;
            case Double: need(8), p_ += 8; break;
            case Binary: {
                const uint64_t n = varint();
                need(n);
                p_ += n;
                break;
            }
            case List:
            case Set: {
                auto [et, n] = list_header();
                for (uint32_t i = 0; i < n; ++i) skip_element(et);
                break;
            }
            case Map: {
                const uint64_t n = varint();
                if (n > static_cast<uint64_t>(end_ - p_)) throw Failure("map past the end");
                if (n) {
                    const uint8_t kv = byte();
                    for (uint64_t i = 0; i < n; ++i) skip_element(kv >> 4), skip_element(kv & 0x0f);
                }
                break;
            }
            case Struct: read_struct([](int16_t, uint8_t, Reader&) { return false; }); break;
            default: throw Failure("unknown field type " + std::to_string(type));
        }
        --depth_;
    }
    // A boolean inside a list takes one byte.
    void skip_element(uint8_t type) {
        if (type == True || type == False)
            byte();
        else
            skip(type);
    }

private:
    uint8_t byte() {
        need(1);
        return *p_++;
    }
    void need(uint64_t n) const {
        if (n > static_cast<uint64_t>(end_ - p_)) throw Failure("truncated");
    }
    const uint8_t* p_;
    const uint8_t* end_;
    const uint8_t* begin_;
    int depth_ = 0;
    bool bool_ = false;
};

class Writer {
public:
    std::string out;
    void varint(uint64_t v) {
        while (v >= 0x80) out.push_back(static_cast<char>((v & 0x7f) | 0x80)), v >>= 7;
        out.push_back(static_cast<char>(v));
    }
    void zigzag(int64_t v) { varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
    void field(int16_t id, uint8_t type) {
        const int delta = id - last_.back();
        if (delta > 0 && delta <= 15) {
            out.push_back(static_cast<char>((delta << 4) | type));
        } else {
            out.push_back(static_cast<char>(type));
            zigzag(id);
        }
        last_.back() = id;
    }
    void i32(int16_t id, int64_t v) { field(id, I32), zigzag(v); }
    void i64(int16_t id, int64_t v) { field(id, I64), zigzag(v); }
    void boolean(int16_t id, bool v) { field(id, v ? True : False); }
    void binary(int16_t id, const std::string& s) { field(id, Binary), bin(s); }
    void bin(const std::string& s) { varint(s.size()), out += s; }
    void list_header(int16_t id, uint8_t elem, size_t n) {
        field(id, List);
        if (n < 15) {
            out.push_back(static_cast<char>((n << 4) | elem));
        } else {
            out.push_back(static_cast<char>(0xf0 | elem));
            varint(n);
        }
    }
    void begin_struct(int16_t id) { field(id, Struct), last_.push_back(0); }
    void begin_element() { last_.push_back(0); }  // a struct inside a list
    void end_struct() { out.push_back(0), last_.pop_back(); }

private:
    std::vector<int16_t> last_{0};
};

}  // namespace ws::robotics::thrift
