// Media probing (FFmpeg's demuxers on a fuzzed file), as `probe` and the studio's player and evaluation import
// call it: refused with a ws::Error or described.
#include "fuzz_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // The suffix decides which demuxer FFmpeg's probing favours; the first byte picks one so all are reached.
    static const char* suffixes[] = {".mp4", ".png", ".wav", ".jpg", ".mkv", ".bin"};
    const char* suffix = suffixes[size ? data[0] % 6 : 0];
    const std::string path = wsfuzz::as_file(data, size, suffix);
    try {
        ws::probe_media(path);
    } catch (const ws::Error&) {
    }
    return 0;
}
