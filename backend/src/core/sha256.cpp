#include "worldstudio/core/sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <vector>

#include "worldstudio/core/error.h"

namespace ws {

std::string sha256_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot read for hashing");
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> owner(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    EVP_MD_CTX* ctx = owner.get();
    if (!ctx) throw Error(path + ": cannot hash (out of memory)");
    EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
    std::vector<char> buf(1 << 20);
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        if (in.gcount() > 0) EVP_DigestUpdate(ctx, buf.data(), static_cast<size_t>(in.gcount()));
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx, md, &len);
    static const char* hex = "0123456789abcdef";
    std::string out;
    for (unsigned i = 0; i < len; ++i) out += hex[md[i] >> 4], out += hex[md[i] & 15];
    return out;
}

}  // namespace ws
