#pragma once
// The Help menu's windows and the language menu: the keyboard shortcuts (a non-modal list made from the window's own
// actions, so it never goes stale), the user guide, and About (versions, the loaded model's card).
#include <QString>

class MainWindow;
class QMenu;

class StudioHelp {
public:
    static void showShortcuts(MainWindow* window);
    static void showGuide(MainWindow* window);
    static void showAbout(MainWindow* window, const QString& modelSummaryJson);
    // The languages with a translation, the system's first; a choice takes effect at the next start.
    static void fillLanguageMenu(MainWindow* window, QMenu* menu);
    // Where the user guide is: installed under share/doc, or docs/ beside a build; empty when neither exists.
    static QString guidePath();
    // The shortcut list as text ("Ctrl+U\tUpsample prompt" lines), for the dialog and its test.
    static QString shortcutsText(MainWindow* window);
};
