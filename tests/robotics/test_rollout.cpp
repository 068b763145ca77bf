// (being written)
#include <QtTest>
class TestRollout : public QObject {
    Q_OBJECT
};
QTEST_GUILESS_MAIN(TestRollout)
#include "test_rollout.moc"
