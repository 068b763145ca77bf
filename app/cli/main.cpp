// worldstudio-cli: parses the command line and dispatches to the verb families (verbs_*.cpp). Exit 0 on success,
// 2 on a bad command line (with the verb's usage), 1 on any other error with one line on stderr.
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/engine.h"

using namespace cli;

namespace {

std::vector<Verb> all_verbs() {
    std::vector<Verb> v;
    add_engine_verbs(v);
    add_train_verbs(v);
#ifndef WS_ENGINE_ONLY
    add_media_verbs(v);
    add_pico_verbs(v);
    add_hue_verbs(v);
    add_robotics_verbs(v);
    add_dataset_verbs(v);
#endif
    return v;
}

std::string usage(const std::vector<Verb>& verbs) {
    std::string u =
        "usage: worldstudio-cli <command> [options]   (worldstudio-cli <command> --help for one)\n\ncommands:\n"
        "  --version                         print the version\n";
    for (const Verb& v : verbs) u += v.usage;
    u +=
        "\nWithout --model, commands use the default model: Pico, the trained miniature model that ships in resources/pico\n"
        "($WORLDSTUDIO_PICO_DIR names another folder), or a tiny random model (cached) where Pico is absent.\n";
#ifdef WS_ENGINE_ONLY
    u +=
        "This is the engine-only build: it reads and writes latents, not pictures or videos, and trains Pico on every\n"
        "mode but transfer.\n";
#endif
    return u;
}

}  // namespace

int main(int argc, char** argv) {
    std::signal(SIGINT, [](int) { g_interrupted = true; });
    const std::vector<Verb> verbs = all_verbs();
    if (argc < 2) {
        std::fputs(usage(verbs).c_str(), stderr);
        return 2;
    }
    const std::string cmd = argv[1];
    if (cmd == "--version" || cmd == "version") {
        std::printf("worldstudio-cli %s\n", WS_VERSION);
        const ws::ojson v = ws::library_versions();
        std::printf("LibTorch %s; CUDA: %s\n", v.value("libtorch", "?").c_str(), v.value("cuda", "?").c_str());
        return 0;
    }
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        std::fputs(usage(verbs).c_str(), stdout);
        return 0;
    }
    const Verb* verb = nullptr;
    for (const Verb& v : verbs)
        if (v.name == cmd) verb = &v;
    try {
        if (!verb) throw UsageError("unknown command '" + cmd + "'");
        const Args a = parse(argc, argv, 2);
        if (a.help) {
            std::fputs(("usage:\n" + verb->usage).c_str(), stdout);
            return 0;
        }
        return verb->run(cmd, a);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "worldstudio-cli: %s\n%s", e.what(),
                     verb && !verb->usage.empty() ? ("usage:\n" + verb->usage).c_str() : usage(verbs).c_str());
        return 2;
    } catch (const ws::Cancelled&) {
        std::fprintf(stderr, "worldstudio-cli: cancelled\n");
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "worldstudio-cli: %s\n", ws::one_line(ws::user_message(e)).c_str());
        return 1;
    }
}
