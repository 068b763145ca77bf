// FlowUniPC against an independent numpy statement of the scheduler's algorithm, and Euler's basic property.
#include <QJsonArray>
#include <QJsonDocument>

#include "model/sampler.h"
#include "test_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/pyjson.h"
#include "worldstudio/core/schedule.h"

using namespace ws;

class TestSampler : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void unipcMatchesNumpyPeer() {
        for (auto [steps, shift] :
             std::vector<std::pair<int, double>>{{35, 10.0}, {8, 3.0}, {3, 1.0}, {2, 5.0}, {1, 10.0}}) {
            SigmaSchedule s = make_sigma_schedule(steps, shift);
            const float a = -0.7f, b = 0.3f;
            at::manual_seed(3);
            at::Tensor x0 = at::randn({16});
            ojson spec = {{"sigmas", s.sigmas},
                          {"a", a},
                          {"b", b},
                          {"x", std::vector<float>(x0.data_ptr<float>(), x0.data_ptr<float>() + 16)}};
            auto r = wstest::run(WS_PEER_PYTHON, {wstest::data("flow_unipc_reference.py").c_str()},
                                 QByteArray::fromStdString(spec.dump()));
            QVERIFY2(r.code == 0, r.err.constData());
            const QJsonArray states = QJsonDocument::fromJson(r.out).array();
            QCOMPARE(states.size(), steps);
            auto sampler = Sampler::create("unipc", s);
            at::Tensor x = x0.clone();
            for (int i = 0; i < steps; ++i) {
                at::Tensor v = a * x + b * s.sigmas[size_t(i)];
                x = sampler->step(v, x);
                std::vector<float> ref;
                for (const auto& e : states[i].toArray()) ref.push_back(float(e.toDouble()));
                const double err = wstest::rel_err(x, at::tensor(ref));
                QVERIFY2(
                    err < 1e-5,
                    qPrintable(QString("steps %1 shift %2: step %3 error %4").arg(steps).arg(shift).arg(i).arg(err)));
            }
            QVERIFY_THROWS_EXCEPTION(Error, sampler->step(at::zeros({16}), x));  // past the schedule
        }
    }
    void eulerFollowsTheVelocity() {
        QVERIFY(recovers_exact_flow("euler", 10, 3.0));
        QVERIFY_THROWS_EXCEPTION(Error, Sampler::create("ddim", make_sigma_schedule(10, 3.0)));
    }
    void unipcRecoversExactFlow() { QVERIFY(recovers_exact_flow("unipc", 12, 5.0)); }

private:
    // With the exact rectified-flow velocity v = noise - x0 (constant along the path), sampling ends at x0.
    static bool recovers_exact_flow(const char* sampler, int steps, double shift) {
        SigmaSchedule s = make_sigma_schedule(steps, shift);
        auto smp = Sampler::create(sampler, s);
        at::Tensor x0 = at::randn({8}), noise = at::randn({8});
        at::Tensor x = s.sigmas[0] * noise + (1 - s.sigmas[0]) * x0;
        for (int i = 0; i < steps; ++i) x = smp->step(noise - x0, x);
        return wstest::rel_err(x, x0) < 1e-5;
    }
};

QTEST_GUILESS_MAIN(TestSampler)
#include "test_sampler.moc"
