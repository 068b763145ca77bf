// The safetensors reader on arbitrary files: the header (JSON, dtypes, shapes, offsets) must be refused with a
// ws::Error or accepted with every tensor inside the file.
#include "fuzz_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = wsfuzz::as_file(data, size, ".safetensors");
    try {
        ws::SafeTensorsFile f(path);
        for (const auto& [name, view] : f.tensors()) {
            // Touch the first and last byte of every tensor: out of the mapping would be caught by ASan.
            if (view.nbytes) {
                volatile uint8_t sink = view.data[0];
                sink = view.data[view.nbytes - 1];
                (void)sink;
            }
        }
    } catch (const ws::Error&) {
    }
    return 0;
}
