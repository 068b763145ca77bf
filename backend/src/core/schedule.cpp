#include "worldstudio/core/schedule.h"

#include <cmath>

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

namespace {
// np.linspace(start, stop, n): start + i * ((stop - start) / (n - 1)), the last value exactly stop.
double linspace_at(double start, double stop, int n, int i) {
    if (n == 1) return start;
    return i == n - 1 ? stop : start + static_cast<double>(i) * ((stop - start) / (n - 1));
}
void check_steps(int num_steps) {
    if (num_steps < 1 || num_steps > 1000) throw Error("num_steps must be between 1 and 1000");
}
}  // namespace

SigmaSchedule make_karras_flow_schedule(int num_steps, double sigma_min, double sigma_max, int num_train_timesteps) {
    check_steps(num_steps);
    if (!(sigma_min > 0 && sigma_max > sigma_min)) throw Error("Karras sigmas need 0 < sigma_min < sigma_max");
    const double rho = 7.0, min_inv = std::pow(sigma_min, 1 / rho), max_inv = std::pow(sigma_max, 1 / rho);
    SigmaSchedule s;
    for (int i = 0; i < num_steps; ++i) {
        const double k = std::pow(max_inv + linspace_at(0, 1, num_steps, i) * (min_inv - max_inv), rho);
        const double flow = k / (k + 1);
        s.timesteps.push_back(static_cast<int64_t>(flow * num_train_timesteps));
        s.sigmas.push_back(static_cast<float>(flow));
    }
    s.sigmas.push_back(0.0f);
    return s;
}

SigmaSchedule make_shifted_flow_schedule(int num_steps, double flow_shift, bool native_grid, int num_train_timesteps) {
    check_steps(num_steps);
    if (!(flow_shift > 0)) throw Error("flow_shift must be positive");
    const double start = native_grid ? 1.0 - 1.0 / num_train_timesteps : 1.0,
                 stop = native_grid ? 0.0 : 1.0 / num_train_timesteps;
    SigmaSchedule s;
    for (int i = 0; i < num_steps; ++i) {
        double sig = linspace_at(start, stop, num_steps + 1, i);
        sig = flow_shift * sig / (1 + (flow_shift - 1) * sig);
        if (i == 0 && std::fabs(sig - 1) < 1e-6) sig -= 1e-6;
        s.timesteps.push_back(static_cast<int64_t>(sig * num_train_timesteps));
        s.sigmas.push_back(static_cast<float>(sig));
    }
    s.sigmas.push_back(0.0f);
    return s;
}

}  // namespace ws
