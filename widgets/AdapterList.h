#pragma once
// A list of LoRA adapter folders, each with a strength: Add adapter… (a folder picker), Remove, a strength box per
// row. Reads and writes [{"path", "strength"}] JSON. Knows nothing of the engine: the Models workspace applies the
// list to the loaded model, the generation settings send it with one job.
#include <QJsonArray>
#include <QWidget>

class QTableWidget;

class AdapterList : public QWidget {
    Q_OBJECT
public:
    explicit AdapterList(QWidget* parent = nullptr);
    QTableWidget* table() const { return table_; }
    void addAdapter(const QString& path, double strength = 1.0);
    void setAdapters(const QJsonArray& adapters);  // [{"path", "strength"}]
    QJsonArray adapters() const;

Q_SIGNALS:
    void changed();

private:
    QTableWidget* table_;
};
