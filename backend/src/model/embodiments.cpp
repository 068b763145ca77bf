#include "worldstudio/model/embodiments.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "worldstudio/core/error.h"
#include "worldstudio/model/request.h"

namespace ws {

std::string domain_key(const std::string& name) {
    size_t b = 0, e = name.size();
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
    while (b < e && space(name[b])) ++b;
    while (e > b && space(name[e - 1])) --e;
    std::string k = name.substr(b, e - b);
    for (char& c : k)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return k;
}

EmbodimentRegistry EmbodimentRegistry::parse(const std::string& text, const std::string& origin) {
    ojson doc;
    try {
        doc = ojson::parse(text);
    } catch (const std::exception&) {
        throw Error(origin + ": not valid JSON");
    }
    if (!doc.is_object() || !doc.contains("embodiments") || !doc["embodiments"].is_array())
        throw Error(origin + ": needs an \"embodiments\" list");
    EmbodimentRegistry r;
    read_json_field(doc, "num_embodiment_domains", r.num_domains_, origin);
    for (size_t i = 0; i < doc["embodiments"].size(); ++i) {
        const ojson& j = doc["embodiments"][i];
        const std::string where = origin + ": embodiments[" + std::to_string(i) + "]";
        if (!j.is_object()) throw Error(where + " must be an object");
        Embodiment e;
        read_json_field(j, "name", e.name, where);
        if (e.name.empty()) throw Error(where + ": field 'name' is missing");
        const std::string at = origin + ": embodiment '" + e.name + "'";
        read_json_field(j, "domain_id", e.domain_id, at);
        if (e.domain_id < 0 || e.domain_id >= r.num_domains_)
            throw Error(at + ": domain_id must be in [0, " + std::to_string(r.num_domains_) + ")");
        int dim = 0;
        read_json_field(j, "raw_action_dim", dim, at);
        if (j.contains("raw_action_dim") && !j["raw_action_dim"].is_null()) {
            if (dim < 1 || dim > 4096) throw Error(at + ": raw_action_dim must be between 1 and 4096");
            e.raw_action_dim = dim;
        }
        read_json_field(j, "reference", e.reference, at);
        read_json_field(j, "rotation_format", e.rotation_format, at);
        read_json_field(j, "pose_convention", e.pose_convention, at);
        read_json_field(j, "note", e.note, at);
        if (j.contains("normalizer")) e.normalizer = j["normalizer"];
        if (j.contains("to_opencv")) {
            const ojson& m = j["to_opencv"];
            if (!m.is_array() || m.size() != 9)
                throw Error(at + ": field 'to_opencv' must be 9 numbers (row-major 3x3)");
            for (size_t k = 0; k < 9; ++k) {
                if (!m[k].is_number()) throw Error(at + ": field 'to_opencv' must be 9 numbers (row-major 3x3)");
                e.to_opencv[k] = m[k].get<double>();
            }
        }
        if (j.contains("layout")) {
            if (!j["layout"].is_array()) throw Error(at + ": field 'layout' must be a list");
            int width = 0;
            for (const ojson& g : j["layout"]) {
                ChannelGroup c;
                read_json_field(g, "name", c.name, at + " layout");
                read_json_field(g, "kind", c.kind, at + " layout");
                read_json_field(g, "width", c.width, at + " layout");
                read_json_field(g, "rotation_format", c.rotation_format, at + " layout");
                if (c.kind != "pos" && c.kind != "rot" && c.kind != "gripper" && c.kind != "joint" &&
                    c.kind != "reserved")
                    throw Error(at + ": layout kind must be pos, rot, gripper, joint or reserved (got '" + c.kind +
                                "')");
                if (c.width < 1 || c.width > 4096) throw Error(at + ": layout width must be between 1 and 4096");
                width += c.width;
                e.layout.push_back(c);
            }
            if (e.raw_action_dim && width != *e.raw_action_dim)
                throw Error(at + ": the layout covers " + std::to_string(width) + " channels, raw_action_dim is " +
                            std::to_string(*e.raw_action_dim));
        }
        if (j.contains("defaults")) {
            const ojson& d = j["defaults"];
            read_json_field(d, "fps", e.fps, at + " defaults");
            read_json_field(d, "action_chunk_size", e.action_chunk_size, at + " defaults");
            read_json_field(d, "image_size", e.image_size, at + " defaults");
            read_json_field(d, "view_point", e.view_point, at + " defaults");
        }
        r.entries_.push_back(std::move(e));
    }
    return r;
}

void EmbodimentRegistry::merge(const EmbodimentRegistry& other) {
    for (const Embodiment& e : other.entries_) {
        bool replaced = false;
        for (Embodiment& mine : entries_)
            if (domain_key(mine.name) == domain_key(e.name)) mine = e, replaced = true;
        if (!replaced) entries_.push_back(e);
    }
}

const EmbodimentRegistry& EmbodimentRegistry::shipped() {
    static const EmbodimentRegistry registry = [] {
        const auto& presets = embedded_presets();
        auto it = presets.find("embodiments.json");
        if (it == presets.end()) throw Error("the embodiment registry (presets/embodiments.json) was not built in");
        EmbodimentRegistry r = parse(it->second, "presets/embodiments.json");
        if (const char* user = std::getenv("WORLDSTUDIO_EMBODIMENTS"); user && *user) {
            std::ifstream f(user, std::ios::binary);
            if (!f) throw Error(std::string(user) + " (WORLDSTUDIO_EMBODIMENTS): cannot read");
            std::stringstream ss;
            ss << f.rdbuf();
            r.merge(parse(ss.str(), user));
        }
        return r;
    }();
    return registry;
}

const Embodiment* EmbodimentRegistry::find(const std::string& name) const {
    const std::string k = domain_key(name);
    for (const Embodiment& e : entries_)
        if (e.name == k || domain_key(e.name) == k) return &e;
    return nullptr;
}

std::string EmbodimentRegistry::accepted_names() const {
    std::string s;
    for (const Embodiment& e : entries_)
        if (e.name != "no_action") s += (s.empty() ? "" : ", ") + e.name;
    return s;
}

const Embodiment& EmbodimentRegistry::for_mode(const std::string& name, const std::string& mode) const {
    if (domain_key(name).empty()) throw Error("the action modes need domain_name, one of: " + accepted_names());
    const Embodiment* e = find(name);
    if (!e || e->name == "no_action") throw Error("unknown domain_name '" + name + "'; known: " + accepted_names());
    // Without a registered width only forward dynamics runs: its width comes from the action file.
    if (!e->raw_action_dim && mode != "forward_dynamics")
        throw Error("domain_name '" + e->name + "' has no fixed action width, so " + mode +
                    " cannot run on it (forward_dynamics takes the width from the action file)");
    return *e;
}

}  // namespace ws
