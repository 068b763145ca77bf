// LeRobot datasets (v3.0, v2.1, v2.0) and the Pico World source behind one Dataset interface.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "robotics/dataset_internal.h"
#include "robotics/parquet.h"
#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/robotics/dataset.h"

namespace fs = std::filesystem;

namespace ws::robotics {

namespace {

std::string read_text(const std::string& path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw Error(path + ": no such file");
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    if (!f) throw Error(path + ": cannot read");
    return ss.str();
}

ojson parse_json(const std::string& text, const std::string& origin) {
    ojson j = ojson::parse(text, nullptr, false);
    if (j.is_discarded()) throw Error(origin + ": not valid JSON");
    return j;
}

std::vector<ojson> read_jsonl(const std::string& path) {
    std::vector<ojson> out;
    std::istringstream in(read_text(path));
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        out.push_back(parse_json(line, path + ":" + std::to_string(n)));
        if (!out.back().is_object()) throw Error(path + ":" + std::to_string(n) + ": not a JSON object");
    }
    return out;
}

// Python's str.format for LeRobot's path templates: {name} and {name:0Nd}.
std::string format_template(const std::string& tpl, const std::map<std::string, std::string>& strs,
                            const std::map<std::string, int64_t>& ints, const std::string& origin) {
    std::string out;
    for (size_t i = 0; i < tpl.size(); ++i) {
        if (tpl[i] != '{') {
            out += tpl[i];
            continue;
        }
        const size_t close = tpl.find('}', i);
        if (close == std::string::npos) throw Error(origin + ": unclosed '{' in the path template '" + tpl + "'");
        const std::string field = tpl.substr(i + 1, close - i - 1);
        const size_t colon = field.find(':');
        const std::string name = field.substr(0, colon),
                          spec = colon == std::string::npos ? "" : field.substr(colon + 1);
        if (auto s = strs.find(name); s != strs.end()) {
            out += s->second;
        } else if (auto v = ints.find(name); v != ints.end()) {
            std::string digits = std::to_string(v->second);
            if (!spec.empty() && spec[0] == '0') {
                int width = 0;
                for (char c : spec.substr(1))
                    if (c >= '0' && c <= '9' && width < 100) width = width * 10 + (c - '0');
                if (static_cast<int>(digits.size()) < width)
                    digits.insert(0, static_cast<size_t>(width) - digits.size(), '0');
            }
            out += digits;
        } else {
            throw Error(origin + ": unknown name '{" + name + "}' in the path template '" + tpl + "'");
        }
        i = close;
    }
    return out;
}

void parse_info(DatasetInfo& info, const ojson& j, const std::string& origin) {
    if (!j.is_object()) throw Error(origin + ": not a JSON object");
    info.json = j;
    info.codebase_version = json_field<std::string>(j, "codebase_version", "", origin);
    const std::string v = info.codebase_version;
    if (v != "v3.0" && v != "v2.1" && v != "v2.0")
        throw Error(origin + ": codebase_version " +
                    (v.empty() ? std::string("is missing") : "'" + v + "' is not supported") +
                    " (supported: v3.0, v2.1, v2.0)");
    info.fps = json_field<double>(j, "fps", 0.0, origin);
    if (!(info.fps > 0 && info.fps <= 1000)) throw Error(origin + ": field 'fps' must be a number in (0, 1000]");
    info.total_episodes = json_field<int64_t>(j, "total_episodes", 0, origin);
    info.total_frames = json_field<int64_t>(j, "total_frames", 0, origin);
    info.total_tasks = json_field<int64_t>(j, "total_tasks", 0, origin);
    info.robot_type = json_field<std::string>(j, "robot_type", "", origin);
    if (!j.contains("features") || !j["features"].is_object())
        throw Error(origin + ": field 'features' must be an object");
    for (const auto& [key, f] : j["features"].items()) {
        Feature feat;
        feat.key = key;
        feat.json = f;
        const std::string fo = origin + ": feature '" + key + "'";
        feat.dtype = json_field<std::string>(f, "dtype", "", fo);
        if (feat.dtype.empty()) throw Error(fo + " has no dtype");
        feat.shape = json_field<std::vector<int64_t>>(f, "shape", {}, fo);
        feat.names = f.is_object() && f.contains("names") ? f["names"] : ojson(nullptr);
        if (feat.dtype == "video") info.video_keys.push_back(key);
        info.features.push_back(std::move(feat));
    }
}

int64_t int_at(const Column& c, int64_t row, const std::string& where) {
    if (!c.is_int() || c.depth != 0) throw Error(where + ": column '" + c.name + "' must hold integers");
    if (c.null(static_cast<size_t>(row)))
        throw Error(where + ": column '" + c.name + "' is null in row " + std::to_string(row));
    return c.ints[static_cast<size_t>(row)];
}

double real_at(const Column& c, int64_t row, const std::string& where) {
    if (c.depth != 0 || c.kind == ValueKind::String) throw Error(where + ": column '" + c.name + "' must hold numbers");
    if (c.null(static_cast<size_t>(row)))
        throw Error(where + ": column '" + c.name + "' is null in row " + std::to_string(row));
    return c.real(static_cast<size_t>(row));
}

void load_v3(Dataset::Impl& d) {
    const std::string tasks_path = d.path("meta/tasks.parquet");
    {
        const parquet::File f = parquet::File::open(tasks_path);
        const Column idx = f.read("task_index");
        const std::string text_col = f.has("task") ? "task" : f.has("__index_level_0__") ? "__index_level_0__" : "";
        if (text_col.empty()) throw Error(tasks_path + ": no column 'task' (nor the pandas index '__index_level_0__')");
        const Column text = f.read(text_col);
        if (text.kind != ValueKind::String || text.depth)
            throw Error(tasks_path + ": column '" + text_col + "' must hold strings");
        for (int64_t r = 0; r < idx.rows(); ++r)
            d.info.tasks.push_back({int_at(idx, r, tasks_path), text.strings[static_cast<size_t>(r)]});
        std::sort(d.info.tasks.begin(), d.info.tasks.end(),
                  [](const Task& a, const Task& b) { return a.index < b.index; });
    }
    const std::string info_origin = d.path("meta/info.json");
    const std::string data_tpl = json_field<std::string>(
        d.info.json, "data_path", "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet", info_origin);
    const std::string video_tpl = json_field<std::string>(
        d.info.json, "video_path", "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4", info_origin);
    std::vector<std::string> files;
    std::error_code ec;
    const fs::path meta = fs::path(d.dir) / "meta" / "episodes";
    if (!fs::is_directory(meta, ec))
        throw Error(meta.string() + ": no such folder (a v3.0 dataset lists its episodes there)");
    for (auto it = fs::recursive_directory_iterator(meta, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file() && it->path().extension() == ".parquet") files.push_back(it->path().string());
    std::sort(files.begin(), files.end());
    if (files.empty()) throw Error(meta.string() + ": no episode Parquet files");
    for (const auto& path : files) {
        const parquet::File f = parquet::File::open(path);
        const Column ep = f.read("episode_index"), len = f.read("length"), tasks = f.read("tasks");
        const Column from = f.read("dataset_from_index"), to = f.read("dataset_to_index");
        const Column dchunk = f.read("data/chunk_index"), dfile = f.read("data/file_index");
        if (tasks.kind != ValueKind::String || tasks.depth != 1)
            throw Error(path + ": column 'tasks' must be a list of strings");
        std::vector<std::array<Column, 4>> cams;
        for (const auto& key : d.info.video_keys) {
            const std::string p = "videos/" + key + "/";
            cams.push_back({f.read(p + "chunk_index"), f.read(p + "file_index"), f.read(p + "from_timestamp"),
                            f.read(p + "to_timestamp")});
        }
        std::vector<Column> stats;
        for (size_t i = 0; i < f.leaves().size(); ++i)
            if (f.leaves()[i].name.rfind("stats/", 0) == 0 && f.leaves()[i].supported)
                stats.push_back(f.read(static_cast<int>(i)));
        for (int64_t r = 0; r < f.num_rows(); ++r) {
            EpisodeInfo e;
            e.index = int_at(ep, r, path);
            e.length = int_at(len, r, path);
            const auto [tb, te] = tasks.leaf_range(r);
            e.tasks.assign(tasks.strings.begin() + static_cast<std::ptrdiff_t>(tb),
                           tasks.strings.begin() + static_cast<std::ptrdiff_t>(te));
            e.dataset_from_index = int_at(from, r, path);
            e.dataset_to_index = int_at(to, r, path);
            e.data_file = format_template(
                data_tpl, {}, {{"chunk_index", int_at(dchunk, r, path)}, {"file_index", int_at(dfile, r, path)}},
                info_origin);
            for (size_t k = 0; k < cams.size(); ++k) {
                CameraRef c;
                c.key = d.info.video_keys[k];
                c.file = format_template(
                    video_tpl, {{"video_key", c.key}},
                    {{"chunk_index", int_at(cams[k][0], r, path)}, {"file_index", int_at(cams[k][1], r, path)}},
                    info_origin);
                c.from_timestamp = real_at(cams[k][2], r, path);
                c.to_timestamp = real_at(cams[k][3], r, path);
                e.cameras.push_back(std::move(c));
            }
            ojson st = ojson::object();
            for (const Column& s : stats) {
                const std::string rest = s.name.substr(6);
                const size_t slash = rest.rfind('/');
                if (slash == std::string::npos) continue;
                st[rest.substr(0, slash)][rest.substr(slash + 1)] = s.row_json(r);
            }
            if (!st.empty()) d.episode_stats[e.index] = st;
            d.episodes.push_back(std::move(e));
        }
    }
    const std::string stats_path = d.path("meta/stats.json");
    if (fs::exists(stats_path, ec)) d.stats = parse_json(read_text(stats_path), stats_path);
}

void load_v2(Dataset::Impl& d) {
    const std::string info_origin = d.path("meta/info.json");
    for (const auto& j : read_jsonl(d.path("meta/tasks.jsonl"))) {
        const std::string o = d.path("meta/tasks.jsonl");
        d.info.tasks.push_back({json_field<int64_t>(j, "task_index", 0, o), json_field<std::string>(j, "task", "", o)});
    }
    std::sort(d.info.tasks.begin(), d.info.tasks.end(), [](const Task& a, const Task& b) { return a.index < b.index; });
    const std::string data_tpl = json_field<std::string>(
        d.info.json, "data_path", "data/chunk-{episode_chunk:03d}/episode_{episode_index:06d}.parquet", info_origin);
    const std::string video_tpl = json_field<std::string>(
        d.info.json, "video_path", "videos/chunk-{episode_chunk:03d}/{video_key}/episode_{episode_index:06d}.mp4",
        info_origin);
    const int64_t chunks = std::max<int64_t>(1, json_field<int64_t>(d.info.json, "chunks_size", 1000, info_origin));
    const std::string eo = d.path("meta/episodes.jsonl");
    int64_t row = 0;
    for (const auto& j : read_jsonl(eo)) {
        EpisodeInfo e;
        e.index = json_field<int64_t>(j, "episode_index", -1, eo);
        e.length = json_field<int64_t>(j, "length", -1, eo);
        if (e.index < 0 || e.length < 0) throw Error(eo + ": an episode needs 'episode_index' and 'length'");
        e.tasks = json_field<std::vector<std::string>>(j, "tasks", {}, eo);
        e.dataset_from_index = row;
        e.dataset_to_index = row += e.length;
        const std::map<std::string, int64_t> ints{{"episode_chunk", e.index / chunks}, {"episode_index", e.index}};
        e.data_file = format_template(data_tpl, {}, ints, info_origin);
        for (const auto& key : d.info.video_keys)
            e.cameras.push_back({key, format_template(video_tpl, {{"video_key", key}}, ints, info_origin), 0.0,
                                 static_cast<double>(e.length) / d.info.fps});
        d.episodes.push_back(std::move(e));
    }
    std::error_code ec;
    const std::string es = d.path("meta/episodes_stats.jsonl");
    if (fs::exists(es, ec))
        for (const auto& j : read_jsonl(es))
            d.episode_stats[json_field<int64_t>(j, "episode_index", -1, es)] = j.value("stats", ojson());
    const std::string stats_path = d.path("meta/stats.json");
    if (fs::exists(stats_path, ec)) d.stats = parse_json(read_text(stats_path), stats_path);
}

}  // namespace

Dataset::Impl::RowSpan Dataset::Impl::rows_of(const EpisodeInfo& e, const parquet::File& f) const {
    RowSpan s;
    s.rg_end = static_cast<int>(f.row_groups().size());
    if (info.codebase_version != "v3.0") {
        s.end = f.num_rows();
    } else {
        // Many episodes share a file: find the episode's rows by its global index (or episode_index).
        const bool by_global = f.has("index");
        const Column key = f.read(by_global ? "index" : "episode_index");
        if (key.depth || !key.is_int()) throw Error(f.path() + ": column '" + key.name + "' must hold integers");
        auto match = [&](int64_t r) {
            const int64_t v = key.ints[static_cast<size_t>(r)];
            return by_global ? v >= e.dataset_from_index && v < e.dataset_to_index : v == e.index;
        };
        int64_t b = 0;
        while (b < key.rows() && !match(b)) ++b;
        int64_t en = b;
        while (en < key.rows() && match(en)) ++en;
        if (b == key.rows()) throw Error(f.path() + ": no rows of episode " + std::to_string(e.index));
        s.begin = b, s.end = en;
        int64_t first = 0;
        s.rg_begin = -1;
        for (size_t g = 0; g < f.row_groups().size(); ++g) {
            const int64_t n = f.row_groups()[g].num_rows;
            if (s.rg_begin < 0 && first + n > b) s.rg_begin = static_cast<int>(g), s.rg_first_row = first;
            if (first < en) s.rg_end = static_cast<int>(g) + 1;
            first += n;
        }
        if (s.rg_begin < 0) s.rg_begin = 0;
    }
    if (s.end - s.begin != e.length)
        throw Error(f.path() + ": episode " + std::to_string(e.index) + " has " + std::to_string(s.end - s.begin) +
                    " rows, the episode list says " + std::to_string(e.length));
    return s;
}

Column Dataset::Impl::column(const EpisodeInfo& e, const std::string& name) const {
    if (pico) {
        for (auto& c : pico_columns(e))
            if (c.name == name) return c;
        throw Error("the Pico source has no column '" + name + "'");
    }
    auto f = file(e.data_file);
    const int leaf = f->find(name);
    if (leaf < 0) throw Error(f->path() + ": no column '" + name + "'");
    const RowSpan s = rows_of(e, *f);
    return f->read(leaf, s.rg_begin, s.rg_end).slice(s.begin - s.rg_first_row, s.end - s.rg_first_row);
}

Dataset Dataset::open(const std::string& dir) {
    auto d = std::make_shared<Impl>();
    d->dir = dir;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw Error(dir + ": no such dataset folder");
    const std::string info_path = d->path("meta/info.json");
    if (!fs::exists(info_path, ec)) throw Error(info_path + ": no such file (not a LeRobot dataset folder)");
    parse_info(d->info, parse_json(read_text(info_path), info_path), info_path);
    if (d->info.codebase_version == "v3.0")
        load_v3(*d);
    else
        load_v2(*d);
    std::sort(d->episodes.begin(), d->episodes.end(),
              [](const EpisodeInfo& a, const EpisodeInfo& b) { return a.index < b.index; });
    for (size_t i = 0; i < d->episodes.size(); ++i)
        if (!d->by_index.emplace(d->episodes[i].index, i).second)
            throw Error(dir + ": episode " + std::to_string(d->episodes[i].index) + " is listed twice");
    Dataset ds;
    ds.impl_ = d;
    return ds;
}

const std::string& Dataset::dir() const { return impl_->dir; }
bool Dataset::is_pico() const { return impl_->pico; }
const DatasetInfo& Dataset::info() const { return impl_->info; }
const std::vector<EpisodeInfo>& Dataset::episodes() const { return impl_->episodes; }
const EpisodeInfo& Dataset::episode(int64_t index) const { return impl_->episode(index); }

const Feature* DatasetInfo::feature(const std::string& key) const {
    for (const auto& f : features)
        if (f.key == key) return &f;
    return nullptr;
}

std::vector<Column> Dataset::columns(int64_t index) const {
    const EpisodeInfo& e = impl_->episode(index);
    if (impl_->pico) return impl_->pico_columns(e);
    auto f = impl_->file(e.data_file);
    const Impl::RowSpan s = impl_->rows_of(e, *f);
    std::vector<Column> out;
    for (size_t i = 0; i < f->leaves().size(); ++i)
        out.push_back(
            f->read(static_cast<int>(i), s.rg_begin, s.rg_end).slice(s.begin - s.rg_first_row, s.end - s.rg_first_row));
    return out;
}

VideoFrames Dataset::frames(int64_t index, const std::string& camera, int64_t first, int64_t count) const {
    const EpisodeInfo& e = impl_->episode(index);
    const CameraRef* cam = nullptr;
    std::string keys;
    for (const auto& c : e.cameras) {
        if (c.key == camera) cam = &c;
        keys += (keys.empty() ? "" : ", ") + c.key;
    }
    const std::string where = impl_->pico ? std::string("the Pico source") : "dataset " + impl_->dir;
    if (!cam)
        throw Error(where + ": episode " + std::to_string(index) + " has no camera '" + camera +
                    "' (cameras: " + (keys.empty() ? "none" : keys) + ")");
    if (first < 0 || first >= e.length)
        throw Error(where + ": episode " + std::to_string(index) + " has no frame " + std::to_string(first) +
                    " (it has " + std::to_string(e.length) + ")");
    if (count < 0 || count > e.length - first) count = e.length - first;
    if (impl_->pico) {
        const VideoFrames& v = impl_->sims[impl_->by_index.at(index)].video;
        if (v.count < first + count)
            throw Error(where + ": episode " + std::to_string(index) + " was simulated without pictures");
        VideoFrames out;
        out.width = v.width, out.height = v.height, out.fps = v.fps, out.count = static_cast<int>(count);
        const size_t fb = static_cast<size_t>(v.width) * v.height * 3;
        out.rgb.assign(v.rgb.begin() + static_cast<std::ptrdiff_t>(fb * first),
                       v.rgb.begin() + static_cast<std::ptrdiff_t>(fb * (first + count)));
        return out;
    }
    const Column ts = impl_->column(e, "timestamp");
    if (ts.depth || ts.kind == ValueKind::String || ts.rows() != e.length)
        throw Error(impl_->path(e.data_file) + ": column 'timestamp' must hold one number per frame");
    const double start = cam->from_timestamp + ts.real(static_cast<size_t>(first));
    const bool shared = impl_->info.codebase_version == "v3.0";
    const std::string path = impl_->path(cam->file);
    VideoFrames v = read_video_at(path, start, static_cast<int>(count), shared ? cam->to_timestamp : 0.0);
    if (v.count < count)
        throw Error(path + ": camera '" + camera + "' of episode " + std::to_string(index) + " has " +
                    std::to_string(v.count) + " frames from " + std::to_string(start) + " s, " + std::to_string(count) +
                    " expected");
    return v;
}

ojson Dataset::stats() const { return impl_->stats; }

ojson Dataset::episode_stats(int64_t index) const {
    impl_->episode(index);
    auto it = impl_->episode_stats.find(index);
    return it == impl_->episode_stats.end() ? ojson(nullptr) : it->second;
}

std::vector<std::string> Dataset::data_files() const {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& e : impl_->episodes)
        if (!e.data_file.empty() && seen.insert(e.data_file).second) out.push_back(e.data_file);
    return out;
}

ojson Dataset::info_json() const {
    const DatasetInfo& i = impl_->info;
    ojson features = ojson::object();
    for (const auto& f : i.features) features[f.key] = {{"dtype", f.dtype}, {"shape", f.shape}, {"names", f.names}};
    ojson tasks = ojson::array();
    for (const auto& t : i.tasks) tasks.push_back({{"task_index", t.index}, {"task", t.text}});
    ojson fps = std::floor(i.fps) == i.fps ? ojson(static_cast<int64_t>(i.fps)) : ojson(i.fps);
    return {{"codebase_version", i.codebase_version},
            {"fps", fps},
            {"total_episodes", i.total_episodes},
            {"total_frames", i.total_frames},
            {"total_tasks", i.total_tasks},
            {"features", features},
            {"video_keys", i.video_keys},
            {"tasks", tasks}};
}

ojson Dataset::episode_json(int64_t index) const {
    const EpisodeInfo& e = impl_->episode(index);
    ojson j = {{"episode_index", e.index},
               {"length", e.length},
               {"tasks", e.tasks},
               {"dataset_from_index", e.dataset_from_index},
               {"dataset_to_index", e.dataset_to_index},
               {"data_file", e.data_file}};
    if (impl_->pico) j["source"] = {{"sim_seed", e.seed}, {"scene", e.scene}};
    ojson cols = ojson::object();
    for (const Column& c : columns(index)) cols[c.name] = {{"values", c.values_json()}};
    j["columns"] = cols;
    ojson cams = ojson::object();
    for (const auto& c : e.cameras) {
        VideoFrames v;
        if (impl_->pico) {
            v = frames(index, c.key);
        } else {
            const bool shared = impl_->info.codebase_version == "v3.0";
            v = read_video_at(impl_->path(c.file), shared ? c.from_timestamp : 0.0, 0, shared ? c.to_timestamp : 0.0);
        }
        cams[c.key] = {{"file", c.file},
                       {"from_timestamp", c.from_timestamp},
                       {"to_timestamp", c.to_timestamp},
                       {"frame_count", v.count},
                       {"width", v.width},
                       {"height", v.height}};
    }
    j["cameras"] = cams;
    return j;
}

ReadStats read_all_data(const Dataset& d) {
    ReadStats s;
    if (d.is_pico()) throw Error("the Pico source has no Parquet files to read (export it first)");
    for (const auto& rel : d.data_files()) {
        const parquet::File f = parquet::File::open((fs::path(d.dir()) / rel).string());
        for (const Column& c : f.read_all()) s.values += static_cast<int64_t>(c.leaf_count());
        s.rows += f.num_rows();
        s.bytes += f.size();
        ++s.files;
    }
    return s;
}

}  // namespace ws::robotics
