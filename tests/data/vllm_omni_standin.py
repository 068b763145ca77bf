#!/usr/bin/env python3
"""A stand-in for a vLLM-Omni server's video API on loopback, for the remote engine's tests.

Implements POST /v1/videos (multipart form), GET /v1/videos/{id}, GET /v1/videos/{id}/content, DELETE
/v1/videos/{id}, POST /v1/images/generations (JSON, a PNG as b64_json), /health and /v1/models, with the job
record's fields. The prompt steers it: "reject" answers the POST with HTTP 400, "fail" ends the job failed (a
picture: HTTP 500), "slow" keeps it in progress for 3 s, "drop" closes the connection on the first status request
(a picture: at once), "garbled" answers a picture that is not base64. GET /debug/{id} returns the form it
received and whether it was deleted; GET /debug/images the last picture request. Prints the port it listens on,
then serves until killed."""
import base64
import email.parser
import email.policy
import json
import struct
import sys
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

JOBS = {}
LOCK = threading.Lock()
VIDEO = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"stand-in video bytes"
IMAGES = []  # the picture requests, in order


def png(width, height, rgb):
    """A real PNG of one colour, so a client can decode what it downloads."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def parse_form(headers, body):
    message = email.parser.BytesParser(policy=email.policy.default).parsebytes(
        b"Content-Type: " + headers["Content-Type"].encode() + b"\r\n\r\n" + body)
    fields = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        fields[name] = payload.decode("utf-8", "replace") if part.get_filename() is None else {"file": part.get_filename(), "bytes": len(payload)}
    return fields


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, code, obj=None, raw=None, kind="application/json"):
        body = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def record(self, job):
        age = time.time() - job["created"]
        prompt = job["form"].get("prompt", "")
        run_for = 3.0 if "slow" in prompt else 0.3
        status, progress, error = "queued", 0, None
        if job["deleted"]:
            status = "failed"
            error = {"code": "cancelled", "message": "deleted"}
        elif age > 0.1:
            status, progress = "in_progress", 0
        if not job["deleted"] and age > 0.1 + run_for:
            if "fail" in prompt:
                status, error = "failed", {"code": "generation_failed", "message": "the stand-in was told to fail"}
            else:
                status, progress = "completed", 100
        return {"id": job["id"], "object": "video", "model": job["form"].get("model", "Cosmos3-Nano"), "prompt": prompt,
                "status": status, "progress": progress, "size": job["form"].get("size"), "created_at": int(job["created"]),
                "error": error, "media_type": "video/mp4", "file_name": job["id"] + ".mp4", "peak_memory_mb": 1234.5}

    def do_GET(self):
        parts = self.path.strip("/").split("/")
        if self.path == "/health":
            return self.send(200, {"status": "ok"})
        if self.path == "/v1/models":
            return self.send(200, {"object": "list", "data": [{"id": "Cosmos3-Nano", "object": "model"}]})
        if self.path == "/debug/images":
            with LOCK:
                return self.send(200, IMAGES[-1] if IMAGES else {})
        with LOCK:
            job = JOBS.get(parts[2] if len(parts) > 2 else (parts[1] if len(parts) > 1 else ""))
        if parts[0] == "debug" and job:
            return self.send(200, {"form": job["form"], "deleted": job["deleted"]})
        if len(parts) >= 3 and parts[:2] == ["v1", "videos"] and job:
            if len(parts) == 4 and parts[3] == "content":
                if self.record(job)["status"] != "completed":
                    return self.send(400, {"error": {"message": "not completed"}})
                return self.send(200, raw=VIDEO, kind="video/mp4")
            if "drop" in job["form"].get("prompt", "") and not job["dropped"]:
                job["dropped"] = True
                self.close_connection = True
                self.connection.shutdown(2)
                return None
            return self.send(200, self.record(job))
        return self.send(404, {"detail": "not found"})

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/v1/images/generations":
            return self.image(body)
        if self.path != "/v1/videos":
            return self.send(404, {"detail": "not found"})
        form = parse_form(self.headers, body)
        if "reject" in form.get("prompt", ""):
            return self.send(400, {"error": {"code": "invalid_request", "message": "prompt rejected by the stand-in"}})
        job = {"id": "video_gen_" + uuid.uuid4().hex[:12], "created": time.time(), "form": form, "deleted": False, "dropped": False}
        with LOCK:
            JOBS[job["id"]] = job
        self.send(200, self.record(job))

    def image(self, body):
        try:
            request = json.loads(body)
        except ValueError:
            return self.send(400, {"error": {"message": "the body is not JSON"}})
        if self.headers.get("Content-Type") != "application/json" or not isinstance(request, dict) or "prompt" not in request:
            return self.send(422, {"detail": "a JSON body with a prompt is required"})
        with LOCK:
            IMAGES.append(request)
        prompt = request["prompt"]
        if "reject" in prompt:
            return self.send(400, {"error": {"code": "invalid_request", "message": "prompt rejected by the stand-in"}})
        if "fail" in prompt:
            return self.send(500, {"error": {"code": "generation_failed", "message": "the stand-in was told to fail"}})
        if "drop" in prompt:
            self.close_connection = True
            self.connection.shutdown(2)
            return None
        if "slow" in prompt:
            time.sleep(3)
        width, height = (int(v) for v in request.get("size", "64x64").split("x"))
        picture = "not base64 at all!" if "garbled" in prompt else base64.b64encode(png(width, height, (200, 40, 40))).decode()
        return self.send(200, {"created": int(time.time()), "data": [{"b64_json": picture}]})

    def do_DELETE(self):
        parts = self.path.strip("/").split("/")
        with LOCK:
            job = JOBS.get(parts[2]) if len(parts) == 3 else None
        if not job:
            return self.send(404, {"detail": "not found"})
        job["deleted"] = True
        self.send(200, {"id": job["id"], "deleted": True, "object": "video.deleted"})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
