#pragma once
// The settings form's rows made from the request schema (worldstudio/model/request_schema.h): a widget for every
// field the schema marks for the form, with the schema's range, step, fallback, label and tooltip, translated in the
// "RequestSchema" context. The panel places the rows it lays out itself; the rest it appends, so a field added to
// the schema reaches the form, the request and recall without code here.
#include <QObject>
#include <QString>
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"

class QWidget;

class RequestFields : public QObject {
    Q_OBJECT
public:
    explicit RequestFields(QWidget* parent);

    const std::vector<std::string>& names() const { return names_; }  // the schema's order
    QWidget* widget(const std::string& name) const;                   // nullptr for a field the form does not show
    QString label(const std::string& name) const;  // translated; "" for a check box (its text says it)
    bool appliesTo(const std::string& name, const QString& mode) const;
    ws::ojson value(const std::string& name) const;
    // Shows `value` (a number, a string of a choice, a bool); a value the widget cannot show is left out.
    void setValue(const std::string& name, const ws::ojson& value);
    ws::ojson fallback(const std::string& name) const;

Q_SIGNALS:
    void changed();

private:
    std::vector<std::string> names_;
    std::vector<QWidget*> widgets_;
};
