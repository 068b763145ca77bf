// The robotics files a user writes or hands over: the embodiment registry, trajectory and action files, rollout jobs
// and bundle manifests, robotics case files and camera paths. The first byte picks the parser; what follows is the
// file.
#include <filesystem>
#include <fstream>

#include "fuzz_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/embodiments.h"
#include "worldstudio/robotics/action_case.h"
#include "worldstudio/robotics/camera_path.h"
#include "worldstudio/robotics/rollout.h"
#include "worldstudio/robotics/trajectory.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    const int which = data[0] % 6;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        switch (which) {
            case 0: ws::EmbodimentRegistry::parse(text, "embodiments.json"); break;
            case 1: ws::robotics::read_action_file(wsfuzz::as_file(data + 1, size - 1, ".json")); break;
            case 2: {
                // The manifest of a bundle folder (its files need not exist: a missing one is a refusal too).
                const char* tmp = std::getenv("TMPDIR");
                const std::string dir =
                    std::string(tmp && *tmp ? tmp : "/tmp") + "/wsfuzz-bundle-" + std::to_string(getpid());
                std::filesystem::create_directories(dir);
                std::ofstream(dir + "/manifest.json", std::ios::binary) << text;
                ws::robotics::rollout_metrics(dir);
                break;
            }
            default: {
                ws::ojson j;
                try {
                    j = ws::ojson::parse(text);
                } catch (const std::exception&) {
                    return 0;  // the CLI refuses text that is not JSON before these parsers see it
                }
                if (which == 3)
                    ws::robotics::rollout_spec_from_json(j, "job.json");
                else if (which == 4)
                    ws::robotics::run_action_case(j);
                else
                    ws::robotics::CameraPath::from_json(j, "path.json").poses();
            }
        }
    } catch (const ws::Error&) {
    }
    return 0;
}
