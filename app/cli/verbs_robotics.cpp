// The robotics verbs: the reference's action golden cases and action-conditioned rollouts.
#include <cstdio>

#include "cli.h"
#include "worldstudio/core/error.h"
#include "worldstudio/robotics/action_case.h"

namespace cli {

namespace {

int cmd_action_case(const std::string&, const Args& a) {
    if (a.positional.size() != 1) throw UsageError("action-case needs one CASE.json");
    const std::string path = a.positional[0];
    ws::ojson c;
    try {
        c = ws::ojson::parse(read_file(path));
    } catch (const ws::Error&) {
        throw;
    } catch (const std::exception&) {
        throw ws::Error(path + ": not valid JSON");
    }
    ws::ojson out;
    try {
        out = ws::robotics::run_action_case(c);
    } catch (const ws::Error& e) {
        throw ws::Error(path + ": " + e.what());
    }
    std::printf("%s\n", ws::ojson{{"output", out}}.dump().c_str());
    return 0;
}

}  // namespace

void add_robotics_verbs(std::vector<Verb>& v) {
    v.push_back({"action-case",
                 "  action-case CASE.json              compute a robotics golden case (action_prompt, canvas, poses, rotations,\n"
                 "                                    idle_frames, normalize, domain) and print {\"output\": ...}\n",
                 cmd_action_case});
}

}  // namespace cli
