#pragma once
// What every worldstudio-cli verb shares: the parsed command line, the usage error, number parsing, the default
// model and the media files a session is given. Each verb family lives in its own file (verbs_*.cpp) and adds its
// verbs to the table main.cpp dispatches on.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "worldstudio/model/engine.h"

namespace cli {

using ws::ojson;

// A bad command line: exit 2 with the verb's usage.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Set by SIGINT; long verbs poll it through cancel_callbacks().
extern std::atomic<bool> g_interrupted;

struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::vector<std::string>> options;
    std::vector<std::string> flags;
    bool help = false;  // -h or --help

    bool has(const std::string& k) const;
    std::string get(const std::string& k, const std::string& fallback = "") const;
    std::string need(const std::string& k) const;  // throws UsageError when absent
};

// argv[start..]: options that take no value are flags; `--` ends the options (what follows is positional, so a
// text may begin with '-'); -h / --help anywhere before it asks for the verb's usage.
Args parse(int argc, char** argv, int start);

int to_int(const std::string& s, const char* what);        // throws UsageError past int's range or on junk
double to_double(const std::string& s, const char* what);  // throws UsageError on junk
std::string read_file(const std::string& path);            // throws ws::Error naming the file
// The Python of the comparison peers (tokenizers, duckdb, pyarrow): $WS_PEER_PYTHON, else the project's .venv beside
// the build folder, else python3 on PATH.
std::string peer_python();
// The project's scripts/ folder, from the build folder (empty when not found).
std::string scripts_dir();
std::string shell_quote(const std::string& s);
// Runs a shell command, returning its exit status and what it printed (stdout and stderr).
int run_capture(const std::string& command, std::string& output);

struct Verb {
    std::string name;   // the first word of the command line
    std::string usage;  // its synopsis and description lines, as the usage text prints them
    int (*run)(const std::string& name, const Args& args);
};

void add_engine_verbs(std::vector<Verb>& verbs);  // verbs_engine.cpp
void add_train_verbs(std::vector<Verb>& verbs);   // verbs_train.cpp: make-pico, pico-codecs, fit-decoder, train
#ifndef WS_ENGINE_ONLY
void add_media_verbs(std::vector<Verb>& verbs);     // verbs_media.cpp
void add_pico_verbs(std::vector<Verb>& verbs);      // verbs_pico.cpp
void add_hue_verbs(std::vector<Verb>& verbs);       // verbs_hue.cpp
void add_robotics_verbs(std::vector<Verb>& verbs);  // verbs_robotics.cpp: action-case, rollout
void add_dataset_verbs(std::vector<Verb>& verbs);   // verbs_dataset.cpp: dataset info/episode/frame/export/bench
#endif

// The model a verb runs on: --model DIR, else the shipped Pico model, else a tiny random model made once in the cache.
std::string default_model_dir();
// With `adapters`, the LoRA adapters merged into the loaded weights (a job's "adapters").
std::shared_ptr<const ws::Model> load_model(const Args& a, const std::vector<ws::AdapterChoice>& adapters = {});
// What a session reads and writes pictures and videos with: FFmpeg's (verbs_media.cpp), or none in the engine-only
// build (no_media.cpp).
ws::MediaFiles media_files();
// The edge maps training's transfer mode derives from a video: the media module's (verbs_media.cpp), or none in the
// engine-only build (no_media.cpp), which then refuses to train transfer.
std::function<ws::VideoFrames(const ws::VideoFrames&)> training_edge_map();
// A job run on a remote engine (generate --remote URL): the full build's (jobs/remote_engine.h); the engine-only
// build has no HTTP client and says so.
ws::GenerationResult run_remote(const Args& a, const ojson& job, const std::string& out, const ws::RunCallbacks& cb);
// Callbacks that stop a run on Ctrl+C.
ws::RunCallbacks cancel_callbacks();

}  // namespace cli
