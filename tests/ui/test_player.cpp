// The player keeps picture and sound together with the audio device as the master clock. A known clip (black, with a
// white frame and a click every second) plays on a paced virtual device, a PulseAudio null sink this test starts;
// the time each flash frame reached the screen is compared with the time its click reached the DAC, on the
// device's own timeline. Without a device, the silent clock stands in.
#include <QDir>
#include <QProcess>
#include <QSignalSpy>
#include <QThreadPool>
#include <QSlider>
#include <QCheckBox>
#include <QtTest>
#include <cmath>

#include "skip_support.h"
#include "PlayerPanel.h"
#include "worldstudio/media/media.h"
#include "worldstudio/media/playback.h"

namespace {

constexpr int kFps = 24;
constexpr int kRate = 48000;

constexpr int kSeconds = 5;  // flashes and clicks at 1, 2, 3 and 4 s

// 64x64 at 24 fps: a white frame and a 10 ms 2 kHz click at every whole second but the first and the last.
void writeSyncClip(const QString& path) {
    ws::VideoFrames v;
    v.width = v.height = 64;
    v.count = kSeconds * kFps;
    v.fps = kFps;
    v.rgb.assign(static_cast<size_t>(v.count) * 64 * 64 * 3, 0);
    for (int sec = 1; sec < kSeconds; ++sec)
        std::fill_n(v.rgb.begin() + static_cast<size_t>(sec * kFps) * 64 * 64 * 3, 64 * 64 * 3, 255);
    ws::AudioClip a;
    a.samples.assign(static_cast<size_t>(kSeconds * kRate) * 2, 0.0f);
    for (int sec = 1; sec < kSeconds; ++sec)
        for (int s = sec * kRate, i = 0; i < kRate / 100; ++i) {
            const float x = 0.8f * static_cast<float>(std::sin(2 * M_PI * 2000 * i / kRate));
            a.samples[2 * (s + i)] = a.samples[2 * (s + i) + 1] = x;
        }
    ws::write_mp4(path.toStdString(), v, &a, "{}");
}

double median(QVector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Media seconds of the first sample louder than 0.3 after `from` seconds, as decoded from the file.
double onsetAfter(const ws::AudioClip& a, double from) {
    for (int64_t i = static_cast<int64_t>(from * a.sample_rate); i < a.frames(); ++i)
        if (std::fabs(a.samples[static_cast<size_t>(i * a.channels)]) > 0.3f)
            return static_cast<double>(i) / a.sample_rate;
    return -1;
}

}  // namespace

class TestPlayer : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString clip_;
    QProcess pulse_;

    // Plays the clip and returns, per flash, screen time minus DAC time of its click (seconds).
    QVector<double> measureOffsets(PlayerPanel& p) {
        const ws::AudioClip& audio = p.media(0)->audio;
        QVector<double> clicks;
        for (int sec = 1; sec < kSeconds; ++sec) clicks << onsetAfter(audio, sec - 0.5);
        QVector<double> offsets;
        p.seek(0);
        p.play();
        QElapsedTimer t;
        t.start();
        int next = 0;
        // Read each click's DAC time while the clock still holds the buffers around it.
        while (next < clicks.size() && t.elapsed() < 15000) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 2);
            const double shown = p.presentedAt((next + 1) * kFps);
            if (shown < 0) continue;
            const double heard = p.clock()->dac_time_of(clicks[next]);
            if (heard < 0) continue;
            offsets << shown - heard;
            ++next;
        }
        p.pause();
        return offsets;
    }

    // The systematic offset (the median) must stay within a frame; a single late paint on a loaded machine is a
    // late frame, counted by the player, not a sync error.
    void checkOffsets(const QVector<double>& off) {
        QCOMPARE(off.size(), kSeconds - 1);
        for (double o : off)
            qInfo("flash on screen minus click at the DAC: %+.1f ms (one frame is %.1f ms)", o * 1000, 1000.0 / kFps);
        QVERIFY2(std::fabs(median(off)) < 1.0 / kFps, qPrintable(QString("median offset %1 s").arg(median(off))));
    }

private Q_SLOTS:
    void initTestCase() {
        clip_ = tmp_.filePath("sync.mp4");
        writeSyncClip(clip_);
        // The file itself is in sync: the decoded click starts within a frame of its flash.
        const ws::AudioClip a = ws::read_audio(clip_.toStdString());
        const double onset = onsetAfter(a, 0.5);
        qInfo("click onset in the decoded file: %.4f s (flash at 1.0000 s)", onset);
        QVERIFY(std::fabs(onset - 1.0) < 1.0 / kFps);
    }

    void silentClockStandsInWithoutADevice() {
        PlayerPanel p;
        p.setUseAudioDevice(false);
        p.show();
        QSignalSpy loaded(&p, &PlayerPanel::loaded);
        p.open(clip_);
        QVERIFY(loaded.wait(20000));
        QVERIFY(!p.clockIsDevice());
        QVERIFY(p.clockDescription().contains("silent clock"));
        QElapsedTimer t;
        t.start();
        p.play();
        QTest::qWait(500);
        const double pos = p.position();
        QVERIFY2(std::fabs(pos - t.elapsed() / 1000.0) < 0.1, qPrintable(QString::number(pos)));
        checkOffsets(measureOffsets(p));
        // Pause holds the position; frame steps move by exactly one frame; seeks land on the frame.
        p.seek(1.0);
        QCOMPARE(p.currentFrame(), kFps);
        p.stepFrames(1);
        QCOMPARE(p.currentFrame(), kFps + 1);
        p.stepFrames(-2);
        QCOMPARE(p.currentFrame(), kFps - 1);
        const double held = p.position();
        QTest::qWait(100);
        QCOMPARE(p.position(), held);
        // Play on the last frame starts the clip again (it played the rest of that frame and stopped: nothing seen).
        p.seek(kSeconds - 0.5 / kFps);
        QVERIFY(!p.playing());
        p.play();
        QTest::qWait(200);
        QVERIFY(p.playing());
        QVERIFY2(p.position() < 0.5, qPrintable(QString::number(p.position())));
        p.pause();
        // Looping wraps around instead of stopping.
        p.setLoop(true);
        p.seek(kSeconds - 0.1);
        p.play();
        QTest::qWait(300);
        QVERIFY(p.playing());
        QVERIFY(p.position() < 1.0);
    }

    void volumeAndMuteReachTheClockAndAreRemembered() {
        {
            PlayerPanel p;
            p.setUseAudioDevice(false);
            QSignalSpy loaded(&p, &PlayerPanel::loaded);
            p.open(clip_);
            QVERIFY(loaded.wait(20000));
            auto* volume = p.findChild<QSlider*>("volume");
            auto* mute = p.findChild<QCheckBox*>("mute");
            QVERIFY(volume && mute);
            volume->setValue(40);
            QCOMPARE(p.clock()->volume(), 0.4);
            mute->setChecked(true);
            QCOMPARE(p.clock()->volume(), 0.0);
            p.open(clip_);  // a new clock takes the same
            QVERIFY(loaded.wait(20000));
            QCOMPARE(p.clock()->volume(), 0.0);
            mute->setChecked(false);
            QCOMPARE(p.volume(), 0.4);
        }
        PlayerPanel again;
        QCOMPARE(again.volume(), 0.4);
        again.findChild<QSlider*>("volume")->setValue(100);  // as the other tests expect
    }

    void comparesTwoClipsOnOneClock() {
        PlayerPanel p;
        p.setUseAudioDevice(false);
        p.show();
        QSignalSpy loaded(&p, &PlayerPanel::loaded);
        p.open(clip_, 0);
        QVERIFY(loaded.wait(20000));
        p.open(clip_, 1);
        QVERIFY(loaded.wait(20000));
        QVERIFY(p.hasMedia(1));
        p.play();
        for (int i = 0; i < 20; ++i) {
            QTest::qWait(25);
            QCOMPARE(p.currentFrame(1), p.currentFrame(0));
        }
        QVERIFY(p.currentFrame(0) > 5);
        p.closeCompare();
        QVERIFY(!p.hasMedia(1));
        QVERIFY(p.playing());
        // B joined A where A was; a new A starts at its beginning, not where the last clip was left.
        p.pause();
        p.seek(2.0);
        p.open(clip_, 1);
        QVERIFY(loaded.wait(20000));
        QCOMPARE(p.currentFrame(1), 2 * kFps);
        p.open(clip_, 0);
        QVERIFY(loaded.wait(20000));
        QCOMPARE(p.position(), 0.0);
        QCOMPARE(p.currentFrame(0), 0);
    }

    void theLatestOpenWinsWhenLoadsFinishOutOfOrder() {
        // A long clip is still decoding when a picture is opened in its place; the clip finishing last must not
        // replace the picture (the labeling and review pages switch items faster than a clip decodes).
        ws::VideoFrames longClip;
        longClip.width = longClip.height = 256;
        longClip.count = 10 * kFps;
        longClip.fps = kFps;
        longClip.rgb.assign(static_cast<size_t>(longClip.count) * 256 * 256 * 3, 40);
        const QString slow = tmp_.filePath("long.mp4"), fast = tmp_.filePath("still.png");
        ws::write_mp4(slow.toStdString(), longClip, nullptr, "{}");
        ws::VideoFrames still;
        still.width = still.height = 8;
        still.count = 1;
        still.rgb.assign(8 * 8 * 3, 200);
        ws::write_png(fast.toStdString(), still, 0);
        PlayerPanel p;
        p.setUseAudioDevice(false);
        QSignalSpy loaded(&p, &PlayerPanel::loaded);
        p.open(slow);
        p.open(fast);
        QVERIFY(loaded.wait(20000));
        QThreadPool::globalInstance()->waitForDone();
        QCoreApplication::processEvents();
        QCOMPARE(loaded.size(), 1);
        QVERIFY(p.hasMedia(0));
        QCOMPARE(p.media(0)->path, fast);
        // Clearing drops a load still under way too.
        p.open(slow);
        p.clear(QStringLiteral("nothing"));
        QThreadPool::globalInstance()->waitForDone();
        QCoreApplication::processEvents();
        QVERIFY(!p.hasMedia(0));
    }

    void deviceClockKeepsPictureAndSoundTogether() {
        if (QStandardPaths::findExecutable("pulseaudio").isEmpty())
            WS_SKIP_MISSING("PulseAudio is not installed (installer/install-deps.sh installs it)");
        // A private PulseAudio server with a null sink: a device that consumes sound at the real rate.
        const QString runtime = tmp_.filePath("pulse");
        QDir().mkpath(runtime);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_RUNTIME_DIR", runtime);
        env.insert("HOME", runtime);
        pulse_.setProcessEnvironment(env);
        pulse_.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        pulse_.start("pulseaudio",
                     {"-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--disable-shm=yes", "-L",
                      "module-null-sink sink_name=worldstudio_test rate=48000", "-L",
                      "module-native-protocol-unix socket=" + runtime + "/native auth-anonymous=1"});
        QVERIFY(pulse_.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(runtime + "/native"), 10000);
        qputenv("PULSE_SERVER", ("unix:" + runtime + "/native").toUtf8());
        qputenv("XDG_RUNTIME_DIR", runtime.toUtf8());

        PlayerPanel p;
        p.show();
        QSignalSpy loaded(&p, &PlayerPanel::loaded);
        p.open(clip_);
        QVERIFY(loaded.wait(20000));
        QVERIFY2(p.clockIsDevice(), qPrintable(p.clockDescription()));
        qInfo("%s", qPrintable(p.clockDescription()));
        checkOffsets(measureOffsets(p));
        qInfo("dropped frames: %d", p.droppedFrames());
    }

    void cleanupTestCase() {
        if (pulse_.state() != QProcess::NotRunning) {
            pulse_.terminate();
            if (!pulse_.waitForFinished(3000)) pulse_.kill();
        }
    }
};

WS_TEST_GUI_MAIN(TestPlayer)
#include "test_player.moc"
