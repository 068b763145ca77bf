#include "worldstudio/jobs/remote_engine.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "worldstudio/core/base64.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/request.h"

namespace fs = std::filesystem;

namespace ws {

namespace {
struct Response {
    long status = 0;
    std::string body;
};

size_t collect(char* data, size_t size, size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
}

using Handle = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;
Handle new_handle() {
    static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    Handle h(initialised ? curl_easy_init() : nullptr, curl_easy_cleanup);
    if (!h) throw Error("the HTTP library could not start");
    return h;
}

// Aborts a transfer when the run is cancelled (curl asks about once a second, and on every chunk).
int abort_when_cancelled(void* cb, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    const RunCallbacks* c = static_cast<const RunCallbacks*>(cb);
    return c && c->should_cancel && c->should_cancel() ? 1 : 0;
}

struct Body {
    curl_mime* form = nullptr;          // a multipart POST (made on the handle it is sent with)
    const std::string* json = nullptr;  // a JSON POST
};

// One HTTP exchange: a GET, or a POST of `body`; `method` overrides the verb (DELETE). With `cb`, a cancel aborts
// the transfer and throws ws::Cancelled.
Response exchange(const RemoteEngine& e, const std::string& path, const char* method, Body body = {},
                  CURL* with = nullptr, const RunCallbacks* cb = nullptr) {
    Handle own(nullptr, curl_easy_cleanup);
    if (!with) own = new_handle();
    CURL* curl = with ? with : own.get();
    curl_mime* form = body.form;
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers(nullptr, curl_slist_free_all);
    Response r;
    const std::string url = e.url + path;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(e.connect_timeout_seconds * 1000));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(e.request_timeout_seconds * 1000));
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    if (form) curl_easy_setopt(curl, CURLOPT_MIMEPOST, form);
    if (body.json) {
        headers.reset(curl_slist_append(nullptr, "Content-Type: application/json"));
        curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.json->c_str());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.json->size()));
    }
    if (method) curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    if (cb) {
        curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, abort_when_cancelled);
        curl_easy_setopt(curl, CURLOPT_XFERINFODATA, cb);
        curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    }
    const CURLcode code = curl_easy_perform(curl);
    if (code == CURLE_ABORTED_BY_CALLBACK) throw Cancelled();
    if (code != CURLE_OK)
        throw Error(e.url + ": " +
                    (method              ? method
                     : form || body.json ? "POST"
                                         : "GET") +
                    " " + path + " failed: " + curl_easy_strerror(code));
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
    return r;
}

ojson json_body(const RemoteEngine& e, const std::string& what, const Response& r) {
    const ojson j = ojson::parse(r.body, nullptr, false);
    if (r.status >= 400) {
        std::string message = r.body.substr(0, 300);
        if (j.is_object() && j.contains("error") && j["error"].is_object() && j["error"].contains("message") &&
            j["error"]["message"].is_string())
            message = j["error"]["message"].get<std::string>();
        else if (j.is_object() && j.contains("detail") && j["detail"].is_string())
            message = j["detail"].get<std::string>();
        throw Error(e.url + ": " + what + " answered HTTP " + std::to_string(r.status) + ": " + message);
    }
    if (!j.is_object()) throw Error(e.url + ": " + what + " did not answer with a JSON object");
    return j;
}

std::string text_of(const ojson& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// OUT without an .mp4 or .png extension: the media and the record are OUT.EXT and OUT.json.
std::string base_of(const std::string& out_prefix) {
    const std::string ext = fs::path(out_prefix).extension().string();
    const std::string base = ext == ".mp4" || ext == ".png"
                                 ? (fs::path(out_prefix).parent_path() / fs::path(out_prefix).stem()).string()
                                 : out_prefix;
    if (fs::path(base).has_parent_path()) fs::create_directories(fs::path(base).parent_path());
    return base;
}

void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) throw Error(path + ": cannot write");
}

GenerationResult finish(const RemoteEngine& e, const GenerationRequest& req, const std::string& base,
                        const std::string& media, const std::string& kind, const std::string& job_id, const ojson& sent,
                        const ojson& response, double seconds) {
    GenerationResult result;
    result.outputs.push_back(media);
    result.record = {
        {"record_version", 1},
        {"engine", {{"kind", "vllm-omni"}, {"url", e.url}, {"model", e.model}, {"job_id", job_id}}},
        {"mode", mode_name(req.mode)},
        {"seed", req.seed},
        {"num_steps", req.num_steps},
        {"guidance", req.guidance},
        {"shift", req.shift},
        {"request", req.to_json()},
        {"sent", sent},
        {"response", response},
        {"outputs", ojson::array({{{kind, fs::path(media).filename().string()}, {"seed", req.seed}}})},
        {"seconds", seconds},
        {"versions", {{"worldstudio", WS_VERSION}, {"curl", curl_version_info(CURLVERSION_NOW)->version}}}};
    write_file(base + ".json", result.record.dump(2) + "\n");
    result.outputs.push_back(base + ".json");
    return result;
}

// Text to image: one POST /v1/images/generations (JSON; the server answers when the picture is made, so a cancel
// aborts the exchange), the picture from data[0].b64_json.
GenerationResult remote_image(const RemoteEngine& e, const GenerationRequest& req, const Resolution& size,
                              const std::string& out_prefix, const RunCallbacks& cb,
                              std::chrono::steady_clock::time_point t_start) {
    ojson sent = {{"prompt", req.prompt},
                  {"size", std::to_string(size.width) + "x" + std::to_string(size.height)},
                  {"n", 1},
                  {"response_format", "b64_json"},
                  {"num_inference_steps", req.num_steps},
                  {"guidance_scale", req.guidance},
                  {"seed", req.seed}};
    if (!req.negative_prompt.empty()) sent["negative_prompt"] = req.negative_prompt;
    if (!e.model.empty()) sent["model"] = e.model;
    if (cb.on_progress) cb.on_progress(0, 100, 0);
    const std::string body = sent.dump();
    const std::string what = "POST /v1/images/generations";
    ojson answer =
        json_body(e, what, exchange(e, "/v1/images/generations", nullptr, Body{nullptr, &body}, nullptr, &cb));
    if (!answer.contains("data") || !answer["data"].is_array() || answer["data"].empty() ||
        !answer["data"][0].is_object() || !answer["data"][0].contains("b64_json") ||
        !answer["data"][0]["b64_json"].is_string())
        throw Error(e.url + ": " + what + " answered without data[0].b64_json");
    std::vector<uint8_t> picture;
    try {
        picture = base64_decode(answer["data"][0]["b64_json"].get<std::string>());
    } catch (const Error&) {
        throw Error(e.url + ": " + what + " answered a picture that is not valid base64");
    }
    static const uint8_t kPng[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (picture.size() < sizeof(kPng) || !std::equal(std::begin(kPng), std::end(kPng), picture.begin()))
        throw Error(e.url + ": " + what + " answered a picture that is not a PNG");
    // The record keeps the answer without the picture's bytes (they are the PNG beside it).
    answer["data"][0]["b64_json"] = std::to_string(picture.size()) + " bytes, in the PNG";
    const std::string base = base_of(out_prefix);
    write_file(base + ".png", std::string(picture.begin(), picture.end()));
    if (cb.on_progress)
        cb.on_progress(100, 100, std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count());
    return finish(e, req, base, base + ".png", "image", "", sent, answer,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count());
}
}  // namespace

GenerationResult remote_generate(const RemoteEngine& e, const ojson& job, const std::string& out_prefix,
                                 const RunCallbacks& cb) {
    if (e.url.rfind("http://", 0) != 0 && e.url.rfind("https://", 0) != 0)
        throw Error("a remote engine's URL starts with http:// or https:// (got '" + e.url + "')");
    const auto t_start = std::chrono::steady_clock::now();
    const GenerationRequest req = GenerationRequest::parse(job);
    if (req.mode != Mode::Text2Image && req.mode != Mode::Text2Video && req.mode != Mode::Image2Video &&
        req.mode != Mode::Video2Video)
        throw Error(
            std::string(
                "the remote engine client sends text2image, text2video, image2video and video2video jobs (the image and video APIs), not ") +
            mode_name(req.mode));
    const Resolution size =
        req.width > 0 ? Resolution{req.width, req.height} : resolution_for(req.resolution, req.aspect_ratio);
    if (req.mode == Mode::Text2Image) return remote_image(e, req, size, out_prefix, cb, t_start);
    // The form, field by field from the request (what is sent is kept for the record).
    ojson sent = {{"prompt", req.prompt},
                  {"size", std::to_string(size.width) + "x" + std::to_string(size.height)},
                  {"num_frames", req.num_frames},
                  {"fps", req.fps},
                  {"num_inference_steps", req.num_steps},
                  {"guidance_scale", req.guidance},
                  {"flow_shift", req.shift},
                  {"seed", req.seed},
                  {"generate_sound", req.enable_sound}};
    if (!req.negative_prompt.empty()) sent["negative_prompt"] = req.negative_prompt;
    if (!e.model.empty()) sent["model"] = e.model;
    ojson extra = ojson::object();
    if (!req.condition_frame_indexes_vision.empty())
        extra["condition_frame_indexes_vision"] = req.condition_frame_indexes_vision;
    extra["negative_metadata_mode"] = req.negative_metadata_mode == NegativeMetadataMode::None   ? "none"
                                      : req.negative_metadata_mode == NegativeMetadataMode::Same ? "same"
                                                                                                 : "inverse";
    sent["extra_params"] = extra;
    Handle handle = new_handle();
    std::unique_ptr<curl_mime, decltype(&curl_mime_free)> form(curl_mime_init(handle.get()), curl_mime_free);
    for (const auto& [k, v] : sent.items()) {
        curl_mimepart* part = curl_mime_addpart(form.get());
        curl_mime_name(part, k.c_str());
        const std::string value = text_of(v);
        curl_mime_data(part, value.c_str(), CURL_ZERO_TERMINATED);
    }
    if (!req.vision_path.empty()) {
        if (!fs::exists(req.vision_path)) throw Error("vision_path '" + req.vision_path + "' does not exist");
        curl_mimepart* part = curl_mime_addpart(form.get());
        curl_mime_name(part, "input_reference");
        curl_mime_filedata(part, req.vision_path.c_str());
        sent["input_reference"] = fs::path(req.vision_path).filename().string();
    }
    const ojson created = json_body(e, "POST /v1/videos",
                                    exchange(e, "/v1/videos", nullptr, Body{form.get(), nullptr}, handle.get(), &cb));
    if (!created.contains("id") || !created["id"].is_string())
        throw Error(e.url + ": POST /v1/videos answered without a job id");
    const std::string id = created["id"].get<std::string>();
    if (cb.on_log) cb.on_log("remote job " + id + " on " + e.url);
    ojson record_of_job = created;
    for (;;) {
        if (cb.should_cancel && cb.should_cancel()) {
            try {
                exchange(e, "/v1/videos/" + id, "DELETE");
            } catch (const Error&) {
                // the server may already have dropped it; the job is cancelled here either way
            }
            throw Cancelled();
        }
        record_of_job = json_body(e, "GET /v1/videos/" + id, exchange(e, "/v1/videos/" + id, nullptr));
        const std::string status = record_of_job.value("status", std::string());
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
        if (cb.on_progress) cb.on_progress(static_cast<int>(record_of_job.value("progress", 0.0)), 100, elapsed);
        if (status == "completed") break;
        if (status == "failed") {
            std::string message = "no reason given";
            if (record_of_job.contains("error") && record_of_job["error"].is_object())
                message = record_of_job["error"].value("message", message);
            throw Error(e.url + ": job " + id + " failed: " + message);
        }
        if (status != "queued" && status != "in_progress")
            throw Error(e.url + ": job " + id + " has an unknown status '" + status + "'");
        std::this_thread::sleep_for(std::chrono::duration<double>(e.poll_seconds));
    }
    const Response video = exchange(e, "/v1/videos/" + id + "/content", nullptr, {}, nullptr, &cb);
    if (video.status >= 400)
        json_body(e, "GET /v1/videos/" + id + "/content", video);  // throws with the server's words
    if (video.body.empty()) throw Error(e.url + ": job " + id + " has no video content");
    const std::string base = base_of(out_prefix);
    write_file(base + ".mp4", video.body);
    return finish(e, req, base, base + ".mp4", "video", id, sent, record_of_job,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count());
}

}  // namespace ws
