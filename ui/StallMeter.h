#pragma once
// How responsive the window stays: runs the event loop until `done` (or `timeoutMs`) and returns the longest gap, in
// ms, between ticks of a 2 ms timer on the UI thread, i.e. the longest time the window could not react. It waits in
// a real event loop, not a processEvents spin, which would itself take a core from the model's threads.
#include <functional>

double longestStallMs(const std::function<bool()>& done, int timeoutMs);
