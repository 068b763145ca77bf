#pragma once
// One exception type for every user-facing failure of the backend: the message is meant to be shown
// as is (it names the file, tensor or field at fault), so callers never need to decorate it.
#include <stdexcept>
#include <string>

namespace ws {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Thrown when a run is cancelled through its callbacks; distinct so that a queue can tell
// "the user stopped it" from "it failed".
class Cancelled : public Error {
public:
    Cancelled() : Error("cancelled") {}
};

}  // namespace ws

namespace ws {

// What a user is shown for any exception: a ws::Error's message as it is; another library's text without its
// internals (nlohmann's "[json.exception.type_error.302] " tag, LibTorch's C++ stack trace); std::bad_alloc as
// "out of memory". Every boundary that reports an error (CLI, job queue, studio) goes through it, so a missed
// ws::Error translation still reads as a sentence.
std::string user_message(const std::exception& e);
// Multi-line text (tensor lists) as one line: each line trimmed, empty ones dropped, joined with "; ".
std::string one_line(std::string text);

}  // namespace ws
