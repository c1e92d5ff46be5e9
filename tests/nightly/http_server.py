#!/usr/bin/env python3
"""A loopback HTTP server for the url source's tests (kernels/test-source-url.c).

Serves the files of ROOT with the validators a real server sends (ETag,
Last-Modified), answers conditional requests (If-None-Match,
If-Modified-Since -> 304) and byte ranges (Range, If-Range -> 206), and
has paths that misbehave on purpose:
  /missing/...      404
  /flaky/N/FILE     503 for the first N requests of that path, then FILE
  /cut/FILE         the first whole-file (200) answer for this path sends half
                    of FILE and closes the connection (Content-Length announces
                    all of it); later answers and ranges are complete
  /stall/FILE       headers, then nothing for 30 s
  /redirect/PATH    302 to /PATH, with a body of its own
Every request is appended to LOG as one JSON line (method, path, headers
that matter, status sent), so a test can check what the client asked.
Binds 127.0.0.1 only, on a free port, which it prints as the first line.
Usage: http_server.py ROOT LOG
"""
import email.utils
import hashlib
import http.server
import json
import os
import sys
import threading
import time

ROOT, LOG = sys.argv[1], sys.argv[2]
counts = {}
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def record(self, status):
        entry = {"method": self.command, "path": self.path, "status": status}
        for h in ("If-None-Match", "If-Modified-Since", "Range", "If-Range"):
            if self.headers.get(h) is not None:
                entry[h] = self.headers.get(h)
        with lock, open(LOG, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def plain(self, status, text):
        body = text.encode()
        self.record(status)
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        mode, parts = None, path.strip("/").split("/")
        if parts[0] == "missing":
            return self.plain(404, "not here\n")
        if parts[0] == "redirect":
            body = b"moved, see the Location header\n"
            self.record(302)
            self.send_response(302)
            self.send_header("Location", "/" + "/".join(parts[1:]))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if parts[0] == "flaky":
            with lock:
                counts[path] = counts.get(path, 0) + 1
                n = counts[path]
            if n <= int(parts[1]):
                return self.plain(503, "try later\n")
            parts = parts[2:]
        elif parts[0] in ("cut", "stall"):
            mode, parts = parts[0], parts[1:]
        name = "/".join(parts)
        full = os.path.realpath(os.path.join(ROOT, name))
        if not full.startswith(os.path.realpath(ROOT) + os.sep) and full != os.path.realpath(ROOT):
            return self.plain(404, "outside\n")
        if os.path.isdir(full):
            full = os.path.join(full, "index.html")
        if not os.path.isfile(full):
            return self.plain(404, "no such file\n")
        data = open(full, "rb").read()
        st = os.stat(full)
        etag = '"%s"' % hashlib.sha256(data).hexdigest()[:16]
        lastmod = email.utils.formatdate(int(st.st_mtime), usegmt=True)

        inm, ims = self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since")
        if (inm is not None and inm == etag) or (inm is None and ims is not None and ims == lastmod):
            self.record(304)
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", lastmod)
            self.end_headers()
            return

        start, status = 0, 200
        rng, if_range = self.headers.get("Range"), self.headers.get("If-Range")
        if rng and rng.startswith("bytes=") and rng.endswith("-") and (if_range is None or if_range in (etag, lastmod)):
            start = int(rng[6:-1])
            if start >= len(data):
                self.record(416)
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % len(data))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status = 206
        body = data[start:]
        self.record(status)
        self.send_response(status)
        self.send_header("Content-Type", "text/html" if full.endswith(".html") else "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", lastmod)
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
        self.end_headers()
        if mode == "stall":
            time.sleep(30)
            return
        if mode == "cut" and status == 200:
            with lock:
                counts["cut:" + path] = counts.get("cut:" + path, 0) + 1
                first = counts["cut:" + path] == 1
        if mode == "cut" and status == 200 and first:
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)


def main():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    sys.stdout.write("%d\n" % srv.server_address[1])
    sys.stdout.flush()
    srv.serve_forever()


if __name__ == "__main__":
    main()
