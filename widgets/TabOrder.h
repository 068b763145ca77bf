#pragma once
// Tab order that follows what the eye sees: Qt's default chain is the order the widgets were created in, which for a
// form built from members made up front (then placed row by row) jumps around the form.
class QLayout;
class QWidget;

// Chains every tab-focusable widget under `layout` in layout order (a form's rows top to bottom, each box layout left
// to right, into nested containers), after `previous` when given. Returns the last widget chained (or `previous`).
QWidget* chainTabOrder(QLayout* layout, QWidget* previous = nullptr);
