// FP8 E4M3 (the format of ModelOpt checkpoints): every one of the 256 bit patterns decoded against a bit-level
// construction of the same float32, the encoder's rounding and saturation, the tensor dequantization, and the
// safetensors reader's F8 dtypes.
#include <QtTest>

#include <cmath>
#include <cstring>

#include "core/torch_util.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/fp8.h"
#include "worldstudio/core/safetensors.h"

using namespace ws;

namespace {
// The float32 with the same sign, exponent and mantissa, built from bits: E4M3's normal numbers re-biased
// (7 -> 127) with the 3 mantissa bits on top of float32's 23; subnormals m·2^-9 normalized by hand.
float by_bits(uint8_t b) {
    const uint32_t sign = (b & 0x80u) << 24, e = (b >> 3) & 0xFu, m = b & 0x7u;
    uint32_t bits;
    if (e == 0xF && m == 0x7) return std::numeric_limits<float>::quiet_NaN();
    if (e != 0) {
        bits = sign | ((e - 7 + 127) << 23) | (m << 20);
    } else if (m == 0) {
        bits = sign;
    } else {
        int shift = 0;  // m = 1.xx · 2^k: find k, drop the leading one
        while (!((m << shift) & 0x4u)) ++shift;
        const uint32_t frac = ((m << shift) & 0x3u) << 21;
        bits = sign | static_cast<uint32_t>((127 - 7 - shift) << 23) | frac;
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}
}  // namespace

class TestFp8 : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyBitPatternDecodes() {
        int nans = 0;
        for (int b = 0; b < 256; ++b) {
            const float got = e4m3_to_float(static_cast<uint8_t>(b)), want = by_bits(static_cast<uint8_t>(b));
            if (std::isnan(want)) {
                QVERIFY2(std::isnan(got), qPrintable(QString::number(b, 16)));
                ++nans;
                continue;
            }
            QVERIFY2(std::memcmp(&got, &want, sizeof got) == 0,
                     qPrintable(QString("0x%1: %2 vs %3").arg(b, 2, 16, QChar('0')).arg(got).arg(want)));
            QVERIFY(std::isfinite(got));  // E4M3 "fn" has no infinities
        }
        QCOMPARE(nans, 2);  // 0x7F and 0xFF only
        // Landmarks as the format's definition states them.
        QCOMPARE(e4m3_to_float(0x7E), 448.0f);
        QCOMPARE(e4m3_to_float(0xFE), -448.0f);
        QCOMPARE(e4m3_to_float(0x38), 1.0f);
        QCOMPARE(e4m3_to_float(0x08), 0.015625f);     // 2^-6, the smallest normal
        QCOMPARE(e4m3_to_float(0x01), 0.001953125f);  // 2^-9, the smallest subnormal
        QCOMPARE(e4m3_to_float(0x07), 0.013671875f);  // 7/8 · 2^-6, the largest subnormal
        QVERIFY(std::signbit(e4m3_to_float(0x80)) && e4m3_to_float(0x80) == 0.0f);
        // Monotone over the non-negative codes: the encoder's search relies on it.
        for (int b = 1; b <= 0x7E; ++b)
            QVERIFY(e4m3_to_float(static_cast<uint8_t>(b)) > e4m3_to_float(static_cast<uint8_t>(b - 1)));
    }

    void encoderRoundsToNearestEvenAndSaturates() {
        for (int b = 0; b < 256; ++b) {
            if ((b & 0x7F) == 0x7F) continue;
            QCOMPARE(int(float_to_e4m3(e4m3_to_float(static_cast<uint8_t>(b)))),
                     b);  // every value round-trips, -0 included
        }
        QCOMPARE(int(float_to_e4m3(1.0625f)), 0x38);  // halfway between 1 and 1.125: the even code (1.0)
        QCOMPARE(int(float_to_e4m3(1.1875f)), 0x3A);  // halfway between 1.125 and 1.25: the even code (1.25)
        QCOMPARE(int(float_to_e4m3(1.06f)), 0x38);
        QCOMPARE(int(float_to_e4m3(1.07f)), 0x39);
        QCOMPARE(int(float_to_e4m3(1000.0f)), 0x7E);  // saturates to 448, never NaN
        QCOMPARE(int(float_to_e4m3(-1e30f)), 0xFE);
        QCOMPARE(int(float_to_e4m3(INFINITY)), 0x7E);
        QCOMPARE(int(float_to_e4m3(0.0009765625f)), 0x00);  // 2^-10, half the smallest subnormal: ties to even (0)
        QCOMPARE(int(float_to_e4m3(0.001f)), 0x01);
        QCOMPARE(int(float_to_e4m3(std::nanf(""))), 0x7F);
    }

    void tensorDequantizationMatchesTheScalarDecoder() {
        at::Tensor bits = at::arange(256, at::kLong).to(at::kByte).reshape({16, 16});
        const float scale = 0.0123f;
        const at::Tensor w = dequantize_e4m3(bits, scale);
        QCOMPARE(w.scalar_type(), at::kFloat);
        QCOMPARE(w.sizes().vec(), std::vector<int64_t>({16, 16}));
        for (int b = 0; b < 256; ++b) {
            const float got = w.reshape({-1})[b].item<float>(), want = e4m3_to_float(static_cast<uint8_t>(b)) * scale;
            if (std::isnan(want))
                QVERIFY(std::isnan(got));
            else
                QCOMPARE(got, want);
        }
    }

    void safetensorsReadsF8AsBytesOnly() {
        QTemporaryDir tmp;
        const std::string path = tmp.filePath("w.safetensors").toStdString();
        write_safetensors(path, {{"w", TensorBlob{DType::F8_E4M3, {2, 2}, {0x38, 0x40, 0xB8, 0x7E}}},
                                 {"e5", TensorBlob{DType::F8_E5M2, {1}, {0x3C}}}});
        SafeTensorsFile f(path);
        QCOMPARE(int(f.at("w").dtype), int(DType::F8_E4M3));
        QCOMPARE(f.at("w").nbytes, size_t(4));
        QCOMPARE(std::string(dtype_name(f.at("e5").dtype)), std::string("F8_E5M2"));
        QCOMPARE(dequantize_e4m3(fp8_bits(f.at("w")), 1.0f).reshape({-1})[3].item<float>(), 448.0f);
        // Raw FP8 bytes never pass for numbers.
        try {
            to_tensor(f.at("w"));
            QFAIL("to_tensor accepted FP8 bytes");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("'w' is F8_E4M3") != std::string::npos, e.what());
        }
    }
};

QTEST_APPLESS_MAIN(TestFp8)
#include "test_fp8.moc"
