// A batch sample file (JSONL) read as `worldstudio-cli batch` reads it: refused whole with a ws::Error naming the
// file, or read into samples and "FILE:LINE: why" problems; what it reads writes back as a sample file and reads
// again to the same names.
#include <filesystem>

#include "fuzz_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/jobs/batch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string file = wsfuzz::as_file(data, size, ".jsonl");
    try {
        const ws::BatchInput in = ws::read_batch_files({file});
        std::vector<ws::ojson> args;
        for (const ws::BatchSample& s : in.samples) args.push_back(s.args);
        const std::string again = file + ".out.jsonl";
        ws::write_batch_file(again, args);
        const ws::BatchInput back = ws::read_batch_files({again});
        if (back.samples.size() != in.samples.size()) __builtin_trap();
        for (size_t i = 0; i < back.samples.size(); ++i)
            if (back.samples[i].name != in.samples[i].name) __builtin_trap();
        std::filesystem::remove(again);
    } catch (const ws::Error&) {
    }
    return 0;
}
