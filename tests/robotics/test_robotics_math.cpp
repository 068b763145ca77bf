// (being written)
#include <QtTest>
class TestRoboticsMath : public QObject {
    Q_OBJECT
};
QTEST_GUILESS_MAIN(TestRoboticsMath)
#include "test_robotics_math.moc"
