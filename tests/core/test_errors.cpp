// What users are shown: ws::user_message for every kind of exception, and the JSON field readers' messages.
#include <QtTest>

#include <new>

#include "worldstudio/core/error.h"
#include "worldstudio/core/pyjson.h"

using ws::ojson;

class TestErrors : public QObject {
    Q_OBJECT

    template <typename F>
    static std::string messageOf(F&& f) {
        try {
            f();
        } catch (const std::exception& e) {
            return ws::user_message(e);
        }
        return "(no exception)";
    }

private Q_SLOTS:
    void libraryTextBecomesASentence() {
        QCOMPARE(messageOf([] { throw ws::Error("a.json: field 'x' must be a number (got string)"); }),
                 std::string("a.json: field 'x' must be a number (got string)"));
        const std::string parse = messageOf([] { const ojson j = ojson::parse("{\"a\": tru}"); });
        QVERIFY2(parse.rfind("parse error at line 1, column", 0) == 0, parse.c_str());
        const std::string type = messageOf([] { (void)ojson(nullptr).get<std::vector<int>>(); });
        QVERIFY2(type.find("json.exception") == std::string::npos &&
                     type.find("type must be array, but is null") != std::string::npos,
                 type.c_str());
        QCOMPARE(messageOf([] { throw std::bad_alloc(); }), std::string("out of memory"));
        QCOMPARE(messageOf([] {
                     throw std::runtime_error(
                         "shape mismatch\nException raised from check at x.cpp:12 (most recent call first):\nframe #0");
                 }),
                 std::string("shape mismatch"));
        QCOMPARE(messageOf([] { throw std::runtime_error(""); }), std::string("unexpected error"));
        QCOMPARE(ws::one_line("missing:\n  a\n  b\n"), std::string("missing:; a; b"));
        QCOMPARE(ws::one_line("one line"), std::string("one line"));
    }

    void jsonFieldsSayWhatTheyMustBe() {
        const ojson j =
            ojson::parse(R"({"n": null, "i": 3, "f": 2.5, "s": "x", "l": [1, 2], "bad": [1, "2"], "b": true})");
        QCOMPARE(ws::json_field(j, "n", std::vector<int64_t>{7}, "c.json"),
                 std::vector<int64_t>{7});  // null: not given
        QCOMPARE(ws::json_field(j, "absent", 4.0, "c.json"), 4.0);
        QCOMPARE(ws::json_field(j, "i", int64_t{0}, "c.json"), int64_t{3});
        QCOMPARE(ws::json_field(j, "i", 0.0, "c.json"), 3.0);  // an integer is a number
        QCOMPARE(ws::json_field(j, "l", std::vector<int64_t>{}, "c.json"), (std::vector<int64_t>{1, 2}));
        QCOMPARE(messageOf([&] { ws::json_field(j, "f", int64_t{0}, "c.json"); }),
                 std::string("c.json: field 'f' must be an integer (got a non-integer number)"));
        QCOMPARE(messageOf([&] { ws::json_field(j, "s", 0.0, "c.json"); }),
                 std::string("c.json: field 's' must be a number (got string)"));
        QCOMPARE(messageOf([&] { ws::json_field(j, "bad", std::vector<int64_t>{}, "c.json"); }),
                 std::string("c.json: field 'bad' must be a list of integers (got array)"));
        QCOMPARE(messageOf([&] { ws::json_field(j, "i", false, "c.json"); }),
                 std::string("c.json: field 'i' must be true or false (got number)"));
        QCOMPARE(ws::json_field(ojson::array(), "x", 1.0, "c.json"), 1.0);  // not an object: nothing to read
    }
};

QTEST_GUILESS_MAIN(TestErrors)
#include "test_errors.moc"
