#pragma once
// What the checkpoint tests share (test_checkpoints, test_fp8_checkpoints): JSON and tensor edits of model folders,
// the damage cases and a fixture holding the folders.
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "worldstudio/core/error.h"
#include "worldstudio/core/safetensors.h"
#include "worldstudio/model/engine.h"

namespace fs = std::filesystem;
using namespace ws;

namespace ckfix {
inline ojson read_json(const fs::path& p) {
    std::ifstream in(p);
    return ojson::parse(in);
}
inline void write_json(const fs::path& p, const ojson& j) { std::ofstream(p) << j.dump(2); }

// Rewrites a safetensors file's tensors (raw blobs, so FP8 ones too).
inline void edit_safetensors(const std::string& file,
                             const std::function<void(std::map<std::string, TensorBlob>&)>& edit) {
    std::map<std::string, TensorBlob> blobs;
    {
        SafeTensorsFile f(file);
        for (const auto& [name, v] : f.tensors())
            blobs[name] = TensorBlob{v.dtype, v.shape, std::vector<uint8_t>(v.data, v.data + v.nbytes)};
    }
    edit(blobs);
    write_safetensors(file, blobs);
}
inline void edit_tensors(const std::string& model_dir,
                         const std::function<void(std::map<std::string, TensorBlob>&)>& edit) {
    edit_safetensors(model_dir + "/transformer/diffusion_pytorch_model.safetensors", edit);
}

// One way to damage a copy of a good folder, and what the refusal must say.
struct Damage {
    const char* name;
    std::function<void(const std::string&)> damage;
    const char* expect;
};

inline std::string load_error(const std::string& dir) {
    try {
        LoadOptions o;
        o.device = "cpu", o.hash_files = false;
        Model::load(dir, o);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}
}  // namespace ckfix
using namespace ckfix;

// The folders the checkpoint tests make and damage: a temporary folder per test class, copies of prepared folders,
// and the check that each damage is refused by name.
class CheckpointFixture : public QObject {
protected:
    QTemporaryDir tmp_;
    std::string dir(const std::string& rel) { return (tmp_.path() + "/").toStdString() + rel; }
    std::shared_ptr<const Model> load(const std::string& d) {
        LoadOptions o;
        o.device = "cpu";
        return Model::load(d, o);
    }
    // A fresh copy of a prepared folder to damage.
    std::string copy(const std::string& from, const std::string& to) {
        fs::remove_all(dir(to));
        fs::copy(dir(from), dir(to), fs::copy_options::recursive);
        return dir(to);
    }
    // Each damage on its own copy of `from` (a path): `refusal` returns the error it gets ("" when accepted),
    // which must say what the case expects and name the damaged folder.
    void expectRefusals(const std::string& from, const std::string& prefix, const std::vector<Damage>& cases,
                        const std::function<std::string(const std::string&)>& refusal) {
        for (const Damage& c : cases) {
            const std::string d = dir(prefix + c.name);
            fs::remove_all(d);
            fs::copy(from, d, fs::copy_options::recursive);
            c.damage(d);
            const std::string e = refusal(d);
            QVERIFY2(e.find(c.expect) != std::string::npos,
                     qPrintable(QString("%1: %2").arg(c.name, QString::fromStdString(e))));
            QVERIFY2(e.find(d) != std::string::npos,
                     qPrintable(QString("%1 names no folder: %2").arg(c.name, QString::fromStdString(e))));
        }
    }
};
