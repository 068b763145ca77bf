// The samplers as pure functions: FlowUniPC against an independent numpy statement of the scheduler's algorithm,
// Euler's basic property, and the hooks every sampler honours.
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
            std::vector<at::Tensor> xs;  // the state after each step
            SamplerHooks hooks;
            hooks.after_step = [&](int, const at::Tensor& x, const at::Tensor&) { xs.push_back(x); };
            int calls = 0;
            const VelocityFn velocity = [&](const at::Tensor& x, double timestep, int step) {
                ++calls;
                if (timestep != double(s.timesteps[size_t(step)])) throw Error("wrong timestep");
                return a * x + b * s.sigmas[size_t(step)];
            };
            const at::Tensor last = sample_unipc(velocity, x0.clone(), s, hooks);
            QCOMPARE(calls, steps);
            QCOMPARE(int(xs.size()), steps);
            QVERIFY(at::equal(last, xs.back()));
            for (int i = 0; i < steps; ++i) {
                std::vector<float> ref;
                for (const auto& e : states[i].toArray()) ref.push_back(float(e.toDouble()));
                const double err = wstest::rel_err(xs[size_t(i)], at::tensor(ref));
                QVERIFY2(
                    err < 1e-5,
                    qPrintable(QString("steps %1 shift %2: step %3 error %4").arg(steps).arg(shift).arg(i).arg(err)));
            }
        }
    }
    void eulerFollowsTheVelocity() {
        QVERIFY(recovers_exact_flow("euler", 10, 3.0));
        const VelocityFn zero = [](const at::Tensor& x, double, int) { return at::zeros_like(x); };
        QVERIFY_THROWS_EXCEPTION(Error, sample("ddim", zero, at::zeros({4}), make_sigma_schedule(10, 3.0)));
    }
    void unipcRecoversExactFlow() { QVERIFY(recovers_exact_flow("unipc", 12, 5.0)); }

    // The hooks: every new state goes through constrain before anything else sees it, and should_cancel stops the
    // loop before the next network call.
    void hooksConstrainEveryStateAndCancelBetweenSteps() {
        for (const char* name : {"unipc", "euler"}) {
            const SigmaSchedule s = make_sigma_schedule(6, 3.0);
            std::vector<float> first_seen;  // x[0] as the velocity sees it
            const VelocityFn velocity = [&](const at::Tensor& x, double, int) {
                first_seen.push_back(x[0].item<float>());
                return at::full_like(x, 0.5f);
            };
            SamplerHooks hooks;
            hooks.constrain = [](const at::Tensor& x) {
                at::Tensor y = x.clone();
                y[0] = 7.0f;
                return y;
            };
            const at::Tensor out = sample(name, velocity, at::zeros({3}), s, hooks);
            QCOMPARE(out[0].item<float>(), 7.0f);
            QCOMPARE(int(first_seen.size()), 6);
            for (size_t i = 1; i < first_seen.size(); ++i) QCOMPARE(first_seen[i], 7.0f);
            QVERIFY(out[1].item<float>() != 0.0f);  // the rest moved

            int calls = 0;
            SamplerHooks stop;
            stop.should_cancel = [&] { return calls == 2; };
            const VelocityFn counted = [&](const at::Tensor& x, double, int) {
                ++calls;
                return at::zeros_like(x);
            };
            QVERIFY_THROWS_EXCEPTION(Cancelled, sample(name, counted, at::zeros({3}), s, stop));
            QCOMPARE(calls, 2);
        }
    }

private:
    // With the exact rectified-flow velocity v = noise - x0 (constant along the path), sampling ends at x0.
    static bool recovers_exact_flow(const char* sampler, int steps, double shift) {
        SigmaSchedule s = make_sigma_schedule(steps, shift);
        at::Tensor x0 = at::randn({8}), noise = at::randn({8});
        const at::Tensor start = s.sigmas[0] * noise + (1 - s.sigmas[0]) * x0;
        const VelocityFn velocity = [&](const at::Tensor&, double, int) { return noise - x0; };
        return wstest::rel_err(sample(sampler, velocity, start, s), x0) < 1e-5;
    }
};

QTEST_GUILESS_MAIN(TestSampler)
#include "test_sampler.moc"
