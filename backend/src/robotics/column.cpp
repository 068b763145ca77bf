// robotics::Column: flat leaves with per-level offsets (dataset.h).
#include <algorithm>

#include "worldstudio/core/error.h"
#include "worldstudio/robotics/dataset.h"

namespace ws::robotics {

const char* value_kind_name(ValueKind k) {
    switch (k) {
        case ValueKind::Bool: return "bool";
        case ValueKind::Int32: return "int32";
        case ValueKind::Int64: return "int64";
        case ValueKind::Float32: return "float32";
        case ValueKind::Float64: return "float64";
        case ValueKind::String: return "string";
    }
    return "?";
}

size_t Column::leaf_count() const {
    if (is_real()) return reals.size();
    if (kind == ValueKind::String) return strings.size();
    return ints.size();
}

int64_t Column::rows() const {
    if (depth == 0) return static_cast<int64_t>(leaf_count());
    return offsets.empty() || offsets[0].empty() ? 0 : static_cast<int64_t>(offsets[0].size()) - 1;
}

double Column::real(size_t leaf) const {
    if (is_real()) return reals.at(leaf);
    if (is_int()) return static_cast<double>(ints.at(leaf));
    throw Error("column '" + name + "' holds strings, not numbers");
}

int64_t Column::integer(size_t leaf) const {
    if (is_int()) return ints.at(leaf);
    if (is_real()) return static_cast<int64_t>(reals.at(leaf));
    throw Error("column '" + name + "' holds strings, not numbers");
}

std::pair<size_t, size_t> Column::leaf_range(int64_t row) const {
    if (row < 0 || row >= rows()) throw Error("column '" + name + "' has no row " + std::to_string(row));
    int64_t b = row, e = row + 1;
    for (int k = 0; k < depth; ++k) {
        b = offsets[static_cast<size_t>(k)][static_cast<size_t>(b)];
        e = offsets[static_cast<size_t>(k)][static_cast<size_t>(e)];
    }
    return {static_cast<size_t>(b), static_cast<size_t>(e)};
}

std::vector<double> Column::row_reals(int64_t row) const {
    const auto [b, e] = leaf_range(row);
    std::vector<double> v;
    v.reserve(e - b);
    for (size_t i = b; i < e; ++i) v.push_back(real(i));
    return v;
}

namespace {
ojson leaf_json(const Column& c, size_t i) {
    if (c.null(i)) return nullptr;
    switch (c.kind) {
        case ValueKind::Bool: return c.ints[i] != 0;
        case ValueKind::Int32:
        case ValueKind::Int64: return c.ints[i];
        case ValueKind::Float32:
        case ValueKind::Float64: return c.reals[i];
        case ValueKind::String: return c.strings[i];
    }
    return nullptr;
}
ojson item_json(const Column& c, int level, int64_t item) {
    if (level == c.depth) return leaf_json(c, static_cast<size_t>(item));
    ojson a = ojson::array();
    const auto& off = c.offsets[static_cast<size_t>(level)];
    for (int64_t k = off[static_cast<size_t>(item)]; k < off[static_cast<size_t>(item) + 1]; ++k)
        a.push_back(item_json(c, level + 1, k));
    return a;
}
}  // namespace

ojson Column::row_json(int64_t row) const {
    if (row < 0 || row >= rows()) throw Error("column '" + name + "' has no row " + std::to_string(row));
    return item_json(*this, 0, row);
}

ojson Column::values_json() const {
    ojson a = ojson::array();
    for (int64_t r = 0; r < rows(); ++r) a.push_back(item_json(*this, 0, r));
    return a;
}

Column Column::slice(int64_t row_begin, int64_t row_end) const {
    row_begin = std::clamp<int64_t>(row_begin, 0, rows());
    row_end = std::clamp<int64_t>(row_end, row_begin, rows());
    Column c;
    c.name = name, c.kind = kind, c.depth = depth;
    int64_t b = row_begin, e = row_end;
    for (int k = 0; k < depth; ++k) {
        const auto& off = offsets[static_cast<size_t>(k)];
        std::vector<int64_t> o(off.begin() + b, off.begin() + e + 1);
        const int64_t base = o.front();
        for (auto& x : o) x -= base;
        c.offsets.push_back(std::move(o));
        b = off[static_cast<size_t>(b)], e = off[static_cast<size_t>(e)];
    }
    if (is_real())
        c.reals.assign(reals.begin() + b, reals.begin() + e);
    else if (kind == ValueKind::String)
        c.strings.assign(strings.begin() + b, strings.begin() + e);
    else
        c.ints.assign(ints.begin() + b, ints.begin() + e);
    if (!nulls.empty()) c.nulls.assign(nulls.begin() + b, nulls.begin() + e);
    return c;
}

void Column::append(const Column& o) {
    if (o.kind != kind || o.depth != depth)
        throw Error("column '" + name + "': cannot join columns of different types");
    if (offsets.empty() && depth) offsets.assign(static_cast<size_t>(depth), std::vector<int64_t>{0});
    for (int k = 0; k < depth; ++k) {
        auto& off = offsets[static_cast<size_t>(k)];
        if (off.empty()) off.push_back(0);
        const int64_t base = off.back();
        const auto& src = o.offsets[static_cast<size_t>(k)];
        for (size_t i = 1; i < src.size(); ++i) off.push_back(base + src[i] - src[0]);
    }
    const size_t before = leaf_count();
    reals.insert(reals.end(), o.reals.begin(), o.reals.end());
    ints.insert(ints.end(), o.ints.begin(), o.ints.end());
    strings.insert(strings.end(), o.strings.begin(), o.strings.end());
    if (!nulls.empty() || !o.nulls.empty()) {
        nulls.resize(before, 0);
        if (o.nulls.empty())
            nulls.resize(leaf_count(), 0);
        else
            nulls.insert(nulls.end(), o.nulls.begin(), o.nulls.end());
    }
}

}  // namespace ws::robotics
