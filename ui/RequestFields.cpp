#include "RequestFields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QWidget>
#include <algorithm>
#include <cmath>
#include <limits>

#include "worldstudio/model/request_schema.h"

namespace {

QString translated(const std::string& text) {
    return text.empty() ? QString() : QCoreApplication::translate("RequestSchema", text.c_str());
}

double clampToInt(double v) {
    return std::clamp(v, double(std::numeric_limits<int>::min()), double(std::numeric_limits<int>::max()));
}

QWidget* makeWidget(const ws::RequestField& f, QWidget* parent, RequestFields* owner) {
    const QString tip = translated(f.help);
    QWidget* w = nullptr;
    switch (f.kind) {
        case ws::FieldKind::Integer: {
            auto* b = new QSpinBox(parent);
            b->setRange(int(clampToInt(f.min)), int(clampToInt(f.max)));
            b->setSingleStep(int(f.step));
            if (f.fallback.is_number()) b->setValue(f.fallback.get<int>());
            QObject::connect(b, qOverload<int>(&QSpinBox::valueChanged), owner, &RequestFields::changed);
            w = b;
            break;
        }
        case ws::FieldKind::Number: {
            auto* b = new QDoubleSpinBox(parent);
            b->setDecimals(f.decimals);
            // An open lower bound: the smallest step above it.
            b->setRange(f.min_open ? f.min + std::pow(10.0, -f.decimals) : f.min, f.max);
            b->setSingleStep(f.step);
            if (f.fallback.is_number()) b->setValue(f.fallback.get<double>());
            QObject::connect(b, qOverload<double>(&QDoubleSpinBox::valueChanged), owner, &RequestFields::changed);
            w = b;
            break;
        }
        case ws::FieldKind::Boolean: {
            auto* b = new QCheckBox(translated(f.label), parent);
            b->setChecked(f.fallback.is_boolean() && f.fallback.get<bool>());
            QObject::connect(b, &QCheckBox::toggled, owner, &RequestFields::changed);
            w = b;
            break;
        }
        case ws::FieldKind::Choice: {
            auto* b = new QComboBox(parent);
            for (const ws::FieldChoice& c : f.choices) b->addItem(translated(c.label), QString::fromStdString(c.value));
            if (f.fallback.is_string())
                b->setCurrentIndex(std::max(0, b->findData(QString::fromStdString(f.fallback.get<std::string>()))));
            QObject::connect(b, qOverload<int>(&QComboBox::currentIndexChanged), owner, &RequestFields::changed);
            w = b;
            break;
        }
        default: {
            auto* e = new QLineEdit(parent);
            if (f.fallback.is_string()) e->setText(QString::fromStdString(f.fallback.get<std::string>()));
            QObject::connect(e, &QLineEdit::textChanged, owner, &RequestFields::changed);
            w = e;
            break;
        }
    }
    if (auto* s = qobject_cast<QAbstractSpinBox*>(w)) {
        s->setMaximumWidth(f.unit.empty() && f.special_value.empty() ? 110 : 200);
        if (!f.special_value.empty()) s->setSpecialValueText(translated(f.special_value));
        if (auto* i = qobject_cast<QSpinBox*>(w)) i->setSuffix(translated(f.unit));
        if (auto* d = qobject_cast<QDoubleSpinBox*>(w)) d->setSuffix(translated(f.unit));
    }
    w->setObjectName(QString::fromStdString(f.name));
    w->setToolTip(tip);
    return w;
}

}  // namespace

RequestFields::RequestFields(QWidget* parent) : QObject(parent) {
    for (const ws::RequestField& f : ws::request_fields()) {
        if (!f.form) continue;
        names_.push_back(f.name);
        widgets_.push_back(makeWidget(f, parent, this));
    }
}

QWidget* RequestFields::widget(const std::string& name) const {
    const auto it = std::find(names_.begin(), names_.end(), name);
    return it == names_.end() ? nullptr : widgets_[size_t(it - names_.begin())];
}

QString RequestFields::label(const std::string& name) const {
    const ws::RequestField* f = ws::request_field(name);
    return f && f->kind != ws::FieldKind::Boolean ? translated(f->label) : QString();
}

bool RequestFields::appliesTo(const std::string& name, const QString& mode) const {
    const ws::RequestField* f = ws::request_field(name);
    return f && ws::mode_in(f->modes, ws::mode_from_name(mode.toStdString()));
}

ws::ojson RequestFields::fallback(const std::string& name) const {
    const ws::RequestField* f = ws::request_field(name);
    return f ? f->fallback : ws::ojson();
}

ws::ojson RequestFields::value(const std::string& name) const {
    QWidget* w = widget(name);
    if (auto* b = qobject_cast<QSpinBox*>(w)) return b->value();
    if (auto* b = qobject_cast<QDoubleSpinBox*>(w))
        return b->decimals() == 0 ? ws::ojson(int64_t(b->value())) : ws::ojson(b->value());
    if (auto* b = qobject_cast<QCheckBox*>(w)) return b->isChecked();
    if (auto* b = qobject_cast<QComboBox*>(w)) return b->currentData().toString().toStdString();
    if (auto* e = qobject_cast<QLineEdit*>(w)) return e->text().toStdString();
    return ws::ojson();
}

void RequestFields::setValue(const std::string& name, const ws::ojson& v) {
    QWidget* w = widget(name);
    if (auto* b = qobject_cast<QSpinBox*>(w); b && v.is_number())
        b->setValue(int(clampToInt(v.get<double>())));
    else if (auto* d = qobject_cast<QDoubleSpinBox*>(w); d && v.is_number())
        d->setValue(v.get<double>());
    else if (auto* c = qobject_cast<QCheckBox*>(w); c && v.is_boolean())
        c->setChecked(v.get<bool>());
    else if (auto* x = qobject_cast<QComboBox*>(w); x && v.is_string()) {
        const int i = x->findData(QString::fromStdString(v.get<std::string>()));
        if (i >= 0) x->setCurrentIndex(i);
    } else if (auto* e = qobject_cast<QLineEdit*>(w); e && v.is_string()) {
        e->setText(QString::fromStdString(v.get<std::string>()));
    }
}
