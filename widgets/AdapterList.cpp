#include "AdapterList.h"

#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonObject>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

AdapterList::AdapterList(QWidget* parent) : QWidget(parent), table_(new QTableWidget(0, 2, this)) {
    table_->setObjectName("adapters");
    table_->setHorizontalHeaderLabels({tr("Adapter folder"), tr("Strength")});
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setMaximumHeight(140);
    auto* add = new QPushButton(tr("Add adapter…"), this);
    auto* remove = new QPushButton(tr("Remove"), this);
    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(table_);
    layout->addLayout(buttons);
    connect(add, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("LoRA adapter folder (adapter_config.json, adapter_model.safetensors)"));
        if (!dir.isEmpty()) addAdapter(dir);
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        const int r = table_->currentRow();
        if (r < 0) return;
        table_->removeRow(r);
        Q_EMIT changed();
    });
}

void AdapterList::addAdapter(const QString& path, double strength) {
    const int r = table_->rowCount();
    table_->insertRow(r);
    auto* item = new QTableWidgetItem(path);
    item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    item->setToolTip(path);
    table_->setItem(r, 0, item);
    auto* s = new QDoubleSpinBox(table_);
    s->setRange(-4, 4);
    s->setSingleStep(0.1);
    s->setDecimals(2);
    s->setValue(strength);
    connect(s, qOverload<double>(&QDoubleSpinBox::valueChanged), this, &AdapterList::changed);
    table_->setCellWidget(r, 1, s);
    Q_EMIT changed();
}

void AdapterList::setAdapters(const QJsonArray& adapters) {
    const QSignalBlocker quiet(this);
    table_->setRowCount(0);
    for (const auto& a : adapters) addAdapter(a.toObject()["path"].toString(), a.toObject()["strength"].toDouble(1.0));
}

QJsonArray AdapterList::adapters() const {
    QJsonArray list;
    for (int r = 0; r < table_->rowCount(); ++r) {
        const auto* s = qobject_cast<const QDoubleSpinBox*>(table_->cellWidget(r, 1));
        list.append(QJsonObject{{"path", table_->item(r, 0)->text()}, {"strength", s ? s->value() : 1.0}});
    }
    return list;
}
