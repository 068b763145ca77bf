// The robotics verbs: the reference's action golden cases and action-conditioned rollouts.
#include <cstdio>

#include "cli.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/robotics/action_case.h"
#include "worldstudio/robotics/rollout.h"

namespace cli {

namespace {

ws::ojson read_json(const std::string& path) {
    const std::string text = read_file(path);
    try {
        return ws::ojson::parse(text);
    } catch (const std::exception&) {
        throw ws::Error(path + ": not valid JSON");
    }
}

int cmd_action_case(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("action-case needs one CASE.json");
    const std::string path = a.positional[0];
    const ws::ojson c = read_json(path);
    ws::ojson out;
    try {
        out = ws::robotics::run_action_case(c);
    } catch (const ws::Error& e) {
        throw ws::Error(path + ": " + e.what());
    }
    std::printf("%s\n", ws::ojson{{"output", out}}.dump().c_str());
    return 0;
}

int cmd_embodiments(const std::string&, const Args& a) {
    if (!a.positional.empty()) throw UsageError("embodiments takes no arguments");
    const ws::EmbodimentRegistry& r = ws::EmbodimentRegistry::shipped();
    if (a.has("--json")) {
        ws::ojson list = ws::ojson::array();
        for (const ws::Embodiment& e : r.all()) {
            ws::ojson layout = ws::ojson::array();
            for (const auto& g : e.layout) layout.push_back({{"name", g.name}, {"kind", g.kind}, {"width", g.width}});
            list.push_back({{"name", e.name},
                            {"domain_id", e.domain_id},
                            {"raw_action_dim", e.raw_action_dim ? ws::ojson(*e.raw_action_dim) : ws::ojson()},
                            {"reference", e.reference},
                            {"layout", layout},
                            {"note", e.note}});
        }
        std::printf("%s\n",
                    ws::ojson{{"num_embodiment_domains", r.num_domains()}, {"embodiments", list}}.dump(1).c_str());
        return 0;
    }
    std::printf("%-26s %4s %6s  %s\n", "name", "id", "width", "channels");
    for (const ws::Embodiment& e : r.all()) {
        std::string layout;
        for (const auto& g : e.layout)
            layout += (layout.empty() ? "" : ", ") + g.name + " (" + g.kind + " " + std::to_string(g.width) + ")";
        std::printf("%-26s %4lld %6s  %s\n", e.name.c_str(), static_cast<long long>(e.domain_id),
                    e.raw_action_dim ? std::to_string(*e.raw_action_dim).c_str() : "file",
                    layout.empty() ? "-" : layout.c_str());
    }
    return 0;
}

void print_metrics_table(const ws::ojson& m) {
    std::printf("%s episode %s\n", m["source"]["dataset"].get<std::string>().c_str(),
                m["source"]["episode"].dump().c_str());
    std::printf("%-6s %-7s %-17s %6s %10s %14s %14s %11s %12s %12s\n", "node", "parent", "mode", "frames", "psnr (dB)",
                "tracked (px)", "gripper (px)", "action mse", "inverse mse", "consistency");
    auto num = [](const ws::ojson& n, const char* k, const char* fmt) {
        char buf[32] = "-";
        if (n.contains(k) && n[k].is_number()) std::snprintf(buf, sizeof buf, fmt, n[k].get<double>());
        return std::string(buf);
    };
    for (const ws::ojson& n : m["nodes"])
        std::printf("%-6s %-7s %-17s %6lld %10s %14s %14s %11s %12s %12s\n", n["id"].get<std::string>().c_str(),
                    n["parent"].is_string() ? n["parent"].get<std::string>().c_str() : "-",
                    n["mode"].get<std::string>().c_str(), static_cast<long long>(n["frames"].get<int64_t>()),
                    num(n, "psnr", "%.2f").c_str(), num(n, "tracked_error", "%.2f").c_str(),
                    num(n, "gripper_error", "%.2f").c_str(), num(n, "action_mse", "%.4f").c_str(),
                    num(n, "inverse_action_mse", "%.4f").c_str(), num(n, "consistency_psnr", "%.2f").c_str());
}

int cmd_rollout(const std::string&, const Args& a) {
    if (!a.positional.empty() && a.positional[0] == "metrics") {
        if (a.positional.size() != 2) throw UsageError("rollout metrics needs BUNDLE_DIR");
        const ws::ojson m = ws::robotics::rollout_metrics(a.positional[1]);
        if (a.has("--json"))
            std::printf("%s\n", m.dump(1).c_str());
        else
            print_metrics_table(m);
        return 0;
    }
    ws::robotics::RolloutSpec spec;
    std::string bundle = a.get("-o");
    if (a.positional.size() == 1) {
        spec = ws::robotics::rollout_spec_from_json(read_json(a.positional[0]), a.positional[0]);
    } else if (a.positional.size() > 1) {
        throw UsageError("rollout takes one JOB.json (or flags)");
    }
    if (a.has("--mode")) spec.mode = a.get("--mode");
    if (a.has("--chunks")) spec.chunks = to_int(a.get("--chunks"), "--chunks");
    if (a.has("--chunk-size")) spec.chunk_size = to_int(a.get("--chunk-size"), "--chunk-size");
    if (a.has("--dataset")) spec.dataset = a.get("--dataset");
    if (a.has("--episode")) spec.episode = to_int(a.get("--episode"), "--episode");
    if (a.has("--from-frame")) spec.from_frame = to_int(a.get("--from-frame"), "--from-frame");
    if (a.has("--camera")) spec.camera = a.get("--camera");
    if (a.has("--prompt")) spec.prompt = a.get("--prompt");
    if (a.has("--domain-name")) spec.domain_name = a.get("--domain-name");
    if (a.has("--actions")) spec.actions_path = a.get("--actions");
    if (a.has("--seed")) spec.seed = static_cast<uint32_t>(to_int(a.get("--seed"), "--seed"));
    if (a.has("--steps")) spec.request["num_steps"] = to_int(a.get("--steps"), "--steps");
    if (a.has("--closed-loop")) spec.closed_loop = true;
    if (a.has("--no-inverse-check")) spec.inverse_check = false;
    if (a.has("--branch-of")) {
        // BUNDLE_DIR:NODE, into that bundle.
        const std::string b = a.get("--branch-of");
        const size_t colon = b.rfind(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == b.size())
            throw UsageError("--branch-of needs BUNDLE_DIR:NODE");
        if (!bundle.empty() && bundle != b.substr(0, colon))
            throw UsageError("a branch goes into the bundle it branches from (-o may be left out)");
        bundle = b.substr(0, colon);
        spec.branch_of = b.substr(colon + 1);
        spec.branch_frame = spec.from_frame;
        if (!a.has("--from-frame"))
            throw UsageError("--branch-of needs --from-frame F (the frame of that node's rollout)");
    }
    if (bundle.empty()) throw UsageError("rollout needs -o BUNDLE_DIR");
    auto model = load_model(a);
    ws::robotics::RolloutProgress progress;
    progress.on_chunk = [](int k, int n, const std::string& what) {
        std::fprintf(stderr, "chunk %d/%d (%s)\n", k + 1, n, what.c_str());
    };
    const ws::ojson node = ws::robotics::run_rollout(model, spec, bundle, cancel_callbacks(), progress);
    std::printf("%s: node %s, %lld frames, %s\n", bundle.c_str(), node["id"].get<std::string>().c_str(),
                static_cast<long long>(node["frames"].get<int64_t>()), node["video"].get<std::string>().c_str());
    return 0;
}

}  // namespace

void add_robotics_verbs(std::vector<Verb>& v) {
    v.push_back(
        {"action-case",
         "  action-case CASE.json              compute a robotics golden case (action_prompt, canvas, poses, rotations,\n"
         "                                    idle_frames, normalize, domain) and print {\"output\": ...}\n",
         cmd_action_case});
    v.push_back(
        {"embodiments",
         "  embodiments [--json]               the embodiment registry: names, domain ids, action widths, channel layouts\n",
         cmd_embodiments});
    v.push_back(
        {"rollout",
         "  rollout (JOB.json | flags) -o BUNDLE_DIR  an action-conditioned rollout of several chunks into a bundle: --mode\n"
         "                                    forward_dynamics|policy|inverse_dynamics, --chunks N, --chunk-size A, --dataset DIR|pico,\n"
         "                                    --episode N (pico: the seed), --from-frame F, --camera KEY, --actions FILE (default: the\n"
         "                                    episode's recorded ones), --prompt, --domain-name, --seed, --steps, --closed-loop (Pico,\n"
         "                                    policy), --no-inverse-check, --branch-of BUNDLE_DIR:NODE --from-frame F, --model DIR\n"
         "  rollout metrics BUNDLE_DIR [--json]  per node and per frame: psnr, tracked_error, gripper_error, action_mse,\n"
         "                                    inverse_action_mse, consistency_psnr, outcome\n",
         cmd_rollout});
}

}  // namespace cli
