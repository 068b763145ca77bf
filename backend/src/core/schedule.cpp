#include "worldstudio/core/schedule.h"

#include "worldstudio/core/error.h"

namespace ws {

SigmaSchedule make_sigma_schedule(int num_steps, double shift, int num_train_timesteps) {
    if (num_steps < 1 || num_steps > 1000) throw Error("num_steps must be between 1 and 1000");
    if (!(shift > 0)) throw Error("shift must be positive");
    // The training table's largest sigma is 1 - 1/1000 stored in float32, read back as a double.
    const double sigma_max = static_cast<double>(static_cast<float>(1.0 - 1.0 / num_train_timesteps));
    const double sigma_min = 0.0;
    SigmaSchedule s;
    // np.linspace(sigma_max, sigma_min, N + 1): start + i * step, with step = (stop - start) / N.
    const double step = (sigma_min - sigma_max) / num_steps;
    for (int i = 0; i < num_steps; ++i) {
        double sig = static_cast<double>(i) * step + sigma_max;
        sig = shift * sig / (1.0 + (shift - 1.0) * sig);
        s.timesteps.push_back(static_cast<int64_t>(sig * num_train_timesteps));
        s.sigmas.push_back(static_cast<float>(sig));
    }
    s.sigmas.push_back(0.0f);
    return s;
}

}  // namespace ws
