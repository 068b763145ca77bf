#pragma once
// A structured JSON caption editor with two views of one text: a form generated from a schema description
// (fields, nested objects, lists with add/remove/reorder) and the raw JSON. The raw text is the single source of
// truth: form edits rewrite it, raw edits refresh the form, and one undo stack covers both views. Text that does not
// parse, or breaks the schema, is reported inline and never replaced behind the user's back.
//
// The schema description is JSON: {"groups": {GROUP: LABEL}, KIND: [FIELD, ...]} where a FIELD is
// {"key", "label", "type": text|paragraph|integer|number|mss_range|object|list, "fields" (object), "item" (list),
// "item_label", "group", "minimum"}. No engine knowledge here: extra checks come from a validator callback.
#include <QElapsedTimer>
#include <QSet>
#include <QStringList>
#include <QWidget>
#include <functional>

#include <nlohmann/json.hpp>

class QLabel;
class QPlainTextEdit;
class QScrollArea;
class QTabWidget;
class QUndoStack;
class QVBoxLayout;
class QFormLayout;

class CaptionEditor : public QWidget {
    Q_OBJECT
public:
    using Json = nlohmann::ordered_json;
    explicit CaptionEditor(QWidget* parent = nullptr);
    ~CaptionEditor() override;

    // `schema` is the description document; `kind` picks one of its field lists ("video", "image").
    // Returns false (and keeps the previous schema) when the description is malformed.
    bool setSchema(const QByteArray& schema, const QString& kind);
    QString schemaKind() const { return kind_; }

    // Extra problems of a parsed caption (for example M:SS times past the duration); run after every change.
    void setValidator(std::function<QStringList(const QString& text)> validator);
    void revalidate();

    QString text() const { return text_; }
    // What the status line says of an empty caption ("{}" or nothing): what the user of the editor does with one.
    void setEmptyText(const QString& text);
    QString statusText() const;  // the status line, as plain text
    // Replaces the whole text as one undoable step (recall, presets, upsampled captions).
    void setText(const QString& text);
    bool isValidJson() const { return parseError_.isEmpty(); }
    QString parseError() const { return parseError_; }
    QStringList problems() const { return problems_; }
    QUndoStack* undoStack() const { return undo_; }
    // Records this editor's steps on `shared` (owned by the caller, which outlives the editor) instead of its own
    // stack: several editors of one document then undo in one history.
    void setUndoStack(QUndoStack* shared);
    // Shows `text` without recording a step: for a caller whose own undo step covers this change with others.
    void showText(const QString& text) { applyText(text, false); }

    // Streams text (a reasoner reply) into the raw view, read-only, then ends with the final caption as one
    // undoable step, or, when `finalText` is empty (failure, cancel), puts the previous text back.
    void beginStream();
    void appendStream(const QString& piece);
    void endStream(const QString& finalText);
    bool streaming() const { return streaming_; }
    int streamedPieces() const { return streamedPieces_; }        // pieces received by the last stream
    int streamFormUpdates() const { return streamFormUpdates_; }  // times the form showed the stream so far

    void showForm();
    void showRaw();
    bool formShown() const;
    // The form's editor for a JSON pointer such as "/subjects/0/description" (null when not shown).
    QWidget* fieldEditor(const QString& pointer) const;
    QPlainTextEdit* rawEditor() const { return raw_; }

Q_SIGNALS:
    void textChanged();
    void problemsChanged();

private:
    friend class CaptionTextCommand;
    void applyText(const QString& text, bool fromRaw);  // sets text_, parses, refreshes views
    void commitDocument(const Json& doc, const QString& mergeKey, bool rebuild);
    void rawEdited();
    void rebuildForm();
    void addFields(QFormLayout* form, const Json& fields, const Json& value, const std::string& pointer);
    QWidget* makeField(const Json& field, const Json* value, const std::string& pointer);
    QWidget* makeList(const Json& field, const Json* value, const std::string& pointer);
    QWidget* collapsible(const QString& title, const std::string& pointer, QWidget* content);
    void editAt(const std::string& pointer, const Json& value, bool rebuild);
    void removeAt(const std::string& pointer);
    void updateStatus();

    QTabWidget* tabs_;
    QScrollArea* formScroll_;
    QWidget* formHost_ = nullptr;
    QLabel* formBanner_;
    QPlainTextEdit* raw_;
    QLabel* status_;
    QString emptyText_;
    QUndoStack* undo_;
    Json schema_;
    QString kind_;
    std::function<QStringList(const QString&)> validator_;
    QString text_;
    Json doc_;  // the last text that parsed
    QString parseError_;
    QStringList problems_;
    bool applying_ = false;  // programmatic change of the raw view
    bool formDirty_ = true;  // the form shows an older text
    bool streaming_ = false;
    int streamedPieces_ = 0;
    QString beforeStream_;
    QString streamed_;
    QSet<QString> folded_;  // pointers of the sections the user folded
    QElapsedTimer streamClock_;
    int streamFormUpdates_ = 0;
    void showStreamInForm();
};

// An unfinished JSON text closed so that it parses ("{\"a\": \"b" -> "{\"a\": \"b\"}"); "{}" when nothing can be kept.
QString closeJsonPrefix(const QString& prefix);
