#pragma once
// What the fuzz targets share. Each target feeds libFuzzer's bytes to one parser of a user's file and lets only
// ws::Error (the clear, user-facing refusal) through: any other exception escaping the parser (nlohmann's own,
// std::out_of_range, ...) aborts, and libFuzzer reports it as a crash with the input that caused it.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace wsfuzz {

// A file holding the input, for parsers that take a path (rewritten on every call; one per process).
inline std::string as_file(const uint8_t* data, size_t size, const char* suffix) {
    const char* dir = std::getenv("TMPDIR");
    const std::string path = std::string(dir && *dir ? dir : "/tmp") + "/wsfuzz-" + std::to_string(getpid()) + suffix;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) std::abort();
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    return path;
}

}  // namespace wsfuzz
