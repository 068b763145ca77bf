#pragma once
#include <vector>

#include "model/network.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/model/request.h"
#include "worldstudio/core/tokenizer.h"

namespace ws {

// K/V-cached autoregressive decoding over the understanding tower. Stops at `stop_token` (-1 = never);
// streams complete UTF-8 text through cb.on_text when a tokenizer is given.
std::vector<int32_t> decode_tokens(const Network& net, const Tokenizer* tokenizer,
                                   const std::vector<int32_t>& prompt_ids, const ReasonerSampling& sampling,
                                   int64_t stop_token, const RunCallbacks& cb);

// The exact text the reasoner reads to upsample `prompt` with the upsampler template `template_name` (t2v, t2i,
// i2v, v2v) for the duration, frame rate and size of `req`: system turn, then the user turn with the filled
// template. Upsampling and the upsampler's training both use it.
std::string upsampler_chat(const std::string& template_name, const std::string& prompt, const GenerationRequest& req);

}  // namespace ws
