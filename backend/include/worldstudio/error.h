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
