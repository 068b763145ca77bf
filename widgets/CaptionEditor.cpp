#include "CaptionEditor.h"

#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QCoreApplication>
#include <QFrame>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTextDocument>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTabWidget>
#include <QTextBlock>
#include <QToolButton>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

namespace {

using Json = CaptionEditor::Json;

QString qs(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

// One change of the caption text. Consecutive edits of the same field (or raw typing) merge into one step.
class CaptionTextCommand : public QUndoCommand {
public:
    CaptionTextCommand(CaptionEditor* editor, QString before, QString after, QString mergeKey, bool alreadyShown)
        : editor_(editor),
          before_(std::move(before)),
          after_(std::move(after)),
          mergeKey_(std::move(mergeKey)),
          skipFirstRedo_(alreadyShown) {
        setText(mergeKey_.isEmpty() ? QObject::tr("Change caption") : QObject::tr("Edit %1").arg(mergeKey_));
    }
    int id() const override { return mergeKey_.isEmpty() ? -1 : 1; }
    bool mergeWith(const QUndoCommand* other) override {
        auto* o = static_cast<const CaptionTextCommand*>(other);
        if (o->mergeKey_ != mergeKey_) return false;
        after_ = o->after_;
        return true;
    }
    void redo() override {
        // The view that made the edit already shows it; the other view still has to follow.
        editor_->applyText(after_, skipFirstRedo_);
        skipFirstRedo_ = false;
    }
    void undo() override { editor_->applyText(before_, false); }

private:
    CaptionEditor* editor_;
    QString before_, after_, mergeKey_;
    bool skipFirstRedo_;
};

namespace {

// Line edits of the form leave Ctrl+Z / Ctrl+Shift+Z to the editor's one undo stack (their own would drift from it).
class FormLineEdit : public QLineEdit {
public:
    using QLineEdit::QLineEdit;

protected:
    bool event(QEvent* e) override {
        if (e->type() == QEvent::ShortcutOverride) {
            auto* k = static_cast<QKeyEvent*>(e);
            if (k->matches(QKeySequence::Undo) || k->matches(QKeySequence::Redo)) {
                e->ignore();
                return true;
            }
        }
        return QLineEdit::event(e);
    }
    void keyPressEvent(QKeyEvent* e) override {
        if (e->matches(QKeySequence::Undo) || e->matches(QKeySequence::Redo)) return e->ignore();
        QLineEdit::keyPressEvent(e);
    }
};

const Json* child(const Json& v, const std::string& key) {
    if (!v.is_object()) return nullptr;
    auto it = v.find(key);
    return it == v.end() ? nullptr : &*it;
}

bool typeMatches(const std::string& type, const Json& v) {
    if (type == "text" || type == "paragraph" || type == "mss_range") return v.is_string();
    if (type == "integer") return v.is_number_integer();
    if (type == "number") return v.is_number() || v.is_string();
    if (type == "object") return v.is_object();
    if (type == "list") return v.is_array();
    return true;
}

const char* typeWord(const std::string& type) {
    if (type == "integer") return QT_TRANSLATE_NOOP("QObject", "a whole number");
    if (type == "number") return QT_TRANSLATE_NOOP("QObject", "a number");
    if (type == "object") return QT_TRANSLATE_NOOP("QObject", "an object");
    if (type == "list") return QT_TRANSLATE_NOOP("QObject", "a list");
    return QT_TRANSLATE_NOOP("QObject", "text");
}

// The schema's labels are English in the schema file; their translations live in the "CaptionSchema" context
// (translations/caption_schema_strings.cpp lists them for lupdate).
QString schemaText(const std::string& s) { return QCoreApplication::translate("CaptionSchema", s.c_str()); }

bool validMss(const QString& t) {
    static const QRegularExpression re(QStringLiteral(R"(^\s*\d+:[0-5]\d\s*(-\s*\d+:[0-5]\d\s*)?$)"));
    return re.match(t).hasMatch();
}

// Type problems of `value` against schema `fields`, with JSON-path-like names.
void schemaProblems(const Json& fields, const Json& value, const std::string& path, QStringList* out) {
    for (const auto& f : fields) {
        const std::string key = f.value("key", "");
        const Json* v = child(value, key);
        if (!v) continue;
        const std::string type = f.value("type", "text");
        const std::string where = path.empty() ? key : path + "." + key;
        if (!typeMatches(type, *v)) {
            out->push_back(QObject::tr("'%1' should be %2").arg(qs(where), QObject::tr(typeWord(type))));
            continue;
        }
        if (type == "mss_range" && !validMss(qs(v->get<std::string>())))
            out->push_back(QObject::tr("'%1' should be M:SS or M:SS-M:SS").arg(qs(where)));
        if (type == "object") schemaProblems(f["fields"], *v, where, out);
        if (type == "list" && f.contains("item")) {
            const Json& item = f["item"];
            for (size_t i = 0; i < v->size(); ++i) {
                const std::string w = where + "[" + std::to_string(i) + "]";
                const std::string itype = item.value("type", "text");
                if (!typeMatches(itype, (*v)[i]))
                    out->push_back(QObject::tr("'%1' should be %2").arg(qs(w), QObject::tr(typeWord(itype))));
                else if (itype == "object")
                    schemaProblems(item["fields"], (*v)[i], w, out);
            }
        }
    }
}

QString lineColumn(const QString& text, size_t byte) {
    const QByteArray utf8 = text.toUtf8().left(static_cast<int>(byte));
    const int line = utf8.count('\n') + 1;
    const int column = static_cast<int>(utf8.size() - (utf8.lastIndexOf('\n') + 1));
    return QObject::tr("line %1, column %2").arg(line).arg(column);
}

}  // namespace

CaptionEditor::CaptionEditor(QWidget* parent)
    : QWidget(parent),
      tabs_(new QTabWidget(this)),
      formScroll_(new QScrollArea(this)),
      formBanner_(new QLabel(this)),
      raw_(new QPlainTextEdit(this)),
      status_(new QLabel(this)),
      undo_(new QUndoStack(this)) {
    auto* formPage = new QWidget(this);
    auto* formLayout = new QVBoxLayout(formPage);
    formLayout->setContentsMargins(0, 0, 0, 0);
    formBanner_->setWordWrap(true);
    formBanner_->setStyleSheet("QLabel { background: #fff3cd; color: #5c4400; padding: 6px; }");
    formBanner_->hide();
    formLayout->addWidget(formBanner_);
    formScroll_->setWidgetResizable(true);
    formLayout->addWidget(formScroll_);
    tabs_->addTab(formPage, tr("Form"));
    raw_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    raw_->setUndoRedoEnabled(false);  // one undo stack serves both views
    raw_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    raw_->setObjectName("rawJson");
    tabs_->addTab(raw_, tr("Raw JSON"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setObjectName("captionStatus");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs_, 1);
    layout->addWidget(status_);
    connect(raw_, &QPlainTextEdit::textChanged, this, &CaptionEditor::rawEdited);
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int i) {
        if (i == 0 && formDirty_) rebuildForm();
    });
    applyText(QStringLiteral("{}"), false);
}

CaptionEditor::~CaptionEditor() = default;

bool CaptionEditor::setSchema(const QByteArray& schema, const QString& kind) {
    try {
        Json s = Json::parse(schema.constData(), schema.constData() + schema.size());
        if (!s.contains(kind.toStdString()) || !s[kind.toStdString()].is_array()) return false;
        schema_ = std::move(s);
        kind_ = kind;
    } catch (const std::exception&) {
        return false;
    }
    applyText(text_, true);
    rebuildForm();
    return true;
}

void CaptionEditor::setValidator(std::function<QStringList(const QString&)> validator) {
    validator_ = std::move(validator);
    revalidate();
}

void CaptionEditor::revalidate() {
    problems_.clear();
    if (parseError_.isEmpty() && !schema_.is_null()) {
        schemaProblems(schema_[kind_.toStdString()], doc_, "", &problems_);
        if (validator_) problems_ << validator_(text_);
    }
    updateStatus();
    Q_EMIT problemsChanged();
}

void CaptionEditor::setText(const QString& text) {
    if (text == text_) return;
    undo_->push(new CaptionTextCommand(this, text_, text, QString(), false));
}

void CaptionEditor::setUndoStack(QUndoStack* shared) {
    if (undo_ && undo_->parent() == this) delete undo_;
    undo_ = shared;
}

void CaptionEditor::applyText(const QString& text, bool alreadyShown) {
    text_ = text;
    if (!alreadyShown || raw_->toPlainText() != text) {
        applying_ = true;
        const int pos = raw_->textCursor().position();
        raw_->setPlainText(text);
        QTextCursor c = raw_->textCursor();
        c.setPosition(std::min(pos, static_cast<int>(text.size())));
        raw_->setTextCursor(c);
        applying_ = false;
    }
    QList<QTextEdit::ExtraSelection> marks;
    try {
        const QByteArray utf8 = text.toUtf8();
        Json parsed = Json::parse(utf8.constData(), utf8.constData() + utf8.size());
        if (!parsed.is_object()) {
            parseError_ = tr("The caption must be a JSON object ({ ... }).");
        } else {
            parseError_.clear();
            doc_ = std::move(parsed);
        }
    } catch (const nlohmann::json::parse_error& e) {
        // nlohmann's message reads "[json.exception.parse_error.101] parse error at line L, column C: why".
        QString why = qs(e.what()).section("]", 1).trimmed();
        why = why.contains(": ") ? why.section(": ", 1) : why;
        parseError_ = tr("JSON error at %1: %2").arg(lineColumn(text, e.byte ? e.byte - 1 : 0), why);
        QTextEdit::ExtraSelection mark;
        const QByteArray prefix = text.toUtf8().left(static_cast<int>(e.byte ? e.byte - 1 : 0));
        mark.cursor = QTextCursor(raw_->document()->findBlockByNumber(prefix.count('\n')));
        mark.format.setBackground(QColor(255, 220, 220));
        mark.format.setProperty(QTextFormat::FullWidthSelection, true);
        marks << mark;
    }
    raw_->setExtraSelections(marks);
    formDirty_ = true;
    if (!applying_ && tabs_->currentIndex() == 0 && !alreadyShown) rebuildForm();
    revalidate();
    Q_EMIT textChanged();
}

void CaptionEditor::rawEdited() {
    if (applying_ || streaming_) return;
    const QString now = raw_->toPlainText();
    if (now == text_) return;
    undo_->push(new CaptionTextCommand(this, text_, now, QStringLiteral("raw JSON"), true));
}

void CaptionEditor::commitDocument(const Json& doc, const QString& mergeKey, bool rebuild) {
    const QString after = qs(doc.dump(2));
    if (after == text_) return;
    // A field edit leaves the form as it is (the editor already shows the value); structural edits rebuild it.
    undo_->push(new CaptionTextCommand(this, text_, after, mergeKey, !rebuild));
    if (!rebuild)
        formDirty_ = false;
    else
        rebuildForm();
}

void CaptionEditor::editAt(const std::string& pointer, const Json& value, bool rebuild) {
    if (!parseError_.isEmpty() || streaming_) return;
    Json doc = doc_;
    try {
        doc[Json::json_pointer(pointer)] = value;
    } catch (const std::exception&) {
        return;  // the path crosses a value of the wrong type; the form shows that field as a problem
    }
    commitDocument(doc, qs(pointer), rebuild);
}

void CaptionEditor::removeAt(const std::string& pointer) {
    if (!parseError_.isEmpty() || streaming_) return;
    Json doc = doc_;
    const Json::json_pointer p(pointer);
    try {
        Json& parent = doc[p.parent_pointer()];
        if (parent.is_object())
            parent.erase(p.back());
        else if (parent.is_array())
            parent.erase(static_cast<size_t>(std::stoul(p.back())));
    } catch (const std::exception&) {
        return;
    }
    commitDocument(doc, QString(), true);
}

void CaptionEditor::rebuildForm() {
    const int scroll = formScroll_->verticalScrollBar()->value();
    formHost_ = new QWidget;
    auto* form = new QFormLayout(formHost_);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    if (!schema_.is_null()) addFields(form, schema_[kind_.toStdString()], doc_, "");
    // Fields the schema does not know: text stays editable, anything else is shown and edited as raw JSON.
    QStringList known;
    if (!schema_.is_null())
        for (const auto& f : schema_[kind_.toStdString()]) known << qs(f.value("key", ""));
    bool header = false;
    for (auto it = doc_.begin(); it != doc_.end(); ++it) {
        if (known.contains(qs(it.key()))) continue;
        if (!header) {
            auto* h = new QLabel(tr("<b>Other fields</b>"));
            form->addRow(h);
            header = true;
        }
        const std::string pointer = "/" + it.key();
        if (it.value().is_string()) {
            form->addRow(qs(it.key()), makeField(Json{{"key", it.key()}, {"type", "paragraph"}}, &it.value(), pointer));
        } else {
            auto* l = new QLabel(qs(it.value().dump()).left(160) + tr("  (edit in Raw JSON)"));
            l->setWordWrap(true);
            form->addRow(qs(it.key()), l);
        }
    }
    formScroll_->setWidget(formHost_);  // deletes the previous form
    formScroll_->verticalScrollBar()->setValue(scroll);
    formDirty_ = false;
    formHost_->setEnabled(parseError_.isEmpty());  // not greyed while a reply streams in; edits wait for its end
    updateStatus();
}

void CaptionEditor::addFields(QFormLayout* form, const Json& fields, const Json& value, const std::string& pointer) {
    std::map<std::string, std::pair<QFormLayout*, QToolButton*>> groups;
    for (const auto& f : fields) {
        const std::string key = f.value("key", "");
        const std::string group = f.value("group", "");
        const Json* v = child(value, key);
        QFormLayout* target = form;
        if (!group.empty()) {
            auto g = groups.find(group);
            if (g == groups.end()) {
                // A collapsible sub-box, open when any of its fields has a value.
                auto* toggle = new QToolButton;
                toggle->setCheckable(true);
                toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
                toggle->setArrowType(Qt::RightArrow);
                toggle->setText(schemaText(schema_["groups"].value(group, group)));
                toggle->setAutoRaise(true);
                auto* box = new QWidget;
                auto* inner = new QFormLayout(box);
                inner->setContentsMargins(16, 0, 0, 0);
                box->setVisible(false);
                connect(toggle, &QToolButton::toggled, box, [toggle, box](bool on) {
                    box->setVisible(on);
                    toggle->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
                });
                form->addRow(toggle);
                form->addRow(box);
                toggle->setObjectName(qs("group:" + pointer + "/" + group));
                g = groups.emplace(group, std::make_pair(inner, toggle)).first;
            }
            target = g->second.first;
            if (v) g->second.second->setChecked(true);
        }
        const QString label = schemaText(f.value("label", key));
        const std::string type = f.value("type", "text");
        if (v && !typeMatches(type, *v)) {
            auto* warn = new QLabel(tr("⚠ should be %1; edit it in Raw JSON").arg(QObject::tr(typeWord(type))));
            warn->setStyleSheet("color: #a94442;");
            target->addRow(label, warn);
            continue;
        }
        QWidget* editor = makeField(f, v, pointer + "/" + key);
        if (type == "object" || type == "list")
            target->addRow(editor);
        else
            target->addRow(label, editor);
    }
}

QWidget* CaptionEditor::collapsible(const QString& title, const std::string& pointer, QWidget* content) {
    // A section of the form that folds away (Lighting, Cinematography, ...): open unless the user folded it; that
    // choice is kept while the form is rebuilt.
    auto* section = new QWidget;
    auto* v = new QVBoxLayout(section);
    v->setContentsMargins(0, 4, 0, 0);
    v->setSpacing(2);
    auto* toggle = new QToolButton(section);
    toggle->setObjectName(qs("section:" + pointer));
    toggle->setCheckable(true);
    toggle->setAutoRaise(true);
    toggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toggle->setText(title);
    QFont bold = toggle->font();
    bold.setBold(true);
    toggle->setFont(bold);
    const QString key = qs(pointer);
    const bool open = !folded_.contains(key);
    toggle->setChecked(open);
    toggle->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
    content->setVisible(open);
    connect(toggle, &QToolButton::toggled, this, [this, toggle, content, key](bool on) {
        content->setVisible(on);
        toggle->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
        if (on)
            folded_.remove(key);
        else
            folded_.insert(key);
    });
    v->addWidget(toggle);
    v->addWidget(content);
    return section;
}

QWidget* CaptionEditor::makeField(const Json& field, const Json* value, const std::string& pointer) {
    const std::string type = field.value("type", "text");
    const QString name = qs("field:" + pointer);
    if (type == "object") {
        auto* box = new QFrame;
        box->setObjectName(name);
        box->setFrameShape(QFrame::StyledPanel);
        auto* inner = new QFormLayout(box);
        inner->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        addFields(inner, field["fields"], value ? *value : Json::object(), pointer);
        return collapsible(schemaText(field.value("label", field.value("key", ""))), pointer, box);
    }
    if (type == "list") return makeList(field, value, pointer);
    if (type == "integer" || type == "number") {
        // -1 (shown as "not set") removes the field; other values set it.
        const double minimum = field.value("minimum", 0.0);
        QAbstractSpinBox* box;
        if (type == "integer") {
            auto* s = new QSpinBox;
            s->setRange(static_cast<int>(minimum) - 1, 1000000);
            s->setSpecialValueText(tr("not set"));
            s->setValue(value && value->is_number_integer() ? value->get<int>() : s->minimum());
            connect(s, &QSpinBox::valueChanged, this, [this, s, pointer](int v) {
                if (v == s->minimum())
                    removeAt(pointer);
                else
                    editAt(pointer, v, false);
            });
            box = s;
        } else {
            auto* s = new QDoubleSpinBox;
            s->setRange(minimum - 1, 1e6);
            s->setDecimals(2);
            s->setSpecialValueText(tr("not set"));
            double current = s->minimum();
            if (value && value->is_number())
                current = value->get<double>();
            else if (value && value->is_string())
                current = QString::fromStdString(value->get<std::string>()).toDouble();
            s->setValue(current);
            connect(s, &QDoubleSpinBox::valueChanged, this, [this, s, pointer](double v) {
                if (v == s->minimum())
                    removeAt(pointer);
                else
                    editAt(pointer, v, false);
            });
            box = s;
        }
        box->setObjectName(name);
        box->setMaximumWidth(160);
        return box;
    }
    const QString current = value && value->is_string() ? qs(value->get<std::string>()) : QString();
    if (type == "paragraph") {
        auto* e = new QPlainTextEdit(current);
        e->setObjectName(name);
        e->setTabChangesFocus(true);
        e->setFixedHeight(e->fontMetrics().lineSpacing() * 3 + 12);
        e->setUndoRedoEnabled(false);
        connect(e, &QPlainTextEdit::textChanged, this,
                [this, e, pointer] { editAt(pointer, e->toPlainText().toStdString(), false); });
        return e;
    }
    auto* e = new FormLineEdit(current);
    e->setObjectName(name);
    if (type == "mss_range") {
        e->setPlaceholderText("0:00-0:02");
        auto mark = [e] {
            e->setStyleSheet(e->text().isEmpty() || validMss(e->text()) ? "" : "border: 1px solid #c9302c;");
        };
        mark();
        connect(e, &QLineEdit::textEdited, e, mark);
    }
    connect(e, &QLineEdit::textEdited, this,
            [this, pointer](const QString& t) { editAt(pointer, t.toStdString(), false); });
    return e;
}

QWidget* CaptionEditor::makeList(const Json& field, const Json* value, const std::string& pointer) {
    const Json& item = field["item"];
    const QString itemLabel = schemaText(field.value("item_label", "Item"));
    auto* box = new QFrame;
    box->setFrameShape(QFrame::StyledPanel);
    box->setObjectName(qs("field:" + pointer));
    auto* layout = new QVBoxLayout(box);
    const size_t n = value ? value->size() : 0;
    for (size_t i = 0; i < n; ++i) {
        const std::string itemPointer = pointer + "/" + std::to_string(i);
        auto* row = new QWidget;
        auto* rowLayout = new QVBoxLayout(row);
        rowLayout->setContentsMargins(0, 0, 0, 0);
        auto* header = new QHBoxLayout;
        header->addWidget(new QLabel(QStringLiteral("<b>%1 %2</b>").arg(itemLabel).arg(i + 1)));
        header->addStretch(1);
        auto button = [&](const QString& text, const QString& tip, const QString& id, bool enabled, auto action) {
            auto* b = new QToolButton;
            b->setText(text);
            b->setToolTip(tip);
            b->setObjectName(qs("button:" + itemPointer + "/") + id);
            b->setEnabled(enabled);
            connect(b, &QToolButton::clicked, this, action);
            header->addWidget(b);
        };
        button(QStringLiteral("↑"), tr("Move up"), "up", i > 0, [this, pointer, i] {
            Json doc = doc_;
            Json& list = doc[Json::json_pointer(pointer)];
            std::swap(list[i - 1], list[i]);
            commitDocument(doc, QString(), true);
        });
        button(QStringLiteral("↓"), tr("Move down"), "down", i + 1 < n, [this, pointer, i] {
            Json doc = doc_;
            Json& list = doc[Json::json_pointer(pointer)];
            std::swap(list[i], list[i + 1]);
            commitDocument(doc, QString(), true);
        });
        button(QStringLiteral("✕"), tr("Remove %1 %2").arg(itemLabel).arg(i + 1), "remove", true,
               [this, itemPointer] { removeAt(itemPointer); });
        rowLayout->addLayout(header);
        const Json& v = (*value)[i];
        const std::string itype = item.value("type", "text");
        if (!typeMatches(itype, v)) {
            auto* warn = new QLabel(tr("⚠ should be %1; edit it in Raw JSON").arg(QObject::tr(typeWord(itype))));
            warn->setStyleSheet("color: #a94442;");
            rowLayout->addWidget(warn);
        } else if (itype == "object") {
            auto* inner = new QFormLayout;
            inner->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
            inner->setContentsMargins(12, 0, 0, 0);
            addFields(inner, item["fields"], v, itemPointer);
            rowLayout->addLayout(inner);
        } else {
            rowLayout->addWidget(makeField(item, &v, itemPointer));
        }
        layout->addWidget(row);
    }
    auto* add = new QPushButton(tr("Add %1").arg(itemLabel.toLower()));
    add->setObjectName(qs("button:" + pointer + "/add"));
    connect(add, &QPushButton::clicked, this, [this, pointer, item] {
        Json doc = doc_;
        Json& list = doc[Json::json_pointer(pointer)];
        if (!list.is_array()) list = Json::array();
        list.push_back(item.value("type", "text") == "object" ? Json::object() : Json(""));
        commitDocument(doc, QString(), true);
    });
    layout->addWidget(add, 0, Qt::AlignLeft);
    return collapsible(schemaText(field.value("label", field.value("key", ""))), pointer, box);
}

QString CaptionEditor::statusText() const {
    QTextDocument d;
    d.setHtml(status_->text());
    return d.toPlainText();
}

void CaptionEditor::setEmptyText(const QString& text) {
    emptyText_ = text;
    updateStatus();
}

void CaptionEditor::updateStatus() {
    if (streaming_) {
        status_->setText(tr("Receiving the upsampled caption..."));
        formBanner_->setText(tr("The reasoner is writing the caption; the form follows when it is done."));
        formBanner_->show();
        return;
    }
    if (!parseError_.isEmpty()) {
        status_->setText(QStringLiteral("<span style='color:#e06c75'>✗ %1</span>").arg(parseError_.toHtmlEscaped()));
        formBanner_->setText(
            tr("The raw JSON does not parse (%1). The form shows the last valid caption; fix the text in "
               "Raw JSON. Nothing has been changed.")
                .arg(parseError_));
        formBanner_->show();
    } else if (!problems_.isEmpty()) {
        QStringList items;
        for (const auto& p : problems_) items << p.toHtmlEscaped();
        status_->setText(QStringLiteral("<span style='color:#d19a66'>⚠ %1</span>").arg(items.join("<br>⚠ ")));
        formBanner_->hide();
    } else if (const QString t = QString(text_).remove(QRegularExpression(QStringLiteral("\\s")));
               (t.isEmpty() || t == "{}") && !emptyText_.isEmpty()) {
        status_->setText(emptyText_.toHtmlEscaped());  // nothing to validate: say what an empty one means
        formBanner_->hide();
    } else {
        status_->setText(QStringLiteral("<span style='color:#6fbf73'>✓ %1</span>").arg(tr("Valid caption")));
        formBanner_->hide();
    }
    if (formHost_) formHost_->setEnabled(parseError_.isEmpty());
}

void CaptionEditor::beginStream() {
    if (streaming_) return;
    beforeStream_ = text_;
    streaming_ = true;
    streamedPieces_ = 0;
    streamed_.clear();
    raw_->setReadOnly(true);
    applying_ = true;
    raw_->clear();
    applying_ = false;
    streamClock_.start();
    updateStatus();
}

void CaptionEditor::appendStream(const QString& piece) {
    if (!streaming_) return;
    ++streamedPieces_;
    streamed_ += piece;
    applying_ = true;
    QTextCursor c(raw_->document());
    c.movePosition(QTextCursor::End);
    c.insertText(piece);
    raw_->verticalScrollBar()->setValue(raw_->verticalScrollBar()->maximum());
    applying_ = false;
    // The form fills in as the reply arrives, when the form is what the user is looking at (a few times a second:
    // rebuilding it per token would cost more than the reasoner).
    if (formShown() && streamClock_.elapsed() >= 150) {
        streamClock_.restart();
        showStreamInForm();
    }
}

void CaptionEditor::showStreamInForm() {
    const Json partial = Json::parse(closeJsonPrefix(streamed_).toStdString(), nullptr, false);
    if (!partial.is_object()) return;
    const Json keep = doc_;
    doc_ = partial;
    rebuildForm();  // edits are ignored while streaming (editAt, removeAt)
    doc_ = keep;
    formDirty_ = true;
    streamFormUpdates_++;
}

void CaptionEditor::endStream(const QString& finalText) {
    if (!streaming_) return;
    streaming_ = false;
    raw_->setReadOnly(false);
    applyText(beforeStream_, false);  // the stream was a display only
    // One undoable step: Ctrl+Z brings back the caption as it was before, hand edits included.
    if (!finalText.isEmpty()) setText(finalText);
    rebuildForm();
}

QString closeJsonPrefix(const QString& prefix) {
    // Closes an unfinished JSON text (a reply still streaming) so that it parses: the open string and brackets are
    // closed; a dangling key, colon or comma is cut back to the last complete member. One scan gives both the
    // closing text and where to cut when closing alone does not parse.
    const int start = prefix.indexOf('{');  // a reply may open with a code fence or a word before its object
    if (start < 0) return QStringLiteral("{}");
    QString s = prefix.mid(start);
    for (int attempt = 0; attempt < 64 && !s.isEmpty(); ++attempt) {
        QString stack;
        bool inString = false, escape = false;
        int cut = -1;  // just before the last comma, or just after the last opening bracket, outside strings
        for (int i = 0; i < s.size(); ++i) {
            const QChar ch = s[i];
            if (inString) {
                if (escape)
                    escape = false;
                else if (ch == '\\')
                    escape = true;
                else if (ch == '"')
                    inString = false;
                continue;
            }
            if (ch == '"')
                inString = true;
            else if (ch == '{')
                stack += '}', cut = i + 1;
            else if (ch == '[')
                stack += ']', cut = i + 1;
            else if ((ch == '}' || ch == ']') && !stack.isEmpty())
                stack.chop(1);
            else if (ch == ',')
                cut = i;
        }
        QString closed = s;
        if (inString) closed += escape ? QStringLiteral("\\\"") : QStringLiteral("\"");
        for (int i = stack.size() - 1; i >= 0; --i) closed += stack[i];
        if (nlohmann::json::accept(closed.toStdString())) return closed;
        if (cut < 0 || cut >= s.size())
            s.chop(1);
        else
            s = s.left(cut);
    }
    return QStringLiteral("{}");
}

void CaptionEditor::showForm() {
    tabs_->setCurrentIndex(0);
    if (formDirty_) rebuildForm();
}
void CaptionEditor::showRaw() { tabs_->setCurrentIndex(1); }
bool CaptionEditor::formShown() const { return tabs_->currentIndex() == 0; }

QWidget* CaptionEditor::fieldEditor(const QString& pointer) const {
    return formHost_ ? formHost_->findChild<QWidget*>("field:" + pointer) : nullptr;
}
