// Initial noise against numpy's RandomState and the sigma tables against the reference's numpy formula.
#include <algorithm>

#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/noise.h"
#include "worldstudio/core/schedule.h"

using namespace ws;

class TestNoiseSchedule : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void noiseMatchesNumpy() {
        struct Case {
            uint32_t seed;
            int64_t count;
        };
        // Odd counts exercise the cached second Gaussian; 4294967295 the largest seed; 5000 a refill of the MT state.
        const std::vector<Case> cases = {{0, 7}, {1, 1}, {42, 12}, {2025, 5000}, {4294967295u, 33}, {123456, 1001}};
        for (const auto& c : cases) {
            auto r = wstest::python(QString("import numpy as np,sys\n"
                                            "a=np.random.RandomState(%1).standard_normal((%2,)).astype(np.float32)\n"
                                            "sys.stdout.buffer.write(a.tobytes())")
                                        .arg(c.seed)
                                        .arg(c.count));
            QVERIFY2(r.code == 0, r.err.constData());
            QCOMPARE(r.out.size(), int(c.count * 4));
            std::vector<double> ours = numpy_standard_normal(c.seed, c.count);
            const float* ref = reinterpret_cast<const float*>(r.out.constData());
            int diff = 0;
            for (int64_t i = 0; i < c.count; ++i) diff += static_cast<float>(ours[size_t(i)]) != ref[i];
            QVERIFY2(diff == 0, qPrintable(QString("seed %1: %2 values differ").arg(c.seed).arg(diff)));
        }
    }
    void sigmaTablesMatchReference() {
        const std::vector<std::pair<int, double>> cases = {{35, 10.0}, {50, 3.0}, {30, 10.0}, {35, 5.0},
                                                           {4, 1.0},   {1, 10.0}, {200, 7.5}};
        for (const auto& [steps, shift] : cases) {
            auto r = wstest::python(QString("import numpy as np\n"
                                            "N,s=%1,%2\n"
                                            "alphas=np.linspace(1,1/1000,1000)[::-1].copy()\n"
                                            "sig_table=(1.0-alphas).astype(np.float32)\n"
                                            "smax=float(sig_table[0]); smin=0.0\n"
                                            "sig=np.linspace(smax,smin,N+1)[:-1]\n"
                                            "sig=s*sig/(1+(s-1)*sig)\n"
                                            "ts=(sig*1000).astype(np.int64)\n"
                                            "sg=np.concatenate([sig,[0.0]]).astype(np.float32)\n"
                                            "print(' '.join(str(int(t)) for t in ts))\n"
                                            "print(' '.join(repr(float(x)) for x in sg))")
                                        .arg(steps)
                                        .arg(shift, 0, 'g', 17));
            QVERIFY2(r.code == 0, r.err.constData());
            const QList<QByteArray> lines = r.out.trimmed().split('\n');
            SigmaSchedule ours = make_sigma_schedule(steps, shift);
            const QList<QByteArray> ts = lines[0].split(' '), sg = lines[1].split(' ');
            QCOMPARE(int(ours.timesteps.size()), ts.size());
            QCOMPARE(int(ours.sigmas.size()), sg.size());
            for (int i = 0; i < ts.size(); ++i) QCOMPARE(ours.timesteps[size_t(i)], ts[i].toLongLong());
            for (int i = 0; i < sg.size(); ++i) QCOMPARE(ours.sigmas[size_t(i)], static_cast<float>(sg[i].toDouble()));
        }
        SigmaSchedule s = make_sigma_schedule(35, 10.0);
        QCOMPARE(s.timesteps[0], int64_t(999));
        QCOMPARE(s.timesteps[1], int64_t(996));
        QCOMPARE(s.timesteps[34], int64_t(227));
    }
    // diffusers' UniPC flow schedules (the diffusers prompting path), against numpy doing what its set_timesteps does.
    void diffusersFlowSchedulesMatchNumpy() {
        auto compare = [](const SigmaSchedule& ours, const QString& script) {
            auto r = wstest::python("import numpy as np\n" + script +
                                    "ts=(sig*1000).astype(np.int64)\n"
                                    "sg=np.concatenate([sig,[0.0]]).astype(np.float32)\n"
                                    "print(' '.join(str(int(t)) for t in ts))\n"
                                    "print(' '.join(repr(float(x)) for x in sg))");
            QVERIFY2(r.code == 0, r.err.constData());
            const QList<QByteArray> lines = r.out.trimmed().split('\n');
            const QList<QByteArray> ts = lines[0].split(' '), sg = lines[1].split(' ');
            QCOMPARE(int(ours.timesteps.size()), ts.size());
            QCOMPARE(int(ours.sigmas.size()), sg.size());
            for (int i = 0; i < ts.size(); ++i) QCOMPARE(ours.timesteps[size_t(i)], ts[i].toLongLong());
            for (int i = 0; i < sg.size(); ++i) QCOMPARE(ours.sigmas[size_t(i)], static_cast<float>(sg[i].toDouble()));
        };
        for (int n : {35, 20, 4, 1}) {
            compare(make_karras_flow_schedule(n, 0.147, 200.0),
                    QString("N=%1\nramp=np.linspace(0,1,N)\nlo,hi=0.147**(1/7.0),200.0**(1/7.0)\n"
                            "k=(hi+ramp*(lo-hi))**7.0\nsig=k/(k+1)\n")
                        .arg(n));
            for (bool native : {false, true})
                compare(make_shifted_flow_schedule(n, native ? 3.0 : 10.0, native),
                        QString("N,s=%1,%2\nsig=np.linspace(%3,N+1)[:-1]\nsig=s*sig/(1+(s-1)*sig)\n"
                                "sig[0]=sig[0]-1e-6 if abs(sig[0]-1)<1e-6 else sig[0]\n")
                            .arg(n)
                            .arg(native ? 3.0 : 10.0)
                            .arg(native ? "1-1/1000,0" : "1,1/1000"));
        }
        // The base export's 35 steps: no timestep twice, from 995 (200 / 201) to 128.
        const SigmaSchedule k = make_karras_flow_schedule(35, 0.147, 200.0);
        QCOMPARE(k.timesteps.front(), int64_t(995));
        QCOMPARE(k.timesteps.back(), int64_t(128));
        QVERIFY(std::adjacent_find(k.timesteps.begin(), k.timesteps.end()) == k.timesteps.end());
        QVERIFY_THROWS_EXCEPTION(Error, make_karras_flow_schedule(10, 0.5, 0.1));
        QVERIFY_THROWS_EXCEPTION(Error, make_shifted_flow_schedule(10, 0, false));
    }
    void badSchedules() {
        QVERIFY_THROWS_EXCEPTION(Error, make_sigma_schedule(0, 10));
        QVERIFY_THROWS_EXCEPTION(Error, make_sigma_schedule(10, 0));
        QVERIFY_THROWS_EXCEPTION(Error, make_sigma_schedule(10, -1));
    }
};

QTEST_GUILESS_MAIN(TestNoiseSchedule)
#include "test_noise_schedule.moc"
