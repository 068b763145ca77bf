#include "MainWindow.h"

#include <QAction>
#include <QFileDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QProgressBar>
#include <QStatusBar>

#include "EngineWorker.h"
#include "KeyValueView.h"

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), modelView_(new KeyValueView(this)), progress_(new QProgressBar(this)), status_(new QLabel(this)),
      worker_(new EngineWorker()) {
    setWindowTitle(tr("WorldStudio"));
    setCentralWidget(modelView_);
    statusBar()->addWidget(status_, 1);
    statusBar()->addPermanentWidget(progress_);
    progress_->setVisible(false);
    auto* open = menuBar()->addMenu(tr("&Model"))->addAction(tr("&Open model folder..."));
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Model folder"));
        if (!dir.isEmpty()) loadModel(dir);
    });
    connect(worker_, &EngineWorker::loadProgress, this, [this](int done, int total) {
        progress_->setRange(0, total);
        progress_->setValue(done);
    }, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::modelLoaded, this, &MainWindow::showModel, Qt::QueuedConnection);
    connect(worker_, &EngineWorker::failed, this, [this](const QString& m) {
        progress_->setVisible(false);
        status_->setText(tr("Could not load the model: %1").arg(m.section('\n', 0, 0)));
        Q_EMIT modelFailed(m);
    }, Qt::QueuedConnection);
    status_->setText(tr("No model loaded"));
    resize(900, 600);
}

MainWindow::~MainWindow() { delete worker_; }

void MainWindow::loadModel(const QString& dir) {
    progress_->setVisible(true);
    status_->setText(tr("Loading %1 ...").arg(dir));
    QMetaObject::invokeMethod(worker_, [w = worker_, dir] { w->loadModel(dir); }, Qt::QueuedConnection);
}

void MainWindow::showModel(const QString& summaryJson) {
    progress_->setVisible(false);
    const QJsonObject o = QJsonDocument::fromJson(summaryJson.toUtf8()).object();
    const QJsonObject c = o["config"].toObject();
    QStringList files;
    for (const auto& f : o["files"].toArray())
        files << QStringLiteral("%1  %2").arg(f.toObject()["file"].toString(), f.toObject()["sha256"].toString().left(16));
    modelView_->setRows({{tr("Model"), o["id"].toString()},
                         {tr("Folder"), o["dir"].toString()},
                         {tr("Parameters"), QLocale().toString(o["parameters"].toDouble(), 'f', 0)},
                         {tr("Layers"), QString::number(c["num_hidden_layers"].toInt())},
                         {tr("Hidden size"), QString::number(c["hidden_size"].toInt())},
                         {tr("Device"), o["device"].toString()},
                         {tr("Dtype"), o["dtype"].toString()},
                         {tr("Video VAE"), o["vae"].toBool() ? tr("yes") : tr("no (latents only)")},
                         {tr("Sound decoder"), o["sound_tokenizer"].toBool() ? tr("yes") : tr("no")},
                         {tr("Files"), files.join('\n')}});
    status_->setText(tr("Loaded %1 on %2").arg(o["id"].toString(), o["device"].toString()));
    Q_EMIT modelReady();
}
