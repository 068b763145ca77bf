#pragma once
// Every field of a generation request, declared once: its JSON name, kind, range, fallback, the modes it means
// something in, its label and help. The engine's parse reads and checks plain fields from this table alone; the
// studio's settings form takes its rows' ranges, steps, labels, tooltips and visibility from it (and makes a row
// for a field it has no hand-made widget for); a model folder's generation defaults are checked against it; and
// `worldstudio-cli fields` prints it. Adding a field: a member of GenerationRequest and a row in request_schema.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "worldstudio/core/pyjson.h"
#include "worldstudio/model/request.h"

namespace ws {

enum class FieldKind {
    Integer,  // a whole number (numbers written as strings are accepted, as the reference's files hold them)
    Number,   // a real number (likewise)
    Boolean,
    Text,        // any string
    Choice,      // one of `choices`
    Path,        // a file; relative paths are taken from the job file's folder (resolve_job_paths)
    Structured,  // a list or an object: read by its own parser, in request.cpp
    Ignored,     // a reference field about its own serving setup: accepted and ignored
};

// A set of modes, one bit per Mode.
using ModeSet = uint32_t;
constexpr ModeSet mode_bit(Mode m) { return ModeSet(1) << static_cast<unsigned>(m); }
constexpr ModeSet kAllModes = 0xff;
constexpr ModeSet kActionModes =
    mode_bit(Mode::ForwardDynamics) | mode_bit(Mode::InverseDynamics) | mode_bit(Mode::Policy);
constexpr ModeSet kVideoModes = mode_bit(Mode::Text2Video) | mode_bit(Mode::Image2Video) | mode_bit(Mode::Video2Video);
constexpr ModeSet kPromptedModes = kVideoModes | mode_bit(Mode::Text2Image);
inline bool mode_in(ModeSet set, Mode m) { return (set & mode_bit(m)) != 0; }

struct FieldChoice {
    std::string value;
    std::string label;  // the form's text for it
};

// Where a plain field's value goes in the typed request.
using FieldTarget =
    std::variant<std::monostate, int GenerationRequest::*, int64_t GenerationRequest::*, uint32_t GenerationRequest::*,
                 double GenerationRequest::*, bool GenerationRequest::*, std::string GenerationRequest::*>;

struct RequestField {
    std::string name;
    FieldKind kind = FieldKind::Text;
    std::string label;  // the settings form's label (English; the studio translates it in the "RequestSchema" context)
    std::string help;   // the form's tooltip and the CLI's description
    ModeSet modes =
        kAllModes;  // where it means something: the form shows it there only, and the studio sends it there only
    bool read_everywhere = true;  // false: the engine reads it only in `modes` (elsewhere it is accepted and ignored)
    double min = 0, max = 0;      // Integer / Number: the accepted range, inclusive (min excluded when min_open)
    bool min_open = false;
    double step = 1;   // the form's step
    int decimals = 2;  // Number: the form's decimals
    ojson fallback;    // when neither the job nor the mode's defaults give one (null: none)
    std::vector<FieldChoice> choices;
    std::string must;           // the end of "NAME must be ..." for a refused value (empty: from the range or choices)
    std::string unit;           // the form's suffix (" MiB")
    std::string special_value;  // the form's text at the minimum ("the model's budget")
    bool form = false;          // the settings form has a row for it
    FieldTarget target;         // plain fields: where the parse puts the value
};

// The schema, in the order the settings form lists its generated rows.
const std::vector<RequestField>& request_fields();
// The field named `name`, or nullptr.
const RequestField* request_field(const std::string& name);

// The value of a plain field in `job` (absent or null: `fallback`), type-checked and range-checked; an Error names
// the field and says what it must be.
ojson read_field(const RequestField& f, const ojson& job, const ojson& fallback);
// Checks one value against its field (what read_field does to a present value).
void check_field(const RequestField& f, const ojson& value);
// "NAME must be ..." for the field, as the parse and the form's tooltips say it.
std::string field_rule(const RequestField& f);

// The schema as JSON (name, kind, label, help, modes, range, fallback, choices), for `worldstudio-cli fields` and
// for tools.
ojson request_schema_json();

}  // namespace ws
