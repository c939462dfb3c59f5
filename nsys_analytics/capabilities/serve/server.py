"""The HTTP server: the standard library's ThreadingHTTPServer, GET only, the page's three files from the package
and the JSON API (api.py). Nothing it serves comes from a path in the URL: the static files are a fixed list."""

from __future__ import annotations

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import urlsplit

from . import api

STATIC = {"/": ("index.html", "text/html; charset=utf-8"), "/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/app.css": ("app.css", "text/css; charset=utf-8")}
# The page may load only its own files and ask only this server: no inline script, nothing from elsewhere.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def static_file(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


class Handler(BaseHTTPRequestHandler):
    server_version = "nsys-analytics"
    sys_version = ""
    protocol_version = "HTTP/1.1"

    def do_GET(self):  # the standard library's name
        url = urlsplit(self.path)
        if url.path in STATIC:
            name, ctype = STATIC[url.path]
            self._send(200, ctype, static_file(name))
        elif url.path.startswith("/api/"):
            try:
                start = time.perf_counter()
                answer = api.handle(self.server.session, url.path, url.query)
                # the server's own time, for the browser's developer tools and bench/bench_serve.py
                self._send(*answer, timing=f"app;dur={(time.perf_counter() - start) * 1000:.1f}")
            except Exception as e:  # noqa: BLE001 - a bug: one line to the browser, never a traceback
                self.server.log(f"internal error on {url.path}: {type(e).__name__}: {e}")
                self._send(500, api.JSON, json.dumps({"error": f"internal error: {type(e).__name__}"}).encode())
        else:
            self._send(404, api.JSON, b'{"error":"not found"}')

    def do_HEAD(self):
        self._send(405, api.JSON, b'{"error":"GET only"}')

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD  # read-only

    def _send(self, status: int, ctype: str, body: bytes, timing: str | None = None) -> None:
        self.send_response(status)
        if timing:
            self.send_header("Server-Timing", timing)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        if ctype.startswith("text/csv"):
            self.send_header("Content-Disposition", 'attachment; filename="table.csv"')
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format, *args):  # quiet: the console is the user's
        pass


class Server(ThreadingHTTPServer):
    """The viewer's server over one api.Session."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, session: api.Session, host: str = "127.0.0.1", port: int = 0):
        self.session = session
        super().__init__((host, port), Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host if ':' not in host else f'[{host}]'}:{port}/"

    def log(self, line: str) -> None:
        sys.stderr.write(line.replace("\n", " ") + "\n")
