#pragma once
// What the benchmark verbs share: a clock, the process's peak memory and running one measurement in a child process (so
// a peak is that measurement's own).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

namespace cli {

// Seconds on the steady clock.
inline double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// VmHWM of this process in KiB (-1 when /proc does not say).
inline long peak_rss_kb() {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

// Runs a shell command and returns what it printed.
inline std::string run_child(const std::string& cmd) {
    FILE* p = popen(cmd.c_str(), "r");
    char buf[512] = {0};
    std::string out;
    while (p && fgets(buf, sizeof(buf), p)) out += buf;
    if (p) pclose(p);
    return out;
}

}  // namespace cli
