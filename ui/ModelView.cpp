#include "ModelView.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include "KeyValueView.h"

ModelView::ModelView(QWidget* parent) : QWidget(parent) {
    details_ = new KeyValueView(this);
    progress_ = new QProgressBar(this);
    progress_->setVisible(false);
    auto* open = new QPushButton(tr("Open model folder…"), this);
    auto* builtin = new QPushButton(tr("Use the built-in model"), this);
    cancelButton_ = new QPushButton(tr("Cancel loading"), this);
    cancelButton_->setEnabled(false);
    auto* row = new QHBoxLayout;
    row->addWidget(open);
    row->addWidget(builtin);
    row->addWidget(cancelButton_);
    row->addWidget(progress_, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(row);
    layout->addWidget(details_, 1);
    connect(open, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Model folder (Hugging Face snapshot layout)"));
        if (!dir.isEmpty()) Q_EMIT openRequested(dir);
    });
    connect(builtin, &QPushButton::clicked, this, &ModelView::builtinRequested);
    connect(cancelButton_, &QPushButton::clicked, this, &ModelView::cancelRequested);
}

void ModelView::showLoading() {
    progress_->setVisible(true);
    progress_->setRange(0, 0);
    cancelButton_->setEnabled(true);
}

void ModelView::showProgress(int done, int total) {
    progress_->setVisible(true);
    progress_->setRange(0, total);
    progress_->setValue(done);
}

void ModelView::showFailed() {
    progress_->setVisible(false);
    cancelButton_->setEnabled(false);
}

void ModelView::showModel(const QString& summaryJson) {
    progress_->setVisible(false);
    cancelButton_->setEnabled(false);
    const QJsonObject o = QJsonDocument::fromJson(summaryJson.toUtf8()).object();
    const QJsonObject c = o["config"].toObject();
    QStringList files;
    for (const auto& f : o["files"].toArray())
        files << QStringLiteral("%1  %2").arg(f.toObject()["file"].toString(), f.toObject()["sha256"].toString().left(16));
    const double params = o["parameters"].toDouble();
    const QString dtype = o["dtype"].toString();
    const double bytesPer = dtype == "float32" ? 4 : 2;
    details_->setRows({{tr("Model"), o["id"].toString()},
                       {tr("Folder"), o["dir"].toString()},
                       {tr("Parameters"), QLocale().toString(params, 'f', 0)},
                       {tr("Layers"), QString::number(c["num_hidden_layers"].toInt())},
                       {tr("Hidden size"), QString::number(c["hidden_size"].toInt())},
                       {tr("Device"), o["device"].toString()},
                       {tr("Dtype"), dtype},
                       {tr("Weights in memory"), tr("about %1 MiB").arg(params * bytesPer / (1024 * 1024), 0, 'f', 1)},
                       {tr("Video VAE"), o["vae"].toBool() ? tr("yes") : tr("no (latents only)")},
                       {tr("Sound decoder"), o["sound_tokenizer"].toBool() ? tr("yes") : tr("no")},
                       {tr("Files"), files.join('\n')}});
}
