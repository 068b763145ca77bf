#pragma once
// A remote engine: a vLLM-Omni server's OpenAI-style APIs taking a job as a local session would. Video jobs
// (text2video, image2video, video2video) go to the video API: POST /v1/videos as a form, poll GET /v1/videos/{id},
// download GET /v1/videos/{id}/content, cancel with DELETE /v1/videos/{id}. The job's fields are mapped onto the form
// (prompt, negative_prompt, size, num_frames, fps, num_inference_steps, guidance_scale, flow_shift, seed,
// generate_sound, input_reference for a conditioning file, extra_params for the Cosmos 3 fields). Text2image jobs go
// to POST /v1/images/generations (JSON, answered with the picture as b64_json). The generation record holds the
// request, what was sent and what the server answered.
#include <string>

#include "worldstudio/model/engine.h"

namespace ws {

struct RemoteEngine {
    std::string url;    // the server, e.g. http://127.0.0.1:8000
    std::string model;  // sent as the form's "model" ("" leaves it out: the server's one model)
    double poll_seconds = 1.0;
    double connect_timeout_seconds = 10;
    double request_timeout_seconds = 600;  // one HTTP exchange (an upload or the download)
};

// Runs `job` on the server and writes OUT.mp4 (a picture: OUT.png; out_prefix may carry either extension) and
// OUT.json (the record). Progress comes from the video job record's coarse `progress` (0-100); cb.should_cancel
// aborts a transfer in flight, sends DELETE for a video job, and throws ws::Cancelled. A failed job, an HTTP error,
// a dropped connection or an answer that is not what the API documents throws ws::Error naming the server and what
// it said.
GenerationResult remote_generate(const RemoteEngine& engine, const ojson& job, const std::string& out_prefix,
                                 const RunCallbacks& cb);

}  // namespace ws
