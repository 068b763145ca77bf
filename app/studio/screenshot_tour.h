#pragma once
// `worldstudio --screenshots DIR`: the pictures of the user guide, made from the real window. It waits for the model,
// upsamples and generates one short job, then saves the window in each workspace and in the main workflows, and quits.
#include <QString>

class MainWindow;

void startScreenshotTour(MainWindow* window, const QString& dir);
