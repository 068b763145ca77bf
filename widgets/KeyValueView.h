#pragma once
// A two-column, read-only view of labelled values (model facts, generation records).
#include <QTreeWidget>

class KeyValueView : public QTreeWidget {
    Q_OBJECT
public:
    explicit KeyValueView(QWidget* parent = nullptr);
    // Replaces the content; a value containing '\n' becomes a parent row with one child per line.
    void setRows(const QList<QPair<QString, QString>>& rows);
    QString valueOf(const QString& key) const;
};
