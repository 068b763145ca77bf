#include "worldstudio/jobs/batch.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "worldstudio/core/error.h"
#include "worldstudio/model/request.h"

namespace fs = std::filesystem;

namespace ws {

namespace {
constexpr size_t kMaxSampleNameBytes = 120;  // well inside a file name's 255 bytes, with room for _2 and suffixes

std::vector<std::string> expand(const std::vector<std::string>& paths) {
    std::set<std::string> out;  // sorted and unique, as the reference's sorted(set(...))
    for (const std::string& p : paths) {
        if (p.find('*') == std::string::npos) {
            out.insert(p);
            continue;
        }
        glob_t g{};
        if (::glob(p.c_str(), 0, nullptr, &g) == 0)
            for (size_t i = 0; i < g.gl_pathc; ++i) out.insert(g.gl_pathv[i]);
        globfree(&g);
    }
    return {out.begin(), out.end()};
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot read the sample file");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_json(const fs::path& path, const ojson& j) {
    const fs::path tmp = path.string() + ".partial";
    {
        std::ofstream out(tmp);
        out << j.dump(2) << "\n";
        if (!out) throw Error(path.string() + ": cannot write");
    }
    fs::rename(tmp, path);  // a reader never sees half a status
}
}  // namespace

BatchInput read_batch_files(const std::vector<std::string>& paths) {
    BatchInput in;
    std::map<std::string, std::string> first_seen;  // name -> origin
    const std::vector<std::string> files = expand(paths);
    if (files.empty())
        throw Error("no sample files match " + (paths.empty() ? std::string("(none given)") : paths.front()));
    for (const std::string& file : files) {
        const std::string ext = fs::path(file).extension().string();
        if (ext == ".yaml" || ext == ".yml")
            throw Error(file + ": YAML sample files are not read here; write the sample as JSON");
        if (ext != ".json" && ext != ".jsonl") throw Error(file + ": unsupported sample file (.json or .jsonl)");
        const std::string text = read_text(file);
        const std::string stem = fs::path(file).stem().string();
        const std::string base = fs::path(file).parent_path().string();
        struct Piece {
            std::string text, origin, default_name;
        };
        std::vector<Piece> pieces;
        if (ext == ".json") {
            pieces.push_back({text, file, stem});
        } else {
            std::istringstream lines(text);
            std::string line;
            int number = 0, index = 0;  // the line in the file; the index over non-empty lines (the reference's name)
            while (std::getline(lines, line)) {
                ++number;
                if (!line.empty() && line.back() == '\r') line.pop_back();
                if (line.find_first_not_of(" \t") == std::string::npos) continue;
                pieces.push_back({line, file + ":" + std::to_string(number), stem + "_" + std::to_string(index++)});
            }
        }
        for (const Piece& p : pieces) {
            ojson j = ojson::parse(p.text, nullptr, false);
            if (j.is_discarded()) {
                in.problems.push_back(p.origin + ": not valid JSON");
                continue;
            }
            if (!j.is_object()) {
                in.problems.push_back(p.origin + ": a sample is one JSON object");
                continue;
            }
            BatchSample s;
            s.origin = p.origin;
            if (j.contains("extra")) s.extra = j["extra"], j.erase("extra");
            if (j.contains("name") && !j["name"].is_null() && !j["name"].is_string()) {
                in.problems.push_back(p.origin + ": 'name' must be a string");
                continue;
            }
            s.name = j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>() : p.default_name;
            if (batch_sample_name(s.name) != s.name) {
                in.problems.push_back(p.origin +
                                      ": 'name' must be a folder name (no '/' or control characters, at most " +
                                      std::to_string(kMaxSampleNameBytes) + " bytes)");
                continue;
            }
            j["name"] = s.name;
            try {
                resolve_job_paths(j, base);
                GenerationRequest::parse(j);  // the fields, checked now: a bad sample is reported before anything runs
            } catch (const std::exception& e) {
                in.problems.push_back(p.origin + ": " + user_message(e));
                continue;
            }
            const auto seen = first_seen.find(s.name);
            if (seen != first_seen.end()) {
                in.problems.push_back(p.origin + ": duplicate name '" + s.name + "' (first at " + seen->second + ")");
                continue;
            }
            first_seen[s.name] = p.origin;
            s.args = j;
            in.samples.push_back(std::move(s));
        }
    }
    return in;
}

std::string batch_sample_status(const std::string& out_dir, const std::string& name) {
    const fs::path f = fs::path(out_dir) / name / "sample_outputs.json";
    if (!fs::exists(f)) return "";
    std::ifstream in(f);
    const ojson j = ojson::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("status") || !j["status"].is_string()) return "";
    return j["status"].get<std::string>();
}

BatchReport run_batch(Session& session, const BatchInput& input, const std::string& out_dir, const BatchOptions& o,
                      const RunCallbacks& cb) {
    fs::create_directories(out_dir);
    std::ofstream console(fs::path(out_dir) / "console.log", std::ios::app);
    auto log = [&](const std::string& line) {
        console << line << "\n";
        console.flush();
        if (o.on_log) o.on_log(line);
    };
    for (const std::string& p : input.problems) log("refused " + p);
    BatchReport report;
    for (size_t i = 0; i < input.samples.size(); ++i) {
        const BatchSample& s = input.samples[i];
        const fs::path dir = fs::path(out_dir) / s.name;
        if (o.resume && batch_sample_status(out_dir, s.name) == "success") {
            ++report.skipped;
            if (o.on_sample) o.on_sample(i, input.samples.size(), s.name, "success (already)");
            continue;
        }
        fs::create_directories(dir);
        fs::remove(dir / "sample_outputs.json");
        const bool image = s.args.contains("num_frames") && s.args["num_frames"].is_number() &&
                           s.args["num_frames"].get<double>() == 1;
        const std::string media = (dir / (image ? "vision.png" : "vision.mp4")).string();
        log("sample " + std::to_string(i + 1) + "/" + std::to_string(input.samples.size()) + " " + s.name + " (" +
            s.origin + ")");
        ojson outputs = {{"args", s.args},
                         {"status", "success"},
                         {"message", nullptr},
                         {"stack_trace", nullptr},
                         {"outputs", ojson::array()}};
        if (!s.extra.is_null()) outputs["args"]["extra"] = s.extra;
        try {
            const GenerationResult r = session.generate(s.args, media, cb);
            outputs["args"] = r.record["request"];
            if (!s.extra.is_null()) outputs["args"]["extra"] = s.extra;
            ojson files = ojson::array();
            for (const std::string& f : r.outputs) files.push_back(fs::absolute(f).lexically_normal().string());
            ojson content = ojson::object();
            for (const auto& out : r.record["outputs"])
                if (out.contains("actions")) {
                    std::ifstream a(dir / out["actions"].get<std::string>());
                    content["action"] = ojson::parse(a, nullptr, false);
                }
            outputs["outputs"].push_back({{"content", content}, {"files", files}});
            write_json(dir / "sample_args.json", outputs["args"]);
            write_json(dir / "sample_outputs.json", outputs);
            ++report.succeeded;
            log("  success: " + media);
            if (o.on_sample) o.on_sample(i, input.samples.size(), s.name, "success");
        } catch (const Cancelled&) {
            log("  cancelled: the batch stops here; --resume runs the rest");
            throw;
        } catch (const std::exception& e) {
            const std::string message = user_message(e);
            outputs["status"] = "error";
            outputs["message"] = message;
            write_json(dir / "sample_args.json", outputs["args"]);
            write_json(dir / "sample_outputs.json", outputs);
            ++report.failed;
            report.failures.push_back(s.name + ": " + message);
            log("  error: " + message);
            if (o.on_sample) o.on_sample(i, input.samples.size(), s.name, "error");
        }
    }
    log("batch: " + std::to_string(report.succeeded) + " succeeded, " + std::to_string(report.failed) + " failed, " +
        std::to_string(report.skipped) + " already done, " + std::to_string(input.problems.size()) + " refused");
    return report;
}

std::string batch_sample_name(const std::string& text) {
    std::string name;
    for (size_t i = 0; i < text.size();) {
        const unsigned char lead = static_cast<unsigned char>(text[i]);
        // Whole UTF-8 characters only: a cut never splits one.
        const size_t len = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        if (name.size() + len > kMaxSampleNameBytes) break;
        if (lead == '/' || lead < 0x20 || lead == 0x7F)
            name += '_';
        else
            name.append(text, i, len);
        i += len;
    }
    if (name.empty() || name == "." || name == "..") name = "sample" + name;
    return name;
}

void write_batch_file(const std::string& path, const std::vector<ojson>& samples) {
    std::set<std::string> names;
    std::ostringstream out;
    for (size_t i = 0; i < samples.size(); ++i) {
        ojson s = samples[i];
        if (!s.is_object()) throw Error(path + ": sample " + std::to_string(i + 1) + " is not a JSON object");
        const std::string base = s.contains("name") && s["name"].is_string() && !s["name"].get<std::string>().empty()
                                     ? batch_sample_name(s["name"].get<std::string>())
                                     : "sample_" + std::to_string(i);
        std::string name = base;
        for (int k = 2; names.count(name); ++k) name = base + "_" + std::to_string(k);
        names.insert(name);
        s["name"] = name;
        out << s.dump() << "\n";
    }
    const std::string tmp = path + ".partial";
    {
        std::ofstream f(tmp);
        f << out.str();
        if (!f) throw Error(path + ": cannot write");
    }
    fs::rename(tmp, path);
}

}  // namespace ws
