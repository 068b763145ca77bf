#pragma once
// Several pictures of one moment side by side: a tile per source (a camera, the ground truth, a rollout) with its
// title and a line of figures, each tile hideable and enlargeable (the others step aside until it is shrunk again),
// or two of them overlaid as a wipe (drag the divider) or as their absolute difference. Pictures and titles only.
#include <QImage>
#include <QVector>
#include <QWidget>

class QGridLayout;
class QLabel;
class QToolButton;
class VideoView;

class ImageGrid : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Grid, Wipe, Difference };
    explicit ImageGrid(QWidget* parent = nullptr);

    // The tiles, by key (kept across calls so hidden and enlarged tiles stay so).
    void setTiles(const QStringList& keys, const QStringList& titles);
    QStringList keys() const { return keys_; }
    void setFrame(const QString& key, const QImage& image, const QString& caption = QString());
    QImage frame(const QString& key) const;
    void setMode(Mode m);
    Mode mode() const { return mode_; }
    // The two tiles a wipe or a difference overlays (A left / first, B right / subtracted).
    void setPair(const QString& a, const QString& b);
    void setHidden(const QString& key, bool hidden);
    bool isHidden(const QString& key) const { return hidden_.contains(key); }
    void setEnlarged(const QString& key);  // "" shows every visible tile again
    QString enlarged() const { return enlarged_; }
    VideoView* view(const QString& key) const;  // the tile's picture (null when absent)
    VideoView* overlay() const { return overlay_; }
    void setPlaceholder(const QString& text);  // shown while there is no tile
    // Per pixel |a - b| of two same-sized pictures, brightened x4 so small differences show.
    static QImage difference(const QImage& a, const QImage& b);

Q_SIGNALS:
    void hiddenChanged();

private:
    struct Tile {
        QWidget* box;
        QLabel *title, *caption;
        VideoView* view;
        QToolButton *hide, *enlarge;
        QImage image;
    };
    void relayout();
    void updateOverlay();
    QStringList keys_;
    QVector<Tile> tiles_;
    QGridLayout* grid_;
    VideoView* overlay_;
    QLabel* overlayCaption_;
    QWidget* overlayBox_;
    QWidget* body_;  // the tiles: hidden while a wipe or a difference fills the whole grid
    QToolButton* showHidden_;
    QLabel* placeholder_;
    Mode mode_ = Mode::Grid;
    QString pairA_, pairB_, enlarged_;
    QStringList hidden_;
};
