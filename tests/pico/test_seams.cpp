// The seam measure of continued videos on frames made to order: a jump at a seam shows as a seam flicker far above
// the motion inside the chunks; bad seam lists are refused.
#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/pico/seams.h"

using namespace ws;

namespace {
// A grey ramp that brightens by `step` a frame, with an extra `jump` at frame `at`.
VideoFrames ramp(int count, int step, int at, int jump) {
    VideoFrames v;
    v.count = count, v.width = 8, v.height = 4, v.fps = 16;
    int level = 10;
    for (int t = 0; t < count; ++t) {
        if (t > 0) level += step + (t == at ? jump : 0);
        v.rgb.insert(v.rgb.end(), static_cast<size_t>(v.width) * v.height * 3, static_cast<uint8_t>(level));
    }
    return v;
}
}  // namespace

class TestSeams : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aJumpAtTheSeamShows() {
        const pico::SeamStats s = pico::measure_seams(ramp(12, 2, 6, 30), {6}, 1);
        QCOMPARE(s.seam_pairs, 1);
        QCOMPARE(s.inside_pairs, 10);
        // Latent-frame boundaries inside the chunks: frames 1 and 5 of the first chunk, 10 (its 5th) of the second
        // (from 5).
        QCOMPARE(s.boundary_pairs, 3);
        QCOMPARE(s.boundary_flicker, 2.0);
        QCOMPARE(s.seam_flicker, 32.0);
        QCOMPARE(s.inside_flicker, 2.0);
        QCOMPARE(s.inside_flicker_p90, 2.0);
        QVERIFY(s.seam_psnr < s.inside_psnr - 20);
        // A seamless continuation looks like the inside of a chunk.
        const pico::SeamStats smooth = pico::measure_seams(ramp(12, 2, 6, 0), {6, 9}, 1);
        QCOMPARE(smooth.seam_flicker, smooth.inside_flicker);
        QCOMPARE(smooth.seam_pairs, 2);
        // Identical frames: PSNR capped, not infinite.
        QCOMPARE(pico::measure_seams(ramp(3, 0, 1, 0), {1}, 1).seam_psnr, 100.0);
        QVERIFY(pico::measure_seams(ramp(3, 0, 1, 0), {1}, 1).to_json().contains("boundary_flicker"));
    }
    void badSeamListsAreRefused() {
        QVERIFY_THROWS_EXCEPTION(Error, pico::measure_seams(ramp(5, 1, 0, 0), {5}, 1));
        QVERIFY_THROWS_EXCEPTION(Error, pico::measure_seams(ramp(5, 1, 0, 0), {0}, 1));
        QVERIFY_THROWS_EXCEPTION(Error, pico::measure_seams(ramp(1, 1, 0, 0), {}, 1));
        QVERIFY_THROWS_EXCEPTION(Error, pico::measure_seams(ramp(12, 1, 0, 0), {4, 6}, 5));  // closer than the overlap
        VideoFrames short_rgb = ramp(4, 1, 0, 0);
        short_rgb.rgb.resize(10);
        QVERIFY_THROWS_EXCEPTION(Error, pico::measure_seams(short_rgb, {2}, 1));
    }
};

QTEST_GUILESS_MAIN(TestSeams)
#include "test_seams.moc"
