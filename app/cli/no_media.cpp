// The engine-only build has no media module: sessions read conditioning latents and write latents only.
#include "cli.h"

namespace cli {

ws::MediaFiles media_files() { return {}; }

}  // namespace cli
