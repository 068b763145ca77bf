#pragma once
// The playback clock: media time taken from the audio device (PortAudio), so video follows what is heard. The
// audio callback records, per buffer, which media time reaches the DAC when (the device's own timeline); position()
// extrapolates from the latest buffer with the stream clock. With no device (or no sound), a silent clock on the
// steady clock stands in. Torch-free and Qt-free; the player widgets poll position() from the UI thread.
#include <cstdint>
#include <memory>
#include <string>

#include "worldstudio/media/media.h"

namespace ws {

class PlaybackClock {
public:
    virtual ~PlaybackClock() = default;
    // Opens the default output device playing `audio` (48 kHz stereo expected; may be null: silence with a device
    // clock). With `use_device` false, or when no device opens, returns the silent clock; `why` says why.
    static std::unique_ptr<PlaybackClock> open(const AudioClip* audio, double duration_seconds, bool use_device,
                                               std::string* why = nullptr);

    virtual void play() = 0;
    virtual void pause() = 0;
    virtual bool playing() const = 0;
    virtual void seek(double seconds) = 0;
    virtual void set_speed(double speed) = 0;  // 0.25 .. 4; audio is resampled (pitch follows)
    virtual void set_loop(bool loop) = 0;
    // Gain applied to the sound, 0 (muted) .. 1 (as decoded); the clock runs the same whatever it is.
    virtual void set_volume(double gain) = 0;
    virtual double volume() const = 0;
    virtual double duration() const = 0;
    // Media seconds being heard now.
    virtual double position() const = 0;
    // The device's clock now (seconds on the timeline of dac_time_of).
    virtual double now() const = 0;
    // When media time `seconds` reached (or reaches) the DAC on the device's clock, from the buffers written so far;
    // negative when no written buffer covered it. For sync measurements.
    virtual double dac_time_of(double seconds) const = 0;
    virtual bool is_device() const = 0;
    virtual std::string description() const = 0;
};

}  // namespace ws
