#include "TabOrder.h"

#include <QFormLayout>
#include <QLayout>
#include <QWidget>

namespace {

QWidget* chainItem(QLayoutItem* item, QWidget* previous);

QWidget* chainWidget(QWidget* w, QWidget* previous) {
    // A focusable widget is one stop even when it has a layout of its own (a spin box's line edit is internal).
    if (w->focusPolicy() & Qt::TabFocus) {
        if (previous) QWidget::setTabOrder(previous, w);
        return w;
    }
    return w->layout() ? chainTabOrder(w->layout(), previous) : previous;
}

QWidget* chainItem(QLayoutItem* item, QWidget* previous) {
    if (!item) return previous;
    if (QWidget* w = item->widget()) return chainWidget(w, previous);
    if (QLayout* l = item->layout()) return chainTabOrder(l, previous);
    return previous;
}

}  // namespace

QWidget* chainTabOrder(QLayout* layout, QWidget* previous) {
    if (auto* form = qobject_cast<QFormLayout*>(layout)) {
        // A form's items are not stored in row order (rows can be inserted); walk its rows.
        for (int r = 0; r < form->rowCount(); ++r)
            for (QFormLayout::ItemRole role :
                 {QFormLayout::LabelRole, QFormLayout::FieldRole, QFormLayout::SpanningRole})
                previous = chainItem(form->itemAt(r, role), previous);
        return previous;
    }
    for (int i = 0; i < layout->count(); ++i) previous = chainItem(layout->itemAt(i), previous);
    return previous;
}
