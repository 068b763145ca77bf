// The Parquet reader on arbitrary bytes: footer, schema, page headers, levels, encodings and decompression must
// be refused with a ws::Error or decode every column with its offsets inside its leaves.
#include <string>

#include "fuzz_support.h"
#include "robotics/parquet.h"
#include "worldstudio/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        const auto f = ws::robotics::parquet::File::from_bytes(std::string(reinterpret_cast<const char*>(data), size),
                                                               "fuzz.parquet");
        for (size_t i = 0; i < f.leaves().size(); ++i) {
            const ws::robotics::Column c = f.read(static_cast<int>(i));
            // Every row's leaves must lie inside the column (values_json walks all offsets).
            for (int64_t r = 0; r < c.rows(); ++r) {
                const auto [b, e] = c.leaf_range(r);
                if (b > e || e > c.leaf_count()) __builtin_trap();
            }
            (void)c.values_json();
        }
    } catch (const ws::Error&) {
    }
    return 0;
}
