#pragma once
// `worldstudio --benchmark`: the studio's own figures, printed as JSON: time to the first painted window, the
// longest stall of the UI thread while jobs generate (goal < 50 ms), and what the live previews cost per denoising
// step (goal < 3 %: the same job, `jobs` times with previews and as often without, alternating, medians). It runs
// in scratch data and settings folders.
#include <QElapsedTimer>

class QApplication;

int runStudioBenchmark(QApplication& app, const QElapsedTimer& sinceMain, int jobs);

// `worldstudio --benchmark-robotics`: the Robotics workspace's figures as JSON: the longest UI stall while Pico World
// episodes open, while `rollouts` 3-chunk forward-dynamics rollouts generate (goal < 50 ms) and while two chunks
// are played from the keyboard, with each rollout's time and each played chunk's latency.
int runRoboticsBenchmark(int rollouts);

// `worldstudio --benchmark-io`: the longest UI stall (goal < 50 ms) while a library of `items` outputs is searched as
// the user types, while a 480p clip is exported (MP4, PNG frames, WAV), and while disagreements of a 600-item
// evaluation project are adjudicated from the keyboard (io_benchmark.cpp).
int runInteractionBenchmark(int items);
