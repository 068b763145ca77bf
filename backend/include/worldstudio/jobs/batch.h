#pragma once
// Batch generation in the reference's sample-file format: JSON (one sample) and JSONL (one per non-empty line)
// files, globs expanded and sorted, names made as the reference makes them (the file's stem, or stem_INDEX for a
// JSONL line) and required to be unique, relative paths taken from the file's folder. Each sample runs through the
// same engine (Session::generate) into DIR/<name>/ with the reference's files: sample_args.json (the resolved
// request), sample_outputs.json ({"args", "status", "message", "stack_trace", "outputs": [{"content", "files"}]}) and
// vision.mp4 (vision.png for one frame), beside our record and latents. A failed sample gets its own
// sample_outputs.json with status "error" and the message (the reference writes none for it), so a resume knows
// what to run again.
#include <functional>
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"
#include "worldstudio/model/engine.h"

namespace ws {

struct BatchSample {
    std::string name;
    std::string origin;  // FILE:LINE (FILE for a .json file)
    ojson args;          // the sample as written, its relative paths resolved; `extra` kept apart
    ojson extra;         // the reference's free dict, carried into sample_outputs.json untouched
};

struct BatchInput {
    std::vector<BatchSample> samples;
    std::vector<std::string> problems;  // "FILE:LINE: why", one per refused line (the others still run)
};

// Reads sample files (paths, or globs with '*'); a file that cannot be read at all throws ws::Error naming it.
BatchInput read_batch_files(const std::vector<std::string>& paths);

// A sample's status in an output folder: "success", "error", "skip", or "" when it has not run (no or unreadable
// sample_outputs.json).
std::string batch_sample_status(const std::string& out_dir, const std::string& name);

struct BatchOptions {
    bool resume = false;  // run only the samples whose status is not "success" (missing or failed)
    std::function<void(const std::string& line)> on_log;  // console.log lines, also written to DIR/console.log
    std::function<void(size_t index, size_t total, const std::string& name, const std::string& status)> on_sample;
};

struct BatchReport {
    int succeeded = 0, failed = 0, skipped = 0;  // skipped: already done when resuming
    std::vector<std::string> failures;           // "NAME: message"
};

// Runs the samples one after another on `session`; a failing sample is recorded and the batch goes on. Cancelled
// (from cb.should_cancel) stops the batch after writing nothing for the sample it interrupted.
BatchReport run_batch(Session& session, const BatchInput& input, const std::string& out_dir,
                      const BatchOptions& options, const RunCallbacks& cb);

// A sample's folder name from free text (the studio names a job by its prompt): '/' and control characters become
// '_', cut to at most 120 bytes between characters; never "", "." or "..". A name read from a sample file must be
// one already (so a shard file written back names its samples as the user did).
std::string batch_sample_name(const std::string& text);

// Writes jobs as a JSONL sample file (one object per line, each with a unique folder name made by
// batch_sample_name, "sample_I" for a job without one): what the studio's queue exports and read_batch_files reads
// back.
void write_batch_file(const std::string& path, const std::vector<ojson>& samples);

}  // namespace ws
