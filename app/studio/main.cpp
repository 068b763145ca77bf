// worldstudio: the studio window. `worldstudio [MODEL_DIR]` opens a model folder at start.
#include <QApplication>

#include "MainWindow.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("WorldStudio");
    QApplication::setOrganizationName("WorldStudio");
    MainWindow w;
    w.show();
    const QStringList args = QApplication::arguments();
    if (args.size() > 1) w.loadModel(args[1]);
    return QApplication::exec();
}
