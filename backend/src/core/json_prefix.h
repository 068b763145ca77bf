#pragma once
// Whether bytes so far can still begin one JSON object (RFC 8259), fed one byte at a time: the reasoner's
// constrained decoding (ReasonerSampling::json_object) keeps only tokens whose bytes leave this true, so a small
// reasoner cannot break a caption's syntax, as grammar-constrained sampling does in llama.cpp. A copyable value:
// a candidate token is tried on a copy.
#include <cstdint>
#include <string>
#include <vector>

namespace ws {

class JsonPrefix {
public:
    // False (and the state unusable) when `c` cannot follow what came before.
    bool feed(unsigned char c);
    bool feed(const std::string& bytes) {
        for (char c : bytes)
            if (!feed(static_cast<unsigned char>(c))) return false;
        return true;
    }
    bool complete() const { return mode_ == Mode::Done; }  // the object is closed
    // The shortest bytes that close the object from here (a pending key gets a null value), so a reply about to run
    // out of tokens can still end as valid JSON. Empty when complete.
    std::string closing() const;

private:
    enum class Mode : uint8_t {
        Start,       // whitespace, then '{'
        Value,       // a value (after ':' or in an array after ',')
        ValueOrEnd,  // first element of an array: a value or ']'
        KeyOrEnd,    // first member of an object: '"' or '}'
        Key,         // after ',' in an object: '"'
        Colon,       // after a key
        AfterValue,  // ',' or the container's closing bracket
        String,      // inside a string (key_ says whether it is a key)
        Number,
        Literal,  // true / false / null
        Done,
        Failed,
    };
    enum NumberState : uint8_t { kMinus, kZero, kInt, kDot, kFrac, kExp, kExpSign, kExpDigits };
    bool value_start(unsigned char c);
    bool after_value(unsigned char c);
    bool end_container(unsigned char c);

    Mode mode_ = Mode::Start;
    std::vector<char> stack_;  // '{' or '['
    bool key_ = false;
    bool escape_ = false;     // just after a backslash in a string
    uint8_t hex_left_ = 0;    // hex digits of a \uXXXX escape still to come
    uint16_t hex_value_ = 0;  // the digits of that escape so far
    // UTF-16 surrogates: a \uD800-\uDBFF escape must be followed at once by a \uDC00-\uDFFF one, and a low half
    // never stands alone (as nlohmann's parser, which reads the reply, requires).
    enum Surrogate : uint8_t { kNoPair, kAwaitBackslash, kAwaitU, kInLowHalf };
    Surrogate surrogate_ = kNoPair;
    uint8_t utf8_left_ = 0;        // continuation bytes of a UTF-8 character still to come (tokens split characters)
    unsigned char utf8_lead_ = 0;  // that character's first byte, while its second is awaited
    NumberState number_ = kInt;
    // A number's decimal magnitude: digits before the point (after a leading zero none count) plus a positive
    // exponent. nlohmann refuses a number that overflows a double (past about 1.8e308), so the automaton keeps every
    // number below 10^kMaxMagnitude; that refuses a few valid JSON numbers and never accepts an unreadable one.
    static constexpr int kMaxMagnitude = 300;
    uint16_t int_digits_ = 0;
    uint16_t exp_value_ = 0;
    bool exp_negative_ = false;
    const char* literal_ = nullptr;  // the rest of true / false / null
};

}  // namespace ws
