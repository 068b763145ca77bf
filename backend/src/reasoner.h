#pragma once
#include <vector>

#include "network.h"
#include "worldstudio/engine.h"
#include "worldstudio/tokenizer.h"

namespace ws {

// K/V-cached autoregressive decoding over the understanding tower. Stops at `stop_token` (-1 = never);
// streams complete UTF-8 text through cb.on_text when a tokenizer is given.
std::vector<int32_t> decode_tokens(const Network& net, const Tokenizer* tokenizer, const std::vector<int32_t>& prompt_ids,
                                   const ReasonerSampling& sampling, int64_t stop_token, const RunCallbacks& cb);

}  // namespace ws
