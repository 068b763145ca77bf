# FlowUniPC multistep (order 2, bh2, x0 prediction, final sigma 0), written from the published scheduler's
# algorithm with numpy float32 scalars and np.linalg.solve, as an independent peer of src/sampler.cpp.
# stdin: JSON {"sigmas": [...], "x": [...], "a": float, "b": float}; the model is v = a * x + b * sigma.
# stdout: JSON list of the state after every step.
import sys, json
import numpy as np

spec = json.load(sys.stdin)
sig = np.array(spec["sigmas"], dtype=np.float32)
x = np.array(spec["x"], dtype=np.float32)
a, b = np.float32(spec["a"]), np.float32(spec["b"])
N = len(sig) - 1
f32 = np.float32

def lam(i):
    with np.errstate(divide="ignore"):
        return np.log(f32(1) - sig[i]) - np.log(sig[i])

outputs, last_sample, this_order, lower = [], None, 1, 0
states = []
for i in range(N):
    v = a * x + b * sig[i]
    m = x - sig[i] * v
    if i > 0 and last_sample is not None:  # UniC corrector with the previous order
        h = lam(i) - lam(i - 1)
        hh = -h
        h_phi_1 = np.expm1(hh); B_h = np.expm1(hh)
        m0 = outputs[-1]
        x_t = (sig[i] / sig[i - 1]) * last_sample - (f32(1) - sig[i]) * h_phi_1 * m0
        if this_order == 1:
            rhos = np.array([0.5], dtype=f32); corr = 0
        else:
            rk = (lam(i - 2) - lam(i - 1)) / h
            D1 = (outputs[-2] - m0) / rk
            rks = np.array([rk, 1.0], dtype=f32)
            R = np.stack([rks ** 0, rks ** 1])
            hpk = h_phi_1 / hh - f32(1)
            bb = [hpk * 1 / B_h]
            hpk = hpk / hh - f32(1) / f32(2)
            bb.append(hpk * 2 / B_h)
            rhos = np.linalg.solve(R, np.array(bb, dtype=f32)).astype(f32)
            corr = rhos[0] * D1
        x = x_t - (f32(1) - sig[i]) * B_h * (corr + rhos[-1] * (m - m0))
    outputs = (outputs + [m])[-2:]
    this_order = min(min(2, N - i), lower + 1)
    last_sample = x
    # UniP predictor
    h = lam(i + 1) - lam(i)
    hh = -h
    h_phi_1 = np.expm1(hh); B_h = np.expm1(hh)
    x_t = (sig[i + 1] / sig[i]) * x - (f32(1) - sig[i + 1]) * h_phi_1 * m
    if this_order == 2:
        rk = (lam(i - 1) - lam(i)) / h
        D1 = (outputs[-2] - m) / rk
        x_t = x_t - (f32(1) - sig[i + 1]) * B_h * (f32(0.5) * D1)
    x = x_t.astype(f32)
    lower = min(lower + 1, 2)
    states.append(x.tolist())
print(json.dumps(states))
