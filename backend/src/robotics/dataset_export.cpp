// Any Dataset (the Pico source first of all) written as a LeRobot v3.0 folder: every episode in one data file
// (a row group each) and one H.264 MP4 per camera, episodes back to back.
#include <filesystem>
#include <fstream>

#include "robotics/dataset_internal.h"
#include "robotics/parquet.h"
#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"

namespace fs = std::filesystem;

namespace ws::robotics {

namespace {

Column scalar_column(const std::string& name, ValueKind kind) {
    Column c;
    c.name = name, c.kind = kind;
    return c;
}

Column list_column(const std::string& name, ValueKind kind) {
    Column c = scalar_column(name, kind);
    c.depth = 1;
    c.offsets = {{0}};
    return c;
}

void write_json(const std::string& path, const ojson& j) {
    std::ofstream f(path, std::ios::binary);
    f << j.dump(4) << "\n";
    if (!f) throw Error(path + ": cannot write");
}

// meta/tasks.parquet, meta/stats.json over every exported row, and meta/info.json.
void write_tasks_stats_and_info(const Dataset& src, const std::string& dir, const std::vector<Column>& joined,
                                int64_t rows) {
    const DatasetInfo& info = src.info();
    const auto& episodes = src.episodes();
    Column task_index = scalar_column("task_index", ValueKind::Int64), task = scalar_column("task", ValueKind::String);
    for (const auto& t : info.tasks) task_index.ints.push_back(t.index), task.strings.push_back(t.text);
    parquet::write_file((fs::path(dir) / "meta/tasks.parquet").string(),
                        {{"task_index", ValueKind::Int64, 0, true}, {"task", ValueKind::String, 0, true}},
                        {{task_index, task}});

    ojson stats = ojson::object();
    for (const Column& c : joined) {
        ojson s = detail::column_stats(c);
        if (!s.is_null()) stats[c.name] = s;
    }
    write_json((fs::path(dir) / "meta/stats.json").string(), stats);

    ojson features = ojson::object();
    for (const auto& f : info.features) {
        ojson j = f.json;
        if (f.dtype == "video" && j.contains("info") && j["info"].is_object())
            j["info"]["video.codec"] = "h264", j["info"]["video.pix_fmt"] = "yuv420p";
        features[f.key] = j;
    }
    const ojson fps = info.json.contains("fps") ? info.json["fps"] : ojson(info.fps);
    const ojson out = {{"codebase_version", "v3.0"},
                       {"fps", fps},
                       {"features", features},
                       {"total_episodes", static_cast<int64_t>(episodes.size())},
                       {"total_frames", rows},
                       {"total_tasks", static_cast<int64_t>(info.tasks.size())},
                       {"chunks_size", 1000},
                       {"data_files_size_in_mb", 100},
                       {"video_files_size_in_mb", 200},
                       {"data_path", "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet"},
                       {"video_path", "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4"},
                       {"robot_type", info.robot_type.empty() ? ojson(nullptr) : ojson(info.robot_type)},
                       {"splits", {{"train", "0:" + std::to_string(episodes.size())}}}};
    write_json((fs::path(dir) / "meta/info.json").string(), out);
}

}  // namespace

void export_lerobot_v3(const Dataset& src, const std::string& dir) {
    const DatasetInfo& info = src.info();
    const auto& episodes = src.episodes();
    if (episodes.empty()) throw Error(dir + ": nothing to export (the dataset has no episodes)");
    std::error_code ec;
    fs::create_directories(fs::path(dir) / "meta" / "episodes" / "chunk-000", ec);
    fs::create_directories(fs::path(dir) / "data" / "chunk-000", ec);
    if (ec) throw Error(dir + ": cannot create the dataset folders (" + ec.message() + ")");
    const std::string data_rel = "data/chunk-000/file-000.parquet";

    std::vector<parquet::WriteColumn> schema;
    std::vector<std::vector<Column>> groups;
    std::vector<Column> joined;  // every episode's columns, for stats.json
    std::vector<ojson> episode_stats;
    int64_t row = 0;
    for (size_t k = 0; k < episodes.size(); ++k) {
        std::vector<Column> cols = src.columns(episodes[k].index);
        // LeRobot wants episodes numbered 0..N-1 and global rows counted over the export.
        for (Column& c : cols) {
            if (c.depth == 0 && c.is_int() && (c.name == "episode_index" || c.name == "index"))
                for (size_t r = 0; r < c.ints.size(); ++r)
                    c.ints[r] = c.name == "index" ? row + static_cast<int64_t>(r) : static_cast<int64_t>(k);
        }
        if (k == 0) {
            for (const Column& c : cols) schema.push_back({c.name, c.kind, c.depth, true});
            joined = cols;
        } else {
            if (cols.size() != schema.size())
                throw Error(dir + ": episode " + std::to_string(episodes[k].index) +
                            " has other columns than the first");
            for (size_t i = 0; i < cols.size(); ++i) {
                if (cols[i].name != schema[i].name || cols[i].kind != schema[i].kind ||
                    cols[i].depth != schema[i].depth)
                    throw Error(dir + ": column '" + cols[i].name + "' of episode " +
                                std::to_string(episodes[k].index) + " differs from the first episode's");
                joined[i].append(cols[i]);
            }
        }
        ojson st = ojson::object();
        for (const Column& c : cols) {
            ojson s = detail::column_stats(c);
            if (!s.is_null()) st[c.name] = s;
        }
        episode_stats.push_back(st);
        row += cols.empty() ? 0 : cols[0].rows();
        groups.push_back(std::move(cols));
    }
    parquet::write_file((fs::path(dir) / data_rel).string(), schema, groups);

    // Videos: every episode's frames back to back; episode k starts at its first global row / fps.
    std::vector<std::vector<std::pair<double, double>>> spans(info.video_keys.size());
    for (size_t v = 0; v < info.video_keys.size(); ++v) {
        const std::string& key = info.video_keys[v];
        VideoFrames all;
        all.fps = info.fps;
        int64_t frames = 0;
        for (const auto& e : episodes) {
            VideoFrames f = src.frames(e.index, key);
            if (all.count == 0) all.width = f.width, all.height = f.height;
            if (f.width != all.width || f.height != all.height)
                throw Error(dir + ": camera '" + key + "' changes picture size between episodes");
            all.rgb.insert(all.rgb.end(), f.rgb.begin(), f.rgb.end());
            all.count += f.count;
            spans[v].push_back(
                {static_cast<double>(frames) / info.fps, static_cast<double>(frames + f.count) / info.fps});
            frames += f.count;
        }
        const fs::path out = fs::path(dir) / "videos" / key / "chunk-000";
        fs::create_directories(out, ec);
        write_mp4((out / "file-000.mp4").string(), all, nullptr, "");
    }

    // meta/episodes: one row per episode.
    std::vector<Column> ep;
    std::vector<parquet::WriteColumn> ep_schema;
    auto add = [&](Column c) {
        ep_schema.push_back({c.name, c.kind, c.depth, true});
        ep.push_back(std::move(c));
    };
    Column index = scalar_column("episode_index", ValueKind::Int64), tasks = list_column("tasks", ValueKind::String);
    Column length = scalar_column("length", ValueKind::Int64),
           dchunk = scalar_column("data/chunk_index", ValueKind::Int64);
    Column dfile = scalar_column("data/file_index", ValueKind::Int64),
           from = scalar_column("dataset_from_index", ValueKind::Int64);
    Column to = scalar_column("dataset_to_index", ValueKind::Int64);
    int64_t first = 0;
    for (size_t k = 0; k < episodes.size(); ++k) {
        const int64_t n = groups[k].empty() ? 0 : groups[k][0].rows();
        index.ints.push_back(static_cast<int64_t>(k));
        for (const auto& t : episodes[k].tasks) tasks.strings.push_back(t);
        tasks.offsets[0].push_back(static_cast<int64_t>(tasks.strings.size()));
        length.ints.push_back(n);
        dchunk.ints.push_back(0), dfile.ints.push_back(0);
        from.ints.push_back(first), to.ints.push_back(first + n);
        first += n;
    }
    for (Column* c : {&index, &tasks, &length, &dchunk, &dfile, &from, &to}) add(std::move(*c));
    for (size_t v = 0; v < info.video_keys.size(); ++v) {
        const std::string p = "videos/" + info.video_keys[v] + "/";
        Column vc = scalar_column(p + "chunk_index", ValueKind::Int64),
               vf = scalar_column(p + "file_index", ValueKind::Int64);
        Column f0 = scalar_column(p + "from_timestamp", ValueKind::Float64),
               f1 = scalar_column(p + "to_timestamp", ValueKind::Float64);
        for (const auto& [a, b] : spans[v])
            vc.ints.push_back(0), vf.ints.push_back(0), f0.reals.push_back(a), f1.reals.push_back(b);
        for (Column* c : {&vc, &vf, &f0, &f1}) add(std::move(*c));
    }
    Column mchunk = scalar_column("meta/episodes/chunk_index", ValueKind::Int64),
           mfile = scalar_column("meta/episodes/file_index", ValueKind::Int64);
    mchunk.ints.assign(episodes.size(), 0), mfile.ints.assign(episodes.size(), 0);
    add(std::move(mchunk)), add(std::move(mfile));
    for (const auto& [feature, stats] : episode_stats.front().items()) {
        for (const char* stat : {"min", "max", "mean", "std", "count"}) {
            const bool count = std::string(stat) == "count";
            Column c = list_column("stats/" + feature + "/" + stat, count ? ValueKind::Int64 : ValueKind::Float64);
            for (const ojson& es : episode_stats) {
                for (const auto& v : es.at(feature).at(stat))
                    count ? c.ints.push_back(v.get<int64_t>()) : c.reals.push_back(v.get<double>());
                c.offsets[0].push_back(static_cast<int64_t>(c.leaf_count()));
            }
            add(std::move(c));
        }
    }
    parquet::write_file((fs::path(dir) / "meta/episodes/chunk-000/file-000.parquet").string(), ep_schema, {ep});

    write_tasks_stats_and_info(src, dir, joined, row);
}

}  // namespace ws::robotics
