#pragma once
#include <string>

namespace ws {

// The SHA-256 of a file's bytes as 64 lowercase hex digits (OpenSSL); throws ws::Error naming an unreadable file.
std::string sha256_file(const std::string& path);

}  // namespace ws
