#include "cli.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <sys/wait.h>

#include "worldstudio/core/error.h"
#include "worldstudio/model/default_model.h"
#include "worldstudio/model/tiny_model.h"

namespace fs = std::filesystem;

namespace cli {

std::atomic<bool> g_interrupted{false};

bool Args::has(const std::string& k) const {
    return options.count(k) || std::find(flags.begin(), flags.end(), k) != flags.end();
}

std::string Args::get(const std::string& k, const std::string& fallback) const {
    auto it = options.find(k);
    return it == options.end() ? fallback : it->second.back();
}

std::string Args::need(const std::string& k) const {
    if (!options.count(k)) throw UsageError("missing " + k);
    return get(k);
}

namespace {
// Options that take no value.
const std::vector<std::string> kFlagOptions = {"--chat",
                                               "--negative",
                                               "--sound",
                                               "--sample",
                                               "--json-object",
                                               "--free-text",
                                               "--from-caption",
                                               "--recompute-text",
                                               "--json",
                                               "--resume",
                                               "--freeze-reasoner",
                                               "--closed-loop",
                                               "--no-inverse-check",
                                               "--distilled",
                                               "--fp8",
                                               "--edge",
                                               "--json-caption",
                                               "--plain-prompt",
                                               "--tower-split",
                                               "--step-cache",
                                               "--slurm",
                                               "--slurm-cancel",
                                               "--no-wait",
                                               "--compare-attention",
                                               "--translation-source"};
}  // namespace

Args parse(int argc, char** argv, int start) {
    Args a;
    bool options_ended = false;
    for (int i = start; i < argc; ++i) {
        const std::string s = argv[i];
        if (options_ended || s.size() < 2 || s[0] != '-') {
            a.positional.push_back(s);
        } else if (s == "--") {
            options_ended = true;
        } else if (s == "-h" || s == "--help") {
            a.help = true;
        } else if (std::find(kFlagOptions.begin(), kFlagOptions.end(), s) != kFlagOptions.end()) {
            a.flags.push_back(s);
        } else {
            if (i + 1 >= argc) throw UsageError(s + " needs a value");
            a.options[s].push_back(argv[++i]);
        }
    }
    return a;
}

int to_int(const std::string& s, const char* what) {
    try {
        size_t used = 0;
        long v = std::stol(s, &used);
        // Past int's range the cast would wrap (a seed of 4294967296 becoming 0), so it is refused like any
        // non-integer.
        if (used != s.size() || v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
            throw std::invalid_argument(s);
        return static_cast<int>(v);
    } catch (const std::exception&) {
        throw UsageError(std::string(what) + " must be an integer (got '" + s + "')");
    }
}

double to_double(const std::string& s, const char* what) {
    try {
        size_t used = 0;
        double v = std::stod(s, &used);
        if (used != s.size()) throw std::invalid_argument(s);
        return v;
    } catch (const std::exception&) {
        throw UsageError(std::string(what) + " must be a number (got '" + s + "')");
    }
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ws::Error(path + ": cannot read");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string default_model_dir() {
    const std::string pico = ws::pico::shipped_model_dir();
    if (!pico.empty()) return pico;
    const char* cache = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    fs::path base = cache && *cache ? fs::path(cache) : fs::path(home ? home : ".") / ".cache";
    fs::path dir = base / "worldstudio" / ("tiny-model-r" + std::to_string(ws::kTinyModelRevision));
    if (!fs::exists(dir / "model_index.json")) {
        std::fprintf(stderr, "writing the default tiny model to %s\n", dir.string().c_str());
        ws::make_tiny_model(dir.string(), 0);
    }
    return dir.string();
}

ws::RunCallbacks cancel_callbacks() {
    ws::RunCallbacks cb;
    cb.should_cancel = [] { return g_interrupted.load(); };
    return cb;
}

std::shared_ptr<const ws::Model> load_model(const Args& a, const std::vector<ws::AdapterChoice>& adapters) {
    ws::LoadOptions o;
    o.adapters = adapters;
    o.device = a.get("--device", "auto");
    o.dtype = a.get("--dtype", "auto");
    o.memory.tower_split = a.has("--tower-split");
    o.fp8 = a.get("--fp8-compute", "auto");
    o.attention = a.get("--attention", "sdpa");
    if (o.attention != "sdpa" && o.attention != "math") throw UsageError("--attention must be sdpa or math");
    if (o.fp8 != "auto" && o.fp8 != "w8a8" && o.fp8 != "w8a16")
        throw UsageError("--fp8-compute must be w8a8, w8a16 or auto");
    if (a.has("--resident-layers")) o.memory.resident_layers = to_int(a.get("--resident-layers"), "--resident-layers");
    if (o.memory.resident_layers < -1) throw UsageError("--resident-layers must be a layer count");
    if (a.has("--memory-budget"))
        o.memory.budget_mb =
            a.get("--memory-budget") == "auto" ? -1 : to_int(a.get("--memory-budget"), "--memory-budget");
    if (o.memory.budget_mb < -1) throw UsageError("--memory-budget must be a number of MiB or auto");
    auto model = ws::Model::load(a.has("--model") ? a.get("--model") : default_model_dir(), o, cancel_callbacks());
    // Not refused: the run works, only over the budget; but said, as the studio says it.
    if (const ws::ojson& plan = model->memory_plan(); plan.value("over_budget", false))
        std::fprintf(
            stderr,
            "worldstudio-cli: the memory budget of %.0f MiB is below what even a streamed run holds (%.1f MiB of weights)\n",
            plan.value("budget_mib", 0.0), plan.value("denoise_weight_mib", 0.0));
    return model;
}

namespace {
std::filesystem::path exe_dir() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path() : exe.parent_path();
}
}  // namespace

std::string peer_python() {
    if (const char* p = std::getenv("WS_PEER_PYTHON"); p && *p) return p;
    std::error_code ec;
    for (const auto& d : {exe_dir() / "..", exe_dir() / ".." / ".."})
        if (std::filesystem::exists(d / ".venv" / "bin" / "python3", ec))
            return (d / ".venv" / "bin" / "python3").lexically_normal().string();
    return "python3";
}

std::string scripts_dir() {
    std::error_code ec;
    for (const auto& d : {exe_dir() / ".." / "scripts", exe_dir() / ".." / ".." / "scripts"})
        if (std::filesystem::exists(d / "parquet-peer.py", ec)) return d.lexically_normal().string();
    return "";
}

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

int run_capture(const std::string& command, std::string& output) {
    FILE* p = popen((command + " 2>&1").c_str(), "r");
    if (!p) return -1;
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof(buf), p)) output.append(buf, n);
    const int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace cli
