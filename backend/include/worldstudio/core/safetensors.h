#pragma once
// safetensors files: a memory-mapped, validating reader (single files and sharded checkpoints with a
// `*.safetensors.index.json`) and a writer. No torch here, so Qt code may include it.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ws {

// F8_E4M3 / F8_E5M2 are one-byte floats (ModelOpt FP8 checkpoints); they are read as raw bytes and decoded by
// core/fp8.h, since the LibTorch we build with has no float8 type.
enum class DType { F32, F16, BF16, I64, I32, U8, BOOL, F8_E4M3, F8_E5M2 };

const char* dtype_name(DType d);
size_t dtype_size(DType d);
// Parses "F32", "BF16", ...; throws ws::Error naming the dtype otherwise.
DType dtype_from_name(const std::string& name);

struct TensorView {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    const uint8_t* data = nullptr;  // points into the mapping; valid while the file object lives
    size_t nbytes = 0;
    int64_t numel() const;
};

// One memory-mapped .safetensors file. The header is validated completely on open: well-formed JSON,
// known dtypes, dtype size x shape = byte length, offsets inside the data area, no overlaps, sane header
// size. Nothing outside the mapping is ever read.
class SafeTensorsFile {
public:
    explicit SafeTensorsFile(const std::string& path);
    ~SafeTensorsFile();
    SafeTensorsFile(const SafeTensorsFile&) = delete;
    SafeTensorsFile& operator=(const SafeTensorsFile&) = delete;

    const std::string& path() const { return path_; }
    const std::map<std::string, TensorView>& tensors() const { return tensors_; }
    const std::map<std::string, std::string>& metadata() const { return metadata_; }
    bool contains(const std::string& name) const { return tensors_.count(name) != 0; }
    const TensorView& at(const std::string& name) const;

private:
    std::string path_;
    void* map_ = nullptr;
    size_t map_size_ = 0;
    std::map<std::string, TensorView> tensors_;
    std::map<std::string, std::string> metadata_;
};

// A checkpoint that may span several files: a single .safetensors file, a `*.safetensors.index.json`,
// or a folder holding either. Tensor names are unique across shards.
class Checkpoint {
public:
    explicit Checkpoint(const std::string& path);
    const std::map<std::string, const TensorView*>& tensors() const { return index_; }
    bool contains(const std::string& name) const { return index_.count(name) != 0; }
    const TensorView& at(const std::string& name) const;
    std::vector<std::string> files() const;

private:
    std::vector<std::unique_ptr<SafeTensorsFile>> files_;
    std::map<std::string, const TensorView*> index_;
};

// Refuses pickle checkpoints (.pt/.pth/.ckpt/.bin/.pkl) with a clear message: loading them would mean
// executing code from the file.
void refuse_pickle_checkpoint(const std::string& path);
// Whether `path` has one of those extensions (a Checkpoint folder never reads such a file; with no .safetensors
// beside it, the folder is refused naming it).
bool is_pickle_file(const std::string& path);

// Tensors to write: name -> (dtype, shape, raw little-endian bytes).
struct TensorBlob {
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;
};

void write_safetensors(const std::string& path, const std::map<std::string, TensorBlob>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace ws
