#pragma once
// What the dataset reader and the export share (not public).
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "robotics/parquet.h"
#include "worldstudio/core/error.h"
#include "worldstudio/robotics/dataset.h"

namespace ws::robotics {

struct Dataset::Impl {
    std::string dir;
    bool pico = false;
    DatasetInfo info;
    std::vector<EpisodeInfo> episodes;
    std::map<int64_t, size_t> by_index;
    ojson stats;
    std::map<int64_t, ojson> episode_stats;
    std::vector<pico::Episode> sims;  // the Pico source's episodes (N + 1 frames each)
    mutable std::mutex mutex;
    mutable std::map<std::string, std::shared_ptr<const parquet::File>> files;

    std::string path(const std::string& rel) const { return (std::filesystem::path(dir) / rel).string(); }
    std::shared_ptr<const parquet::File> file(const std::string& rel) const {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = files.find(rel);
        if (it != files.end()) return it->second;
        auto f = std::make_shared<const parquet::File>(parquet::File::open(path(rel)));
        if (files.size() > 16) files.clear();
        return files[rel] = f;
    }
    const EpisodeInfo& episode(int64_t index) const {
        auto it = by_index.find(index);
        if (it == by_index.end())
            throw Error((pico ? std::string("the Pico source") : "dataset " + dir) + ": no episode " +
                        std::to_string(index) + " (it has " + std::to_string(episodes.size()) +
                        (episodes.empty() ? ""
                                          : ", indices " + std::to_string(episodes.front().index) + ".." +
                                                std::to_string(episodes.back().index)) +
                        ")");
        return episodes[it->second];
    }
    // Rows [begin, end) of the episode in its data file and the row groups that hold them.
    struct RowSpan {
        int64_t begin = 0, end = 0;
        int rg_begin = 0, rg_end = 0;
        int64_t rg_first_row = 0;
    };
    RowSpan rows_of(const EpisodeInfo& e, const parquet::File& f) const;
    std::vector<Column> pico_columns(const EpisodeInfo& e) const;
    Column column(const EpisodeInfo& e, const std::string& name) const;
};

}  // namespace ws::robotics

namespace ws::robotics::detail {

// LeRobot-shaped statistics of per-frame columns (several episodes' columns of one name joined): per list position
// (or for the scalar) min, max, mean, std (population), count. Strings are left out.
ojson column_stats(const Column& c);
// The features of the Pico source (and of its export) for frames of width x height at fps.
ojson pico_features(int width, int height, double fps);

}  // namespace ws::robotics::detail
