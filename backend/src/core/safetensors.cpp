#include "worldstudio/core/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "worldstudio/core/error.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace ws {

namespace {
// A header larger than this is not a real checkpoint header (the largest real ones are a few MB).
constexpr uint64_t kMaxHeaderBytes = 100ull * 1024 * 1024;

bool mul_overflows(uint64_t a, uint64_t b, uint64_t* out) {
    if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return true;
    *out = a * b;
    return false;
}
}  // namespace

const char* dtype_name(DType d) {
    switch (d) {
        case DType::F32: return "F32";
        case DType::F16: return "F16";
        case DType::BF16: return "BF16";
        case DType::I64: return "I64";
        case DType::I32: return "I32";
        case DType::U8: return "U8";
        case DType::BOOL: return "BOOL";
        case DType::F8_E4M3: return "F8_E4M3";
        case DType::F8_E5M2: return "F8_E5M2";
    }
    return "?";
}

size_t dtype_size(DType d) {
    switch (d) {
        case DType::F32:
        case DType::I32: return 4;
        case DType::F16:
        case DType::BF16: return 2;
        case DType::I64: return 8;
        case DType::U8:
        case DType::BOOL:
        case DType::F8_E4M3:
        case DType::F8_E5M2: return 1;
    }
    return 0;
}

DType dtype_from_name(const std::string& n) {
    static const std::map<std::string, DType> names = {
        {"F32", DType::F32},   {"F16", DType::F16},         {"BF16", DType::BF16},
        {"I64", DType::I64},   {"I32", DType::I32},         {"U8", DType::U8},
        {"BOOL", DType::BOOL}, {"F8_E4M3", DType::F8_E4M3}, {"F8_E5M2", DType::F8_E5M2}};
    auto it = names.find(n);
    if (it == names.end()) throw Error("unsupported tensor dtype '" + n + "'");
    return it->second;
}

int64_t TensorView::numel() const {
    int64_t n = 1;
    for (auto s : shape) n *= s;
    return n;
}

SafeTensorsFile::SafeTensorsFile(const std::string& path) : path_(path) {
    refuse_pickle_checkpoint(path);
    auto fail = [&](const std::string& why) -> Error { return Error(path + ": " + why); };
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw fail(std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        throw fail("not a regular file");
    }
    map_size_ = static_cast<size_t>(st.st_size);
    if (map_size_ < 8) {
        ::close(fd);
        throw fail("truncated: " + std::to_string(map_size_) +
                   " bytes, a safetensors file has at least an 8-byte header length");
    }
    map_ = ::mmap(nullptr, map_size_, PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (map_ == MAP_FAILED) {
        map_ = nullptr;
        throw fail("mmap failed");
    }
    try {
        const auto* base = static_cast<const uint8_t*>(map_);
        uint64_t header_len = 0;
        for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | base[i];
        if (header_len > kMaxHeaderBytes) throw fail("header length " + std::to_string(header_len) + " is not sane");
        if (header_len > map_size_ - 8)
            throw fail("truncated: header claims " + std::to_string(header_len) + " bytes, file has " +
                       std::to_string(map_size_ - 8) + " after the length");
        const char* hstart = reinterpret_cast<const char*>(base + 8);
        json header;
        try {
            header = json::parse(hstart, hstart + header_len);
        } catch (const json::exception& e) {
            throw fail(std::string("header is not valid JSON (") + user_message(e) + ")");
        }
        if (!header.is_object()) throw fail("header is not a JSON object");
        const uint64_t data_size = map_size_ - 8 - header_len;
        const uint8_t* data = base + 8 + header_len;
        struct Span {
            uint64_t b, e;
            std::string name;
        };
        std::vector<Span> spans;
        for (auto it = header.begin(); it != header.end(); ++it) {
            const std::string& name = it.key();
            if (name == "__metadata__") {
                if (!it->is_object()) throw fail("__metadata__ is not an object");
                for (auto m = it->begin(); m != it->end(); ++m) {
                    if (!m->is_string()) throw fail("__metadata__ value of '" + m.key() + "' is not a string");
                    metadata_[m.key()] = m->get<std::string>();
                }
                continue;
            }
            auto tfail = [&](const std::string& why) { return fail("tensor '" + name + "': " + why); };
            const json& e = *it;
            if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets"))
                throw tfail("entry needs dtype, shape and data_offsets");
            if (!e["dtype"].is_string()) throw tfail("dtype is not a string");
            TensorView v;
            v.name = name;
            try {
                v.dtype = dtype_from_name(e["dtype"].get<std::string>());
            } catch (const Error& err) {
                throw tfail(err.what());
            }
            if (!e["shape"].is_array()) throw tfail("shape is not an array");
            uint64_t numel = 1;
            for (const auto& d : e["shape"]) {
                if (!d.is_number_unsigned()) throw tfail("shape has a negative or non-integer dimension");
                uint64_t dim = d.get<uint64_t>();
                if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
                    mul_overflows(numel, dim, &numel))
                    throw tfail("shape is too large");
                v.shape.push_back(static_cast<int64_t>(dim));
            }
            const json& off = e["data_offsets"];
            if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
                throw tfail("data_offsets must be two non-negative integers");
            uint64_t b = off[0].get<uint64_t>(), en = off[1].get<uint64_t>();
            if (b > en) throw tfail("data_offsets are reversed");
            if (en > data_size)
                throw tfail("data_offsets [" + std::to_string(b) + ", " + std::to_string(en) + ") lie outside the " +
                            std::to_string(data_size) + "-byte data area (truncated file?)");
            uint64_t expect = 0;
            if (mul_overflows(numel, dtype_size(v.dtype), &expect)) throw tfail("byte size overflows");
            if (en - b != expect)
                throw tfail("byte length " + std::to_string(en - b) + " does not match " + dtype_name(v.dtype) +
                            " x shape = " + std::to_string(expect));
            v.data = data + b;
            v.nbytes = static_cast<size_t>(expect);
            spans.push_back({b, en, name});
            tensors_.emplace(name, std::move(v));
        }
        std::sort(spans.begin(), spans.end(), [](const Span& x, const Span& y) { return x.b < y.b; });
        for (size_t i = 1; i < spans.size(); ++i)
            if (spans[i].b < spans[i - 1].e && spans[i].e > spans[i].b)
                throw fail("tensors '" + spans[i - 1].name + "' and '" + spans[i].name + "' overlap");
    } catch (...) {
        ::munmap(map_, map_size_);
        map_ = nullptr;
        throw;
    }
}

SafeTensorsFile::~SafeTensorsFile() {
    if (map_) ::munmap(map_, map_size_);
}

const TensorView& SafeTensorsFile::at(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw Error(path_ + ": no tensor '" + name + "'");
    return it->second;
}

bool is_pickle_file(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
    return ext == ".pt" || ext == ".pth" || ext == ".ckpt" || ext == ".bin" || ext == ".pkl";
}

void refuse_pickle_checkpoint(const std::string& path) {
    if (is_pickle_file(path))
        throw Error(path + ": pickle checkpoints (" + fs::path(path).extension().string() +
                    ") are refused because loading them can execute code; convert to .safetensors first");
}

namespace {
// Hugging Face names unindexed shards "<stem>-00001-of-00003.safetensors": with no index, every number up to
// the total must be there, or the folder is an interrupted download.
void check_shard_numbering(const std::vector<fs::path>& files) {
    for (const fs::path& f : files) {
        const std::string n = f.filename().string();
        const size_t of = n.rfind("-of-"), dot = n.rfind(".safetensors");
        if (of == std::string::npos || dot == std::string::npos || dot <= of + 4) continue;
        const size_t dash = n.rfind('-', of - 1);
        if (dash == std::string::npos) continue;
        const std::string index = n.substr(dash + 1, of - dash - 1), total = n.substr(of + 4, dot - of - 4);
        auto digits = [](const std::string& s) {
            return !s.empty() && s.size() < 9 &&
                   std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
        };
        if (!digits(index) || !digits(total)) continue;
        for (int k = 1; k <= std::stoi(total); ++k) {
            std::string num = std::to_string(k);
            if (num.size() < index.size()) num.insert(0, index.size() - num.size(), '0');
            const fs::path want = f.parent_path() / (n.substr(0, dash + 1) + num + n.substr(of));
            if (!fs::exists(want))
                throw Error(want.string() + ": missing; " + n + " is one of " + std::to_string(std::stoi(total)) +
                            " shards and the folder has no .safetensors.index.json naming others");
        }
    }
}
}  // namespace

Checkpoint::Checkpoint(const std::string& path_in) {
    fs::path path(path_in);
    std::vector<fs::path> shards;
    auto add_index = [&](const fs::path& idx) {
        std::ifstream in(idx);
        if (!in) throw Error(idx.string() + ": cannot open");
        json j;
        try {
            j = json::parse(in);
        } catch (const json::exception& e) {
            throw Error(idx.string() + ": not valid JSON (" + user_message(e) + ")");
        }
        if (!j.contains("weight_map") || !j["weight_map"].is_object())
            throw Error(idx.string() + ": no weight_map object");
        std::vector<std::string> names;
        std::map<std::string, std::pair<std::string, size_t>> named_for;  // file -> (its first tensor, how many)
        for (auto& [k, v] : j["weight_map"].items()) {
            if (!v.is_string()) throw Error(idx.string() + ": weight_map entry '" + k + "' is not a file name");
            std::string f = v.get<std::string>();
            if (f.find('/') != std::string::npos || f.find("..") != std::string::npos)
                throw Error(idx.string() + ": weight_map entry '" + k + "' points outside the folder");
            if (std::find(names.begin(), names.end(), f) == names.end()) names.push_back(f), named_for[f] = {k, 0};
            ++named_for[f].second;
        }
        if (names.empty()) throw Error(idx.string() + ": weight_map is empty");
        for (auto& n : names) {
            // A shard the index names but the folder lacks: an interrupted download or a stale index.
            if (!fs::exists(idx.parent_path() / n)) {
                const auto& [first, count] = named_for[n];
                throw Error(idx.string() + ": weight_map names " + n + " for '" + first + "'" +
                            (count > 1 ? " and " + std::to_string(count - 1) + " more tensors" : std::string()) +
                            ", but " + (idx.parent_path() / n).string() + " is not there");
            }
            shards.push_back(idx.parent_path() / n);
        }
    };
    if (fs::is_directory(path)) {
        std::vector<fs::path> idx, st, pickles;
        for (auto& e : fs::directory_iterator(path)) {
            std::string n = e.path().filename().string();
            if (n.size() > 23 && n.substr(n.size() - 23) == ".safetensors.index.json")
                idx.push_back(e.path());
            else if (e.path().extension() == ".safetensors")
                st.push_back(e.path());
            else if (e.is_regular_file() && is_pickle_file(n))
                pickles.push_back(e.path());
        }
        std::sort(idx.begin(), idx.end());
        std::sort(st.begin(), st.end());
        std::sort(pickles.begin(), pickles.end());
        if (!idx.empty())
            add_index(idx.front());
        else if (!st.empty())
            check_shard_numbering(st), shards = st;
        else if (!pickles.empty())  // weights only as pickles: refused by name, never read
            throw Error(pickles.front().string() + ": pickle checkpoints (" + pickles.front().extension().string() +
                        ") are refused because loading them can execute code, and " + path.string() +
                        " holds no .safetensors weights; convert to .safetensors first");
        else
            throw Error(path.string() + ": no .safetensors files in this folder");
    } else if (path.string().size() > 5 && path.string().substr(path.string().size() - 5) == ".json") {
        add_index(path);
    } else {
        shards.push_back(path);
    }
    for (auto& s : shards) {
        files_.push_back(std::make_unique<SafeTensorsFile>(s.string()));
        for (auto& [name, view] : files_.back()->tensors()) {
            if (index_.count(name)) throw Error(s.string() + ": tensor '" + name + "' also appears in another shard");
            index_[name] = &view;
        }
    }
}

const TensorView& Checkpoint::at(const std::string& name) const {
    auto it = index_.find(name);
    if (it == index_.end()) throw Error("checkpoint has no tensor '" + name + "'");
    return *it->second;
}

std::vector<std::string> Checkpoint::files() const {
    std::vector<std::string> out;
    for (auto& f : files_) out.push_back(f->path());
    return out;
}

void write_safetensors(const std::string& path, const std::map<std::string, TensorBlob>& tensors,
                       const std::map<std::string, std::string>& metadata) {
    json header = json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    uint64_t offset = 0;
    for (const auto& [name, t] : tensors) {
        uint64_t numel = 1;
        for (auto s : t.shape) {
            if (s < 0) throw Error("cannot write tensor '" + name + "': negative dimension");
            numel *= static_cast<uint64_t>(s);
        }
        if (numel * dtype_size(t.dtype) != t.bytes.size())
            throw Error("cannot write tensor '" + name + "': byte length does not match dtype x shape");
        header[name] = {
            {"dtype", dtype_name(t.dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + t.bytes.size()}}};
        offset += t.bytes.size();
    }
    std::string h = header.dump();
    while ((h.size() + 8) % 8 != 0) h.push_back(' ');  // keeps the data area 8-byte aligned
    fs::path tmp = fs::path(path).string() + ".partial";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw Error(path + ": cannot write");
        uint64_t n = h.size();
        for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
        out.write(h.data(), static_cast<std::streamsize>(h.size()));
        for (const auto& [name, t] : tensors)
            out.write(reinterpret_cast<const char*>(t.bytes.data()), static_cast<std::streamsize>(t.bytes.size()));
        if (!out) throw Error(path + ": write failed");
    }
    fs::rename(tmp, path);  // never leaves a half-written file under the final name
}

}  // namespace ws
