#include "worldstudio/core/base64.h"

#include <openssl/evp.h>

#include <limits>

#include "worldstudio/core/error.h"

namespace ws {

std::string base64_encode(const void* data, size_t n) {
    if (n > static_cast<size_t>(std::numeric_limits<int>::max()) / 4 * 3)
        throw Error("base64: more than 1.5 GB to encode");
    std::string out(4 * ((n + 2) / 3) + 1, '\0');  // EVP_EncodeBlock writes a terminating NUL
    const int len = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                    static_cast<const unsigned char*>(data), static_cast<int>(n));
    out.resize(static_cast<size_t>(len));
    return out;
}

std::vector<uint8_t> base64_decode(const std::string& text) {
    std::string clean;
    clean.reserve(text.size());
    for (char c : text)
        if (c != '\n' && c != '\r') clean += c;
    while (clean.size() % 4) clean += '=';
    if (clean.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
        throw Error("base64: more than 2 GB to decode");
    size_t padding = 0;
    while (padding < 2 && padding < clean.size() && clean[clean.size() - 1 - padding] == '=') ++padding;
    // EVP_DecodeBlock counts the padding's zero bytes in its length and skips leading and trailing blanks; an '='
    // anywhere but the end, or any other stray character, is an error.
    if (clean.find('=') < clean.size() - padding || clean.find_first_of(" \t") != std::string::npos)
        throw Error("not valid base64");
    std::vector<uint8_t> out(clean.size() / 4 * 3);
    const int len = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(clean.data()),
                                    static_cast<int>(clean.size()));
    if (len < 0 || static_cast<size_t>(len) < padding) throw Error("not valid base64");
    out.resize(static_cast<size_t>(len) - padding);
    return out;
}

}  // namespace ws
