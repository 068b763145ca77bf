#pragma once
// Robot datasets: LeRobot v3.0 / v2.1 / v2.0 folders (Parquet through our own reader, videos through FFmpeg) and
// Pico World episodes seen as the same kind of dataset. Torch-free, so the studio may use it. Every failure is a
// ws::Error naming the file (and the column or page) at fault.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "worldstudio/core/frames.h"
#include "worldstudio/core/pyjson.h"
#include "worldstudio/pico/world.h"

namespace ws::robotics {

// The element types a per-frame column can hold (Parquet physical type and annotation, as LeRobot uses them).
enum class ValueKind { Bool, Int32, Int64, Float32, Float64, String };
const char* value_kind_name(ValueKind k);  // "bool", "int32", "int64", "float32", "float64", "string"

// One column of rows: scalars (depth 0) or lists nested `depth` deep. Leaf values are stored flat in `reals`
// (Float32/Float64), `ints` (Bool/Int32/Int64) or `strings`; offsets[k] maps each item of level k (level 0 = rows)
// to its first child at level k + 1 and has one entry more than there are items. A null list reads as empty;
// a null leaf keeps its slot and is flagged in `nulls` (empty when nothing is null).
struct Column {
    std::string name;
    ValueKind kind = ValueKind::Float64;
    int depth = 0;
    std::vector<double> reals;
    std::vector<int64_t> ints;
    std::vector<std::string> strings;
    std::vector<uint8_t> nulls;
    std::vector<std::vector<int64_t>> offsets;

    int64_t rows() const;
    size_t leaf_count() const;
    bool is_real() const { return kind == ValueKind::Float32 || kind == ValueKind::Float64; }
    bool is_int() const { return kind == ValueKind::Bool || kind == ValueKind::Int32 || kind == ValueKind::Int64; }
    bool null(size_t leaf) const { return !nulls.empty() && nulls[leaf]; }
    double real(size_t leaf) const;      // any numeric leaf as a double
    int64_t integer(size_t leaf) const;  // any integer leaf; a real one truncated
    // The leaves of row `row` (depth 0: one; depth >= 1: all leaves below it, flattened).
    std::pair<size_t, size_t> leaf_range(int64_t row) const;
    std::vector<double> row_reals(int64_t row) const;
    ojson row_json(int64_t row) const;  // scalar, or nested arrays; null leaves as null
    ojson values_json() const;          // every row
    Column slice(int64_t row_begin, int64_t row_end) const;
    void append(const Column& other);  // same kind and depth
};

struct Feature {
    std::string key;
    std::string dtype;  // float32, float64, int64, bool, string, video, image
    std::vector<int64_t> shape;
    ojson names;  // list, object or null, as info.json has it
    ojson json;   // the whole info.json entry
};

struct Task {
    int64_t index = 0;
    std::string text;
};

struct DatasetInfo {
    std::string codebase_version;  // v3.0, v2.1, v2.0
    double fps = 0;
    int64_t total_episodes = 0, total_frames = 0, total_tasks = 0;
    std::string robot_type;
    std::vector<Feature> features;  // info.json order
    std::vector<std::string> video_keys;
    std::vector<Task> tasks;  // by task_index
    ojson json;               // meta/info.json as read (or as the Pico source describes itself)
    const Feature* feature(const std::string& key) const;
};

// Where an episode's frames of one camera are: frame i is at from_timestamp + timestamp[i] of `file`.
struct CameraRef {
    std::string key;
    std::string file;  // relative to the dataset folder ("" for the Pico source)
    double from_timestamp = 0, to_timestamp = 0;
};

struct EpisodeInfo {
    int64_t index = 0;
    int64_t length = 0;
    std::vector<std::string> tasks;
    int64_t dataset_from_index = 0, dataset_to_index = 0;  // global rows [from, to)
    std::string data_file;                                 // relative to the dataset folder
    std::vector<CameraRef> cameras;
    int64_t seed = -1;  // the Pico source's simulator seed
    std::string scene;  // the Pico source's scene
};

class Dataset {
public:
    // A LeRobot folder (meta/info.json with codebase_version v3.0, v2.1 or v2.0).
    static Dataset open(const std::string& dir);
    // Pico World: episode i is ws::pico::simulate(first_seed + i, options), its first N of N + 1 frames.
    static Dataset pico(uint64_t first_seed, int count, const pico::Options& options = {});

    const std::string& dir() const;  // "" for the Pico source
    bool is_pico() const;
    const DatasetInfo& info() const;
    const std::vector<EpisodeInfo>& episodes() const;
    const EpisodeInfo& episode(int64_t episode_index) const;  // throws naming the dataset when absent

    // Every per-frame column of an episode, in the data file's order.
    std::vector<Column> columns(int64_t episode_index) const;
    // Frames [first, first + count) of one camera (count < 0: to the episode's end) as RGB24.
    VideoFrames frames(int64_t episode_index, const std::string& camera, int64_t first = 0, int64_t count = -1) const;

    ojson stats() const;  // meta/stats.json (null when absent)
    ojson episode_stats(
        int64_t episode_index) const;  // v2.1 episodes_stats.jsonl, v3 stats/ columns (null when absent)
    // The data Parquet files, relative to dir(), each once.
    std::vector<std::string> data_files() const;

    // What `worldstudio-cli dataset info --json` prints: codebase_version, fps, total_episodes, total_frames,
    // total_tasks, features (dtype, shape, names), video_keys, tasks.
    ojson info_json() const;
    // What `dataset episode --json` prints: episode_index, length, tasks, dataset_from_index, dataset_to_index,
    // data_file, columns {name: {values}}, cameras {key: {file, from_timestamp, to_timestamp, frame_count, width,
    // height}} (frame_count from decoding), and source for the Pico source.
    ojson episode_json(int64_t episode_index) const;

    struct Impl;

private:
    std::shared_ptr<const Impl> impl_;
};

// Writes `source` as a LeRobot v3.0 dataset in `dir`: meta/info.json, meta/stats.json, meta/tasks.parquet,
// meta/episodes/chunk-000/file-000.parquet, data/chunk-000/file-000.parquet (one row group per episode) and one
// H.264 MP4 per camera holding every episode back to back.
void export_lerobot_v3(const Dataset& source, const std::string& dir);

// Reads every column of every data Parquet file once: what `dataset bench` times.
struct ReadStats {
    int64_t rows = 0, bytes = 0, values = 0;
    int files = 0;
};
ReadStats read_all_data(const Dataset& dataset);

}  // namespace ws::robotics
