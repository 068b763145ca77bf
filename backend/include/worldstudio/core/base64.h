#pragma once
// Base64 (RFC 4648, with padding), as JSON carries binary data: the robot case files' images and a vLLM-Omni
// server's b64_json pictures. OpenSSL's EVP_EncodeBlock/EVP_DecodeBlock do the work.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ws {

std::string base64_encode(const void* data, size_t n);
// Line breaks are skipped and missing padding is allowed; any other character outside the alphabet throws
// ws::Error("not valid base64").
std::vector<uint8_t> base64_decode(const std::string& text);

}  // namespace ws
