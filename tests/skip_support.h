#pragma once
// A test function that cannot run for want of something outside this checkout's build (../shared's fixtures, a
// Python peer, the shipped model folder) skips with WS_SKIP_MISSING; the program, written with WS_TEST_MAIN or
// WS_TEST_GUI_MAIN, then exits with 77 when nothing failed, and CTest (SKIP_RETURN_CODE 77) reports the test as
// skipped, not passed. Qt Test's own output still names each function that skipped and why.
#include <QtTest>
#ifdef QT_WIDGETS_LIB
#include <QApplication>
#endif

namespace wstest {
inline bool& missing_resource() {
    static bool missing = false;
    return missing;
}
constexpr int kSkipExitCode = 77;
inline int finish(int failed) { return failed ? failed : missing_resource() ? kSkipExitCode : 0; }
}  // namespace wstest

#define WS_SKIP_MISSING(reason)            \
    do {                                   \
        wstest::missing_resource() = true; \
        QSKIP(reason);                     \
    } while (0)

#define WS_TEST_MAIN(TestClass)                               \
    int main(int argc, char** argv) {                         \
        QCoreApplication app(argc, argv);                     \
        TestClass tc;                                         \
        QTEST_SET_MAIN_SOURCE_PATH                            \
        return wstest::finish(QTest::qExec(&tc, argc, argv)); \
    }

#define WS_TEST_GUI_MAIN(TestClass)                           \
    int main(int argc, char** argv) {                         \
        QApplication app(argc, argv);                         \
        app.setAttribute(Qt::AA_Use96Dpi, true);              \
        TestClass tc;                                         \
        QTEST_SET_MAIN_SOURCE_PATH                            \
        return wstest::finish(QTest::qExec(&tc, argc, argv)); \
    }
