#pragma once
// The exact strings the reference hands to the tokenizer: plain prompts get duration/resolution sentences,
// JSON captions get metadata keys injected and are re-serialized like Python's json.dumps, negative prompts
// follow the metadata mode. Tokens depend on every byte, so this is kept byte-identical to the reference.
#include <string>
#include <vector>

#include "worldstudio/core/pyjson.h"
#include "worldstudio/core/tokenizer.h"  // chat_template_user_turn

namespace ws {

struct PromptMetadata {
    int num_frames = 1;
    double fps = 24;
    int height = 0;
    int width = 0;
    std::string aspect_ratio;  // e.g. "16,9"; empty = not set
    bool is_video() const { return num_frames > 1; }
};

// Python str.format templates with {duration:.1f}, {fps:.0f}, {height}, {width}.
struct PromptTemplates {
    std::string duration = "The video is {duration:.1f} seconds long and is of {fps:.0f} FPS.";
    std::string resolution = "This video is of {height}x{width} resolution.";
    std::string inverse_duration = "The video is not {duration:.1f} seconds long and is not of {fps:.0f} FPS.";
    std::string inverse_resolution = "This video is not of {height}x{width} resolution.";
    static PromptTemplates for_video() { return {}; }
    static PromptTemplates for_image();
};

enum class NegativeMetadataMode { None, Same, Inverse };
NegativeMetadataMode negative_metadata_mode_from_name(const std::string& name);

// Renders one template; throws ws::Error on an unknown placeholder.
std::string render_template(const std::string& tmpl, const PromptMetadata& meta);

// True when `text` parses as a JSON object (then stored in *out, key order kept).
bool parse_json_caption(const std::string& text, ojson* out);

std::string format_prompt(const std::string& prompt, const PromptMetadata& meta, const PromptTemplates& t);
// The diffusers pipeline's prompt string: the duration sentence (videos) and the resolution sentence appended as
// text to any prompt, JSON or not (trailing '.' stripped, ". " between, a sentence alone for an empty prompt); the
// negative gets the inverse sentences. No metadata keys go into JSON prompts on this path.
std::string format_prompt_diffusers(const std::string& prompt, const PromptMetadata& meta, const PromptTemplates& t,
                                    bool negative);
// Its system prompts (the typo is the pipeline's own), for images and for videos.
std::string diffusers_system_prompt(bool image);

// A plain prompt as the JSON caption {"temporal_caption": prompt} (stripped); a JSON caption comes back unchanged.
std::string wrap_plain_prompt_as_caption(const std::string& prompt);
std::string format_negative_prompt(const std::string& negative, const PromptMetadata& meta, const PromptTemplates& t,
                                   NegativeMetadataMode mode);

}  // namespace ws

namespace ws {

// The caption in a reasoner reply: <think> blocks dropped, then the fenced ```json block (or the outermost
// braces). Throws ws::Error when the reply holds no JSON object.
ojson extract_json_caption(const std::string& reply);

// Problems of a structured caption against the caption schema (Cosmos 3 paper, Appendix A): wrong types of known fields
// and M:SS times that are malformed or exceed `duration_seconds` (<= 0: not checked). Empty = valid.
std::vector<std::string> validate_caption(const ojson& caption, double duration_seconds = 0);

// "M:SS" -> seconds, or -1 when malformed.
double parse_mss(const std::string& text);

}  // namespace ws
