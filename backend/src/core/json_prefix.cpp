#include "core/json_prefix.h"

#include <algorithm>
#include <cctype>

namespace ws {

namespace {
bool space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool hex(unsigned char c) { return std::isxdigit(c) != 0; }
int hex_digit_value(unsigned char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; }
}  // namespace

bool JsonPrefix::value_start(unsigned char c) {
    switch (c) {
        case '{':
            stack_.push_back('{');
            mode_ = Mode::KeyOrEnd;
            return true;
        case '[':
            stack_.push_back('[');
            mode_ = Mode::ValueOrEnd;
            return true;
        case '"':
            key_ = false;
            mode_ = Mode::String;
            return true;
        case 't':
            literal_ = "rue";
            mode_ = Mode::Literal;
            return true;
        case 'f':
            literal_ = "alse";
            mode_ = Mode::Literal;
            return true;
        case 'n':
            literal_ = "ull";
            mode_ = Mode::Literal;
            return true;
        case '-':
            number_ = kMinus;
            mode_ = Mode::Number;
            int_digits_ = exp_value_ = 0, exp_negative_ = false;
            return true;
        case '0':
            number_ = kZero;
            mode_ = Mode::Number;
            int_digits_ = exp_value_ = 0, exp_negative_ = false;
            return true;
        default:
            if (c >= '1' && c <= '9') {
                number_ = kInt;
                mode_ = Mode::Number;
                int_digits_ = 1, exp_value_ = 0, exp_negative_ = false;
                return true;
            }
            return false;
    }
}

bool JsonPrefix::end_container(unsigned char c) {
    if (stack_.empty() || (c == '}' ? '{' : '[') != stack_.back()) return false;
    stack_.pop_back();
    mode_ = stack_.empty() ? Mode::Done : Mode::AfterValue;
    return true;
}

bool JsonPrefix::after_value(unsigned char c) {
    if (space(c)) return true;
    if (c == ',') {
        mode_ = stack_.back() == '{' ? Mode::Key : Mode::Value;
        return true;
    }
    return (c == '}' || c == ']') && end_container(c);
}

bool JsonPrefix::feed(unsigned char c) {
    bool ok = false;
    switch (mode_) {
        case Mode::Start:
            if (space(c)) return true;
            ok = c == '{' && value_start(c);
            break;
        case Mode::Value:
            if (space(c)) return true;
            ok = value_start(c);
            break;
        case Mode::ValueOrEnd:
            if (space(c)) return true;
            ok = c == ']' ? end_container(c) : value_start(c);
            break;
        case Mode::KeyOrEnd:
        case Mode::Key:
            if (space(c)) return true;
            if (c == '"') {
                key_ = true;
                mode_ = Mode::String;
                ok = true;
            } else {
                ok = mode_ == Mode::KeyOrEnd && c == '}' && end_container(c);
            }
            break;
        case Mode::Colon:
            if (space(c)) return true;
            ok = c == ':';
            if (ok) mode_ = Mode::Value;
            break;
        case Mode::AfterValue: ok = after_value(c); break;
        case Mode::String:
            if (surrogate_ == kAwaitBackslash) {
                ok = c == '\\';
                surrogate_ = kAwaitU;
            } else if (surrogate_ == kAwaitU) {
                ok = c == 'u';
                surrogate_ = kInLowHalf, hex_left_ = 4, hex_value_ = 0;
            } else if (hex_left_ > 0) {
                ok = hex(c);
                if (!ok) break;
                hex_value_ = static_cast<uint16_t>(hex_value_ * 16 + hex_digit_value(c));
                const int index = 4 - hex_left_--;
                if (surrogate_ == kInLowHalf) {
                    if (index == 0) ok = hex_value_ == 0xD;
                    if (index == 1) ok = hex_value_ >= 0xDC && hex_value_ <= 0xDF;
                    if (hex_left_ == 0) surrogate_ = kNoPair;
                } else if (index == 1 && hex_value_ >= 0xDC && hex_value_ <= 0xDF) {
                    ok = false;  // a low half without its high half
                } else if (hex_left_ == 0 && hex_value_ >= 0xD800 && hex_value_ <= 0xDBFF) {
                    surrogate_ = kAwaitBackslash;
                }
            } else if (escape_) {
                escape_ = false;
                ok = c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't' ||
                     c == 'u';
                if (c == 'u') hex_left_ = 4, hex_value_ = 0;
            } else if (utf8_left_ > 0) {
                // The second byte's range depends on the first (no overlong forms, no surrogates, nothing past
                // U+10FFFF).
                const unsigned char lo = utf8_lead_ == 0xE0 ? 0xA0 : utf8_lead_ == 0xF0 ? 0x90 : 0x80;
                const unsigned char hi = utf8_lead_ == 0xED ? 0x9F : utf8_lead_ == 0xF4 ? 0x8F : 0xBF;
                ok = c >= lo && c <= hi;
                utf8_lead_ = 0;
                --utf8_left_;
            } else if (c >= 0x80) {
                utf8_left_ = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
                utf8_lead_ = c;
                ok = utf8_left_ > 0;
            } else if (c == '\\') {
                escape_ = ok = true;
            } else if (c == '"') {
                mode_ = key_ ? Mode::Colon : Mode::AfterValue;
                ok = true;
            } else {
                ok = c >= 0x20;  // control characters must be escaped
            }
            break;
        case Mode::Number: {
            // kMinus, kZero, kInt, kDot, kFrac, kExp, kExpSign, kExpDigits; the number ends at the first byte that
            // cannot continue it, which must then be valid after a value.
            const bool can_end = number_ == kZero || number_ == kInt || number_ == kFrac || number_ == kExpDigits;
            if (digit(c) && number_ != kZero) {
                if ((number_ == kMinus && c != '0') || number_ == kInt) ++int_digits_;
                if ((number_ == kExp || number_ == kExpSign || number_ == kExpDigits) && !exp_negative_)
                    exp_value_ = static_cast<uint16_t>(std::min(exp_value_ * 10 + (c - '0'), kMaxMagnitude + 1));
                if (int_digits_ + (exp_negative_ ? 0 : exp_value_) > kMaxMagnitude) {
                    ok = false;  // past what a double holds
                    break;
                }
                number_ = number_ == kMinus                        ? (c == '0' ? kZero : kInt)
                          : number_ == kDot                        ? kFrac
                          : number_ == kExp || number_ == kExpSign ? kExpDigits
                                                                   : number_;
                return true;
            }
            if (c == '.' && (number_ == kZero || number_ == kInt)) return number_ = kDot, true;
            if ((c == 'e' || c == 'E') && (number_ == kZero || number_ == kInt || number_ == kFrac))
                return number_ = kExp, true;
            if ((c == '+' || c == '-') && number_ == kExp) return exp_negative_ = c == '-', number_ = kExpSign, true;
            if (!can_end) {
                ok = false;
                break;
            }
            mode_ = Mode::AfterValue;
            ok = after_value(c);
            break;
        }
        case Mode::Literal:
            ok = *literal_ == static_cast<char>(c);
            if (ok && *++literal_ == '\0') mode_ = Mode::AfterValue;
            break;
        case Mode::Done:
            ok = false;  // one object, then the end
            break;
        case Mode::Failed: return false;
    }
    if (!ok) mode_ = Mode::Failed;
    return ok;
}

std::string JsonPrefix::closing() const {
    std::string out;
    switch (mode_) {
        case Mode::Start: return "{}";
        case Mode::Value: out = "null"; break;
        case Mode::Key: out = "\"\":null"; break;
        case Mode::Colon: out = ":null"; break;
        case Mode::String:
            // Finish a split UTF-8 character with the smallest continuation its first byte allows.
            for (uint8_t k = 0; k < utf8_left_; ++k)
                out += static_cast<char>(k == 0 && utf8_lead_ == 0xE0   ? 0xA0
                                         : k == 0 && utf8_lead_ == 0xF0 ? 0x90
                                                                        : 0x80);
            if (surrogate_ == kAwaitBackslash) {
                out += "\\udc00";
            } else if (surrogate_ == kAwaitU) {
                out += "udc00";
            } else if (surrogate_ == kInLowHalf) {
                out += std::string("dc00").substr(static_cast<size_t>(4 - hex_left_));
            } else if (hex_left_ > 0) {
                // Zeros complete the escape; a completed high half then needs a low one.
                out += std::string(hex_left_, '0');
                const unsigned value = static_cast<unsigned>(hex_value_) << (4 * hex_left_);
                if (value >= 0xD800 && value <= 0xDBFF) out += "\\udc00";
            }
            out += std::string(escape_ ? "n" : "") + "\"" + (key_ ? ":null" : "");
            break;
        case Mode::Number:
            if (number_ == kMinus || number_ == kDot || number_ == kExp || number_ == kExpSign) out = "0";
            break;
        case Mode::Literal: out = literal_; break;
        case Mode::ValueOrEnd:
        case Mode::KeyOrEnd:
        case Mode::AfterValue:
        case Mode::Done:
        case Mode::Failed: break;
    }
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) out += *it == '{' ? '}' : ']';
    return out;
}

}  // namespace ws
