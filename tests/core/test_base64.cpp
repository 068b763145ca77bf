// Base64 as JSON carries binary data: RFC 4648's test vectors, round trips of every length's padding, line breaks
// and missing padding accepted, stray characters refused.
#include <QtTest>

#include "worldstudio/core/base64.h"
#include "worldstudio/core/error.h"

using namespace ws;

class TestBase64 : public QObject {
    Q_OBJECT
    static std::string text(const std::vector<uint8_t>& b) { return std::string(b.begin(), b.end()); }

private Q_SLOTS:
    void rfc4648Vectors() {
        const std::vector<std::pair<std::string, std::string>> vectors = {{"", ""},
                                                                          {"f", "Zg=="},
                                                                          {"fo", "Zm8="},
                                                                          {"foo", "Zm9v"},
                                                                          {"foob", "Zm9vYg=="},
                                                                          {"fooba", "Zm9vYmE="},
                                                                          {"foobar", "Zm9vYmFy"}};
        for (const auto& [plain, coded] : vectors) {
            QCOMPARE(base64_encode(plain.data(), plain.size()), coded);
            QCOMPARE(text(base64_decode(coded)), plain);
        }
    }

    void everyLengthRoundTrips() {
        std::vector<uint8_t> bytes;
        for (int n = 0; n < 70; ++n) {
            QCOMPARE(base64_decode(base64_encode(bytes.data(), bytes.size())), bytes);
            bytes.push_back(static_cast<uint8_t>(n * 37 + 255));
        }
    }

    void lineBreaksAndMissingPaddingAreRead() {
        QCOMPARE(text(base64_decode("Zm9v\nYmFy\r\n")), std::string("foobar"));
        QCOMPARE(text(base64_decode("Zm8")), std::string("fo"));
        QCOMPARE(text(base64_decode("Zg")), std::string("f"));
    }

    void strayCharactersAreRefused() {
        for (const char* bad : {"ab$d", "=abc", "Zm9v YmFy", "Zg==Zg==", "Zm9\tv", "Z"})
            QVERIFY_THROWS_EXCEPTION(Error, base64_decode(bad));
    }
};

QTEST_GUILESS_MAIN(TestBase64)
#include "test_base64.moc"
