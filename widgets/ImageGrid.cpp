#include "ImageGrid.h"

#include <QGridLayout>
#include <QLabel>
#include <QMenu>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "VideoView.h"

ImageGrid::ImageGrid(QWidget* parent) : QWidget(parent) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    showHidden_ = new QToolButton(this);
    showHidden_->setObjectName("showHiddenTiles");
    showHidden_->setPopupMode(QToolButton::InstantPopup);
    showHidden_->setMenu(new QMenu(showHidden_));
    showHidden_->hide();
    outer->addWidget(showHidden_, 0, Qt::AlignLeft);
    body_ = new QWidget(this);
    grid_ = new QGridLayout(body_);
    grid_->setContentsMargins(0, 0, 0, 0);
    grid_->setSpacing(4);
    outer->addWidget(body_, 1);
    placeholder_ = new QLabel(this);
    placeholder_->setObjectName("gridPlaceholder");
    placeholder_->setAlignment(Qt::AlignCenter);
    placeholder_->setWordWrap(true);
    placeholder_->setEnabled(false);  // drawn in the disabled (quiet) colour
    outer->addWidget(placeholder_, 1);
    placeholder_->hide();
    overlayBox_ = new QWidget(this);
    auto* ov = new QVBoxLayout(overlayBox_);
    ov->setContentsMargins(0, 0, 0, 0);
    overlay_ = new VideoView(overlayBox_);
    overlay_->setObjectName("gridOverlay");
    overlayCaption_ = new QLabel(overlayBox_);
    ov->addWidget(overlay_, 1);
    ov->addWidget(overlayCaption_);
    outer->addWidget(overlayBox_, 1);
    overlayBox_->hide();
}

void ImageGrid::setPlaceholder(const QString& text) {
    placeholder_->setText(text);
    placeholder_->setVisible(keys_.isEmpty() && !text.isEmpty());
}

void ImageGrid::setTiles(const QStringList& keys, const QStringList& titles) {
    // Tiles of keys that stay are kept (with their pictures); others go.
    QVector<Tile> kept;
    for (int i = 0; i < keys.size(); ++i) {
        const int at = keys_.indexOf(keys[i]);
        if (at >= 0) {
            kept << tiles_[at];
            kept.back().title->setText(titles.value(i));
            continue;
        }
        Tile t;
        t.box = new QWidget(this);
        t.box->setObjectName(QStringLiteral("tile-%1").arg(keys[i]));
        auto* v = new QVBoxLayout(t.box);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(1);
        auto* head = new QHBoxLayout;
        t.title = new QLabel(titles.value(i), t.box);
        t.title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        t.hide = new QToolButton(t.box);
        t.hide->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
        t.hide->setToolTip(tr("Hide (bring it back from Hidden)"));
        t.hide->setObjectName("hideTile");
        t.hide->setAutoRaise(true);
        t.enlarge = new QToolButton(t.box);
        t.enlarge->setIcon(style()->standardIcon(QStyle::SP_TitleBarMaxButton));
        t.enlarge->setToolTip(tr("Enlarge; click again to show every picture"));
        t.enlarge->setObjectName("enlargeTile");
        t.enlarge->setAutoRaise(true);
        t.enlarge->setCheckable(true);
        head->addWidget(t.title, 1);
        head->addWidget(t.enlarge);
        head->addWidget(t.hide);
        v->addLayout(head);
        t.view = new VideoView(t.box);
        t.view->setObjectName(QStringLiteral("view-%1").arg(keys[i]));
        v->addWidget(t.view, 1);
        t.caption = new QLabel(t.box);
        t.caption->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
        t.caption->setWordWrap(true);  // a narrow tile wraps its caption rather than cutting it off
        v->addWidget(t.caption);
        const QString key = keys[i];
        connect(t.hide, &QToolButton::clicked, this, [this, key] { setHidden(key, true); });
        connect(t.enlarge, &QToolButton::clicked, this, [this, key](bool on) { setEnlarged(on ? key : QString()); });
        kept << t;
    }
    for (int i = 0; i < keys_.size(); ++i)
        if (!keys.contains(keys_[i])) delete tiles_[i].box;
    keys_ = keys;
    tiles_ = kept;
    hidden_.erase(std::remove_if(hidden_.begin(), hidden_.end(), [&](const QString& k) { return !keys_.contains(k); }),
                  hidden_.end());
    if (!keys_.contains(enlarged_)) enlarged_.clear();
    relayout();
}

void ImageGrid::setFrame(const QString& key, const QImage& image, const QString& caption) {
    const int i = keys_.indexOf(key);
    if (i < 0) return;
    Tile& t = tiles_[i];
    t.image = image;
    if (image.isNull()) t.view->setPlaceholder(tr("not at this time"));
    t.view->setFrame(image);
    t.caption->setText(caption);
    t.caption->setToolTip(caption);
    if (mode_ != Mode::Grid && (key == pairA_ || key == pairB_)) updateOverlay();
}

QImage ImageGrid::frame(const QString& key) const {
    const int i = keys_.indexOf(key);
    return i < 0 ? QImage() : tiles_[i].image;
}

VideoView* ImageGrid::view(const QString& key) const {
    const int i = keys_.indexOf(key);
    return i < 0 ? nullptr : tiles_[i].view;
}

void ImageGrid::setMode(Mode m) {
    mode_ = m;
    relayout();
}
void ImageGrid::setPair(const QString& a, const QString& b) {
    pairA_ = a, pairB_ = b;
    updateOverlay();
}
void ImageGrid::setHidden(const QString& key, bool hidden) {
    if (hidden && !hidden_.contains(key)) hidden_ << key;
    if (!hidden) hidden_.removeAll(key);
    if (hidden && enlarged_ == key) enlarged_.clear();
    relayout();
    Q_EMIT hiddenChanged();
}
void ImageGrid::setEnlarged(const QString& key) {
    enlarged_ = key;
    relayout();
}

void ImageGrid::relayout() {
    for (const Tile& t : tiles_) grid_->removeWidget(t.box);
    QVector<int> shown;
    for (int i = 0; i < tiles_.size(); ++i) {
        const bool visible =
            mode_ == Mode::Grid && !hidden_.contains(keys_[i]) && (enlarged_.isEmpty() || enlarged_ == keys_[i]);
        tiles_[i].box->setVisible(visible);
        tiles_[i].enlarge->setChecked(enlarged_ == keys_[i]);
        if (visible) shown << i;
    }
    const int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(double(shown.size())))));
    for (int n = 0; n < shown.size(); ++n) grid_->addWidget(tiles_[shown[n]].box, n / cols, n % cols);
    // A wipe or a difference takes the whole grid, not a strip under the empty tiles' place.
    body_->setVisible(mode_ == Mode::Grid);
    overlayBox_->setVisible(mode_ != Mode::Grid && !keys_.isEmpty());
    placeholder_->setVisible(keys_.isEmpty() && !placeholder_->text().isEmpty());
    // Hidden tiles come back from a menu.
    QMenu* menu = showHidden_->menu();
    menu->clear();
    for (const QString& k : hidden_) {
        const int i = keys_.indexOf(k);
        menu->addAction(tiles_[i].title->text(), this, [this, k] { setHidden(k, false); });
    }
    showHidden_->setText(tr("Hidden (%1)").arg(hidden_.size()));
    showHidden_->setVisible(!hidden_.isEmpty() && mode_ == Mode::Grid);
    updateOverlay();
}

QImage ImageGrid::difference(const QImage& a, const QImage& b) {
    if (a.isNull() || b.isNull() || a.size() != b.size()) return {};
    const QImage x = a.convertToFormat(QImage::Format_RGB888), y = b.convertToFormat(QImage::Format_RGB888);
    QImage out(x.size(), QImage::Format_RGB888);
    for (int r = 0; r < x.height(); ++r) {
        const uchar *p = x.constScanLine(r), *q = y.constScanLine(r);
        uchar* o = out.scanLine(r);
        for (int k = 0; k < x.width() * 3; ++k)
            o[k] = static_cast<uchar>(std::min(255, 4 * std::abs(int(p[k]) - int(q[k]))));
    }
    return out;
}

void ImageGrid::updateOverlay() {
    if (mode_ == Mode::Grid) {
        overlay_->setWipe(QImage());
        return;
    }
    const QImage a = frame(pairA_), b = frame(pairB_);
    const int ia = keys_.indexOf(pairA_), ib = keys_.indexOf(pairB_);
    const QString ta = ia >= 0 ? tiles_[ia].title->text() : QString(),
                  tb = ib >= 0 ? tiles_[ib].title->text() : QString();
    if (mode_ == Mode::Wipe) {
        overlay_->setFrame(a);
        overlay_->setWipe(b);
        overlayCaption_->setText(tr("Wipe: %1 (left) | %2 (right)").arg(ta, tb));
    } else {
        overlay_->setWipe(QImage());
        const QImage d = difference(a, b);
        if (d.isNull()) overlay_->setPlaceholder(tr("Pick two pictures of the same size"));
        overlay_->setFrame(d);
        overlayCaption_->setText(tr("Difference |%1 − %2| (×4)").arg(ta, tb));
    }
}
