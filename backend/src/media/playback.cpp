#include "worldstudio/media/playback.h"

#include <portaudio.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <vector>

namespace ws {

namespace {

double steady_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double wrap(double t, double duration, bool loop) {
    if (duration <= 0) return 0;
    if (loop) return std::fmod(std::max(t, 0.0), duration);
    return std::clamp(t, 0.0, duration);
}

// Stands in when there is no device: the steady clock scaled by the speed.
class SilentClock : public PlaybackClock {
public:
    SilentClock(double duration, std::string why) : duration_(duration), why_(std::move(why)) {}
    void play() override {
        std::lock_guard<std::mutex> l(mu_);
        if (playing_) return;
        if (!loop_ && base_ >= duration_) base_ = 0;
        t0_ = steady_seconds();
        playing_ = true;
    }
    void pause() override {
        std::lock_guard<std::mutex> l(mu_);
        base_ = position_locked();
        playing_ = false;
    }
    bool playing() const override {
        std::lock_guard<std::mutex> l(mu_);
        return playing_ && (loop_ || position_locked() < duration_);
    }
    void seek(double s) override {
        std::lock_guard<std::mutex> l(mu_);
        base_ = wrap(s, duration_, false);
        t0_ = steady_seconds();
    }
    void set_speed(double speed) override {
        std::lock_guard<std::mutex> l(mu_);
        base_ = position_locked();
        t0_ = steady_seconds();
        speed_ = std::clamp(speed, 0.25, 4.0);
    }
    void set_loop(bool loop) override {
        std::lock_guard<std::mutex> l(mu_);
        loop_ = loop;
    }
    void set_volume(double gain) override { volume_ = std::clamp(gain, 0.0, 1.0); }
    double volume() const override { return volume_; }
    double duration() const override { return duration_; }
    double position() const override {
        std::lock_guard<std::mutex> l(mu_);
        return position_locked();
    }
    double now() const override { return steady_seconds(); }
    double dac_time_of(double seconds) const override {
        std::lock_guard<std::mutex> l(mu_);
        return playing_ ? t0_ + (seconds - base_) / speed_ : -1;
    }
    bool is_device() const override { return false; }
    std::string description() const override { return "silent clock (" + why_ + ")"; }

private:
    double position_locked() const {
        return playing_ ? wrap(base_ + (steady_seconds() - t0_) * speed_, duration_, loop_) : base_;
    }
    mutable std::mutex mu_;
    double duration_, base_ = 0, t0_ = 0, speed_ = 1;
    std::atomic<double> volume_{1.0};  // nothing is heard; kept so the player reads back what it set
    bool playing_ = false, loop_ = false;
    std::string why_;
};

std::mutex g_pa_mu;
int g_pa_users = 0;

bool pa_acquire(std::string* why) {
    std::lock_guard<std::mutex> l(g_pa_mu);
    if (g_pa_users == 0) {
        const PaError e = Pa_Initialize();
        if (e != paNoError) {
            if (why) *why = Pa_GetErrorText(e);
            return false;
        }
    }
    ++g_pa_users;
    return true;
}

void pa_release() {
    std::lock_guard<std::mutex> l(g_pa_mu);
    if (--g_pa_users == 0) Pa_Terminate();
}

// The audio device is the master clock: each buffer the callback writes is stamped with the DAC time the device
// reports for it, and position() extrapolates from the newest stamp with the stream's own clock.
class DeviceClock : public PlaybackClock {
public:
    static constexpr int kRate = 48000;
    static constexpr size_t kStamps = 2048;  // about 20 s of 512-frame buffers
    DeviceClock(const AudioClip* audio, double duration) : duration_(duration) {
        stamps_.reserve(kStamps + 2);  // the audio thread never allocates
        if (audio && audio->frames() > 0) {
            const int ch = std::max(audio->channels, 1);
            samples_.resize(static_cast<size_t>(audio->frames()) * 2);
            for (int64_t i = 0; i < audio->frames(); ++i) {
                samples_[2 * i] = audio->samples[i * ch];
                samples_[2 * i + 1] = audio->samples[i * ch + std::min(1, ch - 1)];
            }
            rate_ = audio->sample_rate > 0 ? audio->sample_rate : kRate;
        }
    }
    ~DeviceClock() override {
        if (stream_) {
            Pa_StopStream(stream_);
            Pa_CloseStream(stream_);
            pa_release();
        }
    }
    bool start(std::string* why) {
        if (!pa_acquire(why)) return false;
        const PaDeviceIndex dev = Pa_GetDefaultOutputDevice();
        if (dev == paNoDevice) {
            if (why) *why = "no audio output device";
            pa_release();
            return false;
        }
        const PaDeviceInfo* info = Pa_GetDeviceInfo(dev);
        PaStreamParameters p{dev, 2, paFloat32, 0.05, nullptr};
        // A fixed, small buffer keeps the stamps frequent; an unspecified size makes some hosts start seconds late.
        PaError e = Pa_OpenStream(&stream_, nullptr, &p, rate_, 512, paNoFlag, &DeviceClock::callback, this);
        if (e == paNoError) e = Pa_StartStream(stream_);
        if (e != paNoError) {
            if (why) *why = std::string("audio device: ") + Pa_GetErrorText(e);
            if (stream_) Pa_CloseStream(stream_);
            stream_ = nullptr;
            pa_release();
            return false;
        }
        name_ = info ? info->name : "default";
        latency_ = Pa_GetStreamInfo(stream_) ? Pa_GetStreamInfo(stream_)->outputLatency : 0.05;
        return true;
    }

    void play() override {
        std::lock_guard<std::mutex> l(mu_);
        if (playing_) return;
        if (!loop_ && paused_at_ >= duration_) paused_at_ = 0;
        start_at_ = paused_at_;
        read_frame_ = paused_at_ * rate_;
        stamps_.clear();
        playing_ = true;
    }
    void pause() override {
        std::lock_guard<std::mutex> l(mu_);
        paused_at_ = position_locked();
        playing_ = false;
    }
    bool playing() const override {
        std::lock_guard<std::mutex> l(mu_);
        return playing_ && (loop_ || position_locked() < duration_);
    }
    void seek(double s) override {
        std::lock_guard<std::mutex> l(mu_);
        paused_at_ = start_at_ = wrap(s, duration_, false);
        read_frame_ = start_at_ * rate_;
        stamps_.clear();
    }
    void set_speed(double speed) override {
        std::lock_guard<std::mutex> l(mu_);
        speed_ = std::clamp(speed, 0.25, 4.0);
    }
    void set_loop(bool loop) override {
        std::lock_guard<std::mutex> l(mu_);
        loop_ = loop;
    }
    void set_volume(double gain) override { gain_ = static_cast<float>(std::clamp(gain, 0.0, 1.0)); }
    double volume() const override { return gain_; }
    double duration() const override { return duration_; }
    double position() const override {
        std::lock_guard<std::mutex> l(mu_);
        return position_locked();
    }
    double now() const override { return Pa_GetStreamTime(stream_); }
    double dac_time_of(double seconds) const override {
        std::lock_guard<std::mutex> l(mu_);
        for (const Stamp& s : stamps_)
            if (seconds >= s.media && seconds < s.media + s.frames * s.speed / rate_)
                return s.dac + (seconds - s.media) / s.speed;
        return -1;
    }
    bool is_device() const override { return true; }
    std::string description() const override {
        return "audio device clock (" + name_ + ", " + std::to_string(static_cast<int>(latency_ * 1000)) +
               " ms latency)";
    }

private:
    struct Stamp {
        double media;  // media seconds of the buffer's first frame
        double dac;    // when that frame reaches the DAC, on the stream clock
        unsigned long frames;
        double speed;
    };

    double position_locked() const {
        if (!playing_) return paused_at_;
        if (stamps_.empty()) return start_at_;  // nothing heard yet: the picture waits for the sound
        const Stamp& s = stamps_.back();        // the newest buffer's stamp
        const double t = s.media + (Pa_GetStreamTime(stream_) - s.dac) * s.speed;
        // Before the first stamped frame is heard the extrapolation runs backwards; hold the start instead.
        if (t < start_at_ && stamps_.front().media <= start_at_ + 1e-9) return start_at_;
        return wrap(t, duration_, loop_);
    }

    static int callback(const void*, void* output, unsigned long frames, const PaStreamCallbackTimeInfo* time,
                        PaStreamCallbackFlags, void* self) {
        static_cast<DeviceClock*>(self)->fill(static_cast<float*>(output), frames, time);
        return paContinue;
    }

    void fill(float* out, unsigned long frames, const PaStreamCallbackTimeInfo* time) {
        const double now = Pa_GetStreamTime(stream_);
        // Hosts prefill the device's buffer with a burst of callbacks before it runs, stamped as if it played at
        // once (it starts up to seconds later). Sound starts only once the callbacks are paced by the device, so
        // no stamp is a guess.
        if (!running_.load(std::memory_order_relaxed)) {
            if (last_callback_ > 0 && now - last_callback_ > 0.25 * frames / rate_) running_ = true;
            last_callback_ = now;
        }
        std::unique_lock<std::mutex> l(mu_, std::try_to_lock);
        if (!l.owns_lock() || !playing_ ||
            !running_) {  // never wait in the audio thread; a contended buffer is silence
            std::fill(out, out + frames * 2, 0.0f);
            return;
        }
        // A DAC time far from now is a host's placeholder; the stream's latency estimate stands in for it.
        double dac = time->outputBufferDacTime;
        if (!(std::fabs(dac - now) < 5.0)) dac = now + latency_;
        const double end_frame = duration_ * rate_;
        stamps_.push_back({read_frame_ / rate_, dac, frames, speed_});
        if (stamps_.size() > kStamps) stamps_.erase(stamps_.begin(), stamps_.begin() + kStamps / 2);
        const int64_t n = static_cast<int64_t>(samples_.size() / 2);
        const float gain = gain_;
        for (unsigned long i = 0; i < frames; ++i) {
            if (read_frame_ >= end_frame) {
                if (!loop_) {
                    std::fill(out + 2 * i, out + frames * 2, 0.0f);
                    read_frame_ = end_frame;
                    return;
                }
                read_frame_ -= end_frame;
                stamps_.push_back({0.0, dac + static_cast<double>(i) / rate_, frames - i, speed_});
            }
            // Linear interpolation: speed != 1 resamples (pitch follows the speed).
            const int64_t k = static_cast<int64_t>(read_frame_);
            const float a = static_cast<float>(read_frame_ - k);
            for (int c = 0; c < 2; ++c) {
                const float s0 = k < n ? samples_[2 * k + c] : 0.0f;
                const float s1 = k + 1 < n ? samples_[2 * (k + 1) + c] : 0.0f;
                out[2 * i + c] = (s0 + (s1 - s0) * a) * gain;
            }
            read_frame_ += speed_;
        }
    }

    PaStream* stream_ = nullptr;
    std::vector<float> samples_;
    int rate_ = kRate;
    double duration_;
    mutable std::mutex mu_;
    double read_frame_ = 0, start_at_ = 0, paused_at_ = 0, speed_ = 1, latency_ = 0;
    double last_callback_ = 0;          // audio thread only
    std::atomic<bool> running_{false};  // the device consumes buffers at its own pace
    std::atomic<float> gain_{1.0f};     // set from the UI thread, read by the audio thread without the lock
    bool playing_ = false, loop_ = false;
    std::vector<Stamp> stamps_;
    std::string name_;
};

}  // namespace

std::unique_ptr<PlaybackClock> PlaybackClock::open(const AudioClip* audio, double duration, bool use_device,
                                                   std::string* why) {
    std::string reason = "no audio device requested";
    if (use_device) {
        auto clock = std::make_unique<DeviceClock>(audio, duration);
        if (clock->start(&reason)) return clock;
    }
    if (why) *why = reason;
    return std::make_unique<SilentClock>(duration, reason);
}

}  // namespace ws
