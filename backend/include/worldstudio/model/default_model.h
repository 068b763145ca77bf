#pragma once
// Where the model WorldStudio opens by default lives. It is Pico (worldstudio/pico/model.h), but finding its folder
// is the engine's business, so the engine-only build opens it too.
#include <string>

namespace ws::pico {

// The trained Pico model that ships with WorldStudio, the default model of the studio and the CLI: the folder named
// by $WORLDSTUDIO_PICO_DIR, else <executable's folder>/../share/worldstudio/pico (an installed build), else the
// source tree's resources/pico (running from a build folder). "" when none of them holds a model_index.json.
std::string shipped_model_dir();

}  // namespace ws::pico
