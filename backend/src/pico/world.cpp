#include "worldstudio/pico/world.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "worldstudio/core/error.h"

namespace ws::pico {

namespace {

constexpr double kGravity = 9.81;
constexpr double kWall = 0.38;        // walls at x = +-0.38
constexpr double kImpactSpeed = 0.3;  // slower contacts are resting, not impacts
constexpr double kViewWidth = 0.8;    // metres across the view at zoom 1
constexpr double kViewBottom = -0.1;  // the view shows a strip of the table's front

struct MaterialInfo {
    const char* name;
    double restitution, friction, density;
    double pitch, decay;  // Hz of the first mode, 1/s
};

const MaterialInfo& info(Material m) {
    static const MaterialInfo table[] = {
        {"rubber", 0.78, 0.6, 1.1, 190, 28},
        {"wooden", 0.45, 0.5, 0.7, 620, 22},
        {"metal", 0.35, 0.25, 7.8, 1750, 5},
        {"plastic", 0.6, 0.4, 1.0, 1150, 38},
    };
    return table[static_cast<int>(m)];
}

double mass(const Body& b) { return info(b.material).density * b.size * b.size; }

}  // namespace

const char* shape_name(Shape s) { return s == Shape::Ball ? "ball" : "box"; }
const char* material_name(Material m) { return info(m).name; }

// Saturated colours only: white or black objects would be confused with the wall, the table's shadow and the
// gripper by any colour-based measurement.
const std::vector<Colour>& palette() {
    static const std::vector<Colour> colours = {
        {"red", 220, 40, 40},     {"green", 40, 170, 60},   {"blue", 40, 80, 220},   {"yellow", 235, 200, 30},
        {"purple", 140, 60, 190}, {"orange", 240, 130, 20}, {"pink", 235, 110, 170}, {"cyan", 40, 190, 200},
    };
    return colours;
}

std::string Body::noun() const {
    return std::string(palette()[static_cast<size_t>(colour)].name) + " " + material_name(material) + " " +
           shape_name(shape);
}

const std::vector<float>& action_scale() {
    // Per frame at 16 fps: the camera pans at ~0.08 m/s and zooms ~0.3 /s, the gripper moves at most ~0.8 m/s.
    static const std::vector<float> scale = {150, 150, 60, 1, 1, 1, 1, 1, 1,  // ego: translation, 6D rotation
                                             20,  20,  20, 1, 1, 1, 1, 1, 1,  // effector
                                             1};                              // gripper closed (0..1)
    return scale;
}

World::World(std::vector<Body> bodies, Options options, Gripper gripper, Camera camera)
    : bodies_(std::move(bodies)), options_(options), gripper_(gripper), camera_(camera) {
    if (options_.width < 8 || options_.height < 8 || options_.width > 1024 || options_.height > 1024)
        throw Error("Pico World renders between 8x8 and 1024x1024 pixels");
    if (options_.fps <= 0 || options_.substeps < 1) throw Error("Pico World needs fps > 0 and at least one substep");
}

double World::energy() const {
    double e = 0;
    for (const Body& b : bodies_)
        if (!b.held) e += mass(b) * (0.5 * (b.vx * b.vx + b.vy * b.vy) + kGravity * (b.y - b.size));
    return e;
}

void World::step(const Command& cmd) {
    const double dt = 1.0 / options_.fps / options_.substeps;
    for (int i = 0; i < options_.substeps; ++i) substep(dt, cmd);
    camera_.x = std::clamp(camera_.x + cmd.camera_vx / options_.fps, -0.15, 0.15);
    camera_.zoom = std::clamp(camera_.zoom * (1 + cmd.camera_zoom_rate / options_.fps), 1.0, 2.0);
}

void World::substep(double dt, const Command& cmd) {
    Gripper& g = gripper_;
    g.x = std::clamp(g.x + cmd.gripper_vx * dt, -0.36, 0.36);
    g.y = std::clamp(g.y + cmd.gripper_vy * dt, 0.03, 1.0);
    g.opening = std::clamp(g.opening + (cmd.close ? -4.0 : 4.0) * dt, 0.0, 1.0);
    if (g.visible && cmd.close && g.holding < 0 && g.opening < 0.5) {
        for (size_t i = 0; i < bodies_.size(); ++i)
            if (std::hypot(bodies_[i].x - g.x, bodies_[i].y - g.y) < bodies_[i].size + 0.03) {
                g.holding = static_cast<int>(i);
                bodies_[i].held = true;
                break;
            }
    }
    if (!cmd.close && g.holding >= 0 && g.opening > 0.5) {
        Body& b = bodies_[static_cast<size_t>(g.holding)];
        b.held = false;
        b.vx = cmd.gripper_vx, b.vy = cmd.gripper_vy;
        g.holding = -1;
    }
    // Contacts are found at the end of this substep; `late` (seconds) places an impact back at the moment the
    // surfaces met, from the overlap and the closing speed, so sounds start on time.
    auto impact = [&](int body, int other, double x, double y, double speed, double late = 0) {
        if (speed < kImpactSpeed) return;
        const double t = time_ + dt - std::clamp(late, 0.0, dt);
        const double left = camera_.x - kViewWidth / 2 / camera_.zoom;
        impacts_.push_back(
            {t, x, y, speed, body, other, std::clamp((x - left) / (kViewWidth / camera_.zoom), 0.0, 1.0)});
    };
    for (Body& b : bodies_) {
        if (b.held) {
            b.x = g.x, b.y = g.y, b.vx = cmd.gripper_vx, b.vy = cmd.gripper_vy;
            continue;
        }
        b.vy -= kGravity * dt;  // semi-implicit Euler: velocity first
        b.x += b.vx * dt;
        b.y += b.vy * dt;
    }
    // Contacts: two passes settle stacks; every contact removes overlap and reflects the closing speed.
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < bodies_.size(); ++i) {
            Body& b = bodies_[i];
            if (b.held) continue;
            const MaterialInfo& m = info(b.material);
            if (b.y - b.size < 0) {
                const double overlap = b.size - b.y;
                b.y = b.size;
                if (b.vy < 0) {
                    impact(static_cast<int>(i), -1, b.x, 0, -b.vy, overlap / -b.vy);
                    b.vy = -b.vy > kImpactSpeed ? -m.restitution * b.vy : 0;
                    // Friction with the table: boxes slide to a stop, balls roll on with a little loss.
                    const double decel = (b.shape == Shape::Box ? m.friction * kGravity : 0.15) * dt;
                    b.vx = std::fabs(b.vx) <= decel ? 0 : b.vx - std::copysign(decel, b.vx);
                }
            }
            for (int side : {-1, 1})
                if (side * (b.x + side * b.size) > kWall && side * b.vx > 0) {
                    impact(static_cast<int>(i), -1, side * kWall, b.y, std::fabs(b.vx),
                           (side * (b.x + side * b.size) - kWall) / std::fabs(b.vx));
                    b.x = side * (kWall - b.size);
                    b.vx = -m.restitution * b.vx;
                }
        }
        for (size_t i = 0; i < bodies_.size(); ++i)
            for (size_t j = i + 1; j < bodies_.size(); ++j) {
                Body& a = bodies_[i];
                Body& c = bodies_[j];
                if (a.held && c.held) continue;
                // Normal from a to c and penetration depth.
                double nx = 0, ny = 0, depth = 0;
                if (a.shape == Shape::Ball && c.shape == Shape::Ball) {
                    const double dx = c.x - a.x, dy = c.y - a.y, d = std::hypot(dx, dy);
                    depth = a.size + c.size - d;
                    if (depth <= 0) continue;
                    nx = d > 1e-9 ? dx / d : 0, ny = d > 1e-9 ? dy / d : 1;
                } else if (a.shape == Shape::Box && c.shape == Shape::Box) {
                    const double ox = a.size + c.size - std::fabs(c.x - a.x),
                                 oy = a.size + c.size - std::fabs(c.y - a.y);
                    if (ox <= 0 || oy <= 0) continue;
                    if (ox < oy)
                        depth = ox, nx = c.x >= a.x ? 1 : -1;
                    else
                        depth = oy, ny = c.y >= a.y ? 1 : -1;
                } else {
                    const bool aBall = a.shape == Shape::Ball;
                    const Body& ball = aBall ? a : c;
                    const Body& box = aBall ? c : a;
                    const double px = std::clamp(ball.x, box.x - box.size, box.x + box.size);
                    const double py = std::clamp(ball.y, box.y - box.size, box.y + box.size);
                    double dx = ball.x - px, dy = ball.y - py, d = std::hypot(dx, dy);
                    if (d > 1e-9) {
                        depth = ball.size - d;
                        if (depth <= 0) continue;
                        dx /= d, dy /= d;
                    } else {  // the ball's centre is inside the box: leave by the nearest face
                        const double ox = box.size - std::fabs(ball.x - box.x),
                                     oy = box.size - std::fabs(ball.y - box.y);
                        if (ox < oy)
                            dx = ball.x >= box.x ? 1 : -1, dy = 0, depth = ox + ball.size;
                        else
                            dx = 0, dy = ball.y >= box.y ? 1 : -1, depth = oy + ball.size;
                    }
                    // (dx, dy) points from the box to the ball; flip it when a is the ball.
                    nx = aBall ? -dx : dx, ny = aBall ? -dy : dy;
                }
                const double ma = a.held ? 1e9 : mass(a), mc = c.held ? 1e9 : mass(c);
                const double wa = mc / (ma + mc), wc = ma / (ma + mc);
                a.x -= nx * depth * wa, a.y -= ny * depth * wa;
                c.x += nx * depth * wc, c.y += ny * depth * wc;
                const double vn = (c.vx - a.vx) * nx + (c.vy - a.vy) * ny;
                if (vn >= 0) continue;
                impact(static_cast<int>(i), static_cast<int>(j), (a.x + c.x) / 2, (a.y + c.y) / 2, -vn, depth / -vn);
                const double e =
                    -vn > kImpactSpeed ? std::min(info(a.material).restitution, info(c.material).restitution) : 0;
                const double jn = -(1 + e) * vn / (1 / ma + 1 / mc);
                if (!a.held) a.vx -= jn / ma * nx, a.vy -= jn / ma * ny;
                if (!c.held) c.vx += jn / mc * nx, c.vy += jn / mc * ny;
            }
    }
    time_ += dt;
}

PixelPoint pixel_of(const Camera& camera, const Options& o, double x, double y) {
    const double viewW = kViewWidth / camera.zoom, scale = o.width / viewW;
    const double left = camera.x - viewW / 2, top = kViewBottom / camera.zoom + o.height / scale;
    return {(x - left) * scale, (top - y) * scale};
}

VideoFrames World::render() const {
    const int W = options_.width, H = options_.height;
    VideoFrames f;
    f.width = W, f.height = H, f.count = 1, f.fps = options_.fps;
    f.rgb.resize(static_cast<size_t>(W) * H * 3);
    const double viewW = kViewWidth / camera_.zoom, scale = W / viewW;  // pixels per metre
    const double left = camera_.x - viewW / 2, bottom = kViewBottom / camera_.zoom;
    const double top = bottom + H / scale;
    auto cover = [&](double sdf) { return std::clamp(0.5 - sdf * scale, 0.0, 1.0); };  // antialiased edge
    for (int py = 0; py < H; ++py)
        for (int px = 0; px < W; ++px) {
            const double x = left + (px + 0.5) / scale, y = top - (py + 0.5) / scale;
            // Wall above, table below; a darker band marks the table's edge.
            double r, g, b;
            if (y > 0) {
                const double k = std::clamp(y / 2, 0.0, 1.0);
                r = 200 - 30 * k, g = 205 - 25 * k, b = 215 - 10 * k;
            } else {
                r = 150, g = 105, b = 65;
            }
            const double edge = cover(std::fabs(y) - 0.006);
            r += (95 - r) * edge, g += (65 - g) * edge, b += (40 - b) * edge;
            auto blend = [&](double a, double cr, double cg, double cb) {
                r += (cr - r) * a, g += (cg - g) * a, b += (cb - b) * a;
            };
            for (const Body& body : bodies_) {
                const Colour& c = palette()[static_cast<size_t>(body.colour)];
                if (body.shape == Shape::Ball) {
                    const double d = std::hypot(x - body.x, y - body.y) - body.size;
                    // Light from the upper left.
                    const double shade =
                        0.75 + 0.35 * std::clamp(((x - body.x) * -0.6 + (y - body.y) * 0.8) / body.size, -1.0, 1.0);
                    blend(cover(d), std::min(255.0, c.r * shade), std::min(255.0, c.g * shade),
                          std::min(255.0, c.b * shade));
                } else {
                    const double qx = std::fabs(x - body.x) - body.size, qy = std::fabs(y - body.y) - body.size;
                    const double d = std::hypot(std::max(qx, 0.0), std::max(qy, 0.0)) + std::min(std::max(qx, qy), 0.0);
                    blend(cover(d), c.r, c.g, c.b);
                    blend(cover(std::fabs(d + 0.006) - 0.006) * cover(d), c.r * 0.6, c.g * 0.6, c.b * 0.6);  // outline
                }
            }
            // The gripper: an arm from above and two fingers whose gap follows the opening.
            const Gripper& gr = gripper_;
            if (gr.visible) {
                const double gap = 0.03 + 0.05 * gr.opening;
                blend(cover(std::max(std::fabs(x - gr.x) - 0.007, gr.y + 0.045 - y)), 90, 90, 100);
                const double bar = std::max(std::fabs(x - gr.x) - gap - 0.009, std::fabs(y - gr.y - 0.045) - 0.009);
                blend(cover(bar), 70, 70, 80);
                for (int side : {-1, 1}) {
                    const double finger =
                        std::max(std::fabs(x - (gr.x + side * gap)) - 0.008, std::fabs(y - gr.y) - 0.045);
                    blend(cover(finger), 60, 60, 70);
                }
            }
            uint8_t* p = f.rgb.data() + (static_cast<size_t>(py) * W + px) * 3;
            p[0] = static_cast<uint8_t>(std::lround(std::clamp(r, 0.0, 255.0)));
            p[1] = static_cast<uint8_t>(std::lround(std::clamp(g, 0.0, 255.0)));
            p[2] = static_cast<uint8_t>(std::lround(std::clamp(b, 0.0, 255.0)));
        }
    return f;
}

AudioClip synthesize_impacts(const std::vector<Impact>& impacts, const std::vector<Body>& bodies, double seconds,
                             int rate) {
    AudioClip clip;
    clip.sample_rate = rate;
    clip.channels = 2;
    const int64_t n = static_cast<int64_t>(std::llround(seconds * rate));
    clip.samples.assign(static_cast<size_t>(n) * 2, 0.0f);
    for (size_t k = 0; k < impacts.size(); ++k) {
        const Impact& im = impacts[k];
        const Body& body = bodies.at(static_cast<size_t>(im.body));
        const MaterialInfo& m = info(body.material);
        // Smaller bodies ring higher; the hit's speed sets the loudness; the place in the view sets the pan.
        const double pitch = m.pitch * std::sqrt(0.07 / body.size);
        const double amp = std::clamp(im.speed / 4.0, 0.05, 1.0) * 0.45;
        const double left = std::cos(im.pan * M_PI / 2), right = std::sin(im.pan * M_PI / 2);
        uint64_t noise = k * 0x9E3779B97F4A7C15ull + 1;  // a fixed click per impact (xorshift)
        const int64_t start = static_cast<int64_t>(std::llround(im.time * rate));
        const int64_t length = std::min<int64_t>(n - start, static_cast<int64_t>(5.0 / m.decay * rate));
        for (int64_t i = 0; i < length; ++i) {
            const double t = static_cast<double>(i) / rate;
            double s =
                std::exp(-m.decay * t) * (std::sin(2 * M_PI * pitch * t) + 0.5 * std::sin(2 * M_PI * pitch * 2.76 * t));
            if (t < 0.004) {  // the contact's click
                noise ^= noise << 13, noise ^= noise >> 7, noise ^= noise << 17;
                s += (static_cast<double>(noise >> 11) * 0x1.0p-52 - 1) * (1 - t / 0.004);
            }
            const float v = static_cast<float>(amp * s);
            clip.samples[static_cast<size_t>(2 * (start + i))] += static_cast<float>(left) * v;
            clip.samples[static_cast<size_t>(2 * (start + i) + 1)] += static_cast<float>(right) * v;
        }
    }
    for (float& s : clip.samples) s = std::clamp(s, -1.0f, 1.0f);
    return clip;
}

}  // namespace ws::pico
