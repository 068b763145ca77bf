#include "KeyValueView.h"

#include <QHeaderView>

KeyValueView::KeyValueView(QWidget* parent) : QTreeWidget(parent) {
    setColumnCount(2);
    setHeaderLabels({tr("Property"), tr("Value")});
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    setRootIsDecorated(false);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
}

void KeyValueView::setRows(const QList<QPair<QString, QString>>& rows) {
    clear();
    bool nested = false;
    for (const auto& [key, value] : rows) {
        auto* item = new QTreeWidgetItem(this, {key, value.section('\n', 0, 0)});
        const QStringList lines = value.split('\n');
        for (int i = 1; i < lines.size(); ++i) new QTreeWidgetItem(item, {QString(), lines[i]}), nested = true;
    }
    setRootIsDecorated(nested);
}

QString KeyValueView::valueOf(const QString& key) const {
    for (int i = 0; i < topLevelItemCount(); ++i)
        if (topLevelItem(i)->text(0) == key) return topLevelItem(i)->text(1);
    return {};
}
