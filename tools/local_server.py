"""A loopback HTTP server for the built site, as a static host would serve it.

Used by scripts/serve, the tests and the benchmark: it sends the site's own
headers (from ``_headers``, so the Content-Security-Policy applies) and the
precompressed ``.gz`` copies to browsers that accept gzip; it can serve under a
path prefix, delay chosen files, or throttle its responses to a network profile (one link, shared).

Run as a script: ``python -m tools.local_server DIRECTORY PORT``.
"""

from __future__ import annotations

import functools
import io
import socket
import threading
import time
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass(frozen=True)
class Throttle:
    """A network profile: bandwidth in bytes per second and a round trip per request."""

    bytes_per_second: float
    round_trip_seconds: float


class _Link:
    """One network link, shared by every response of a server: their chunks queue for its bandwidth."""

    def __init__(self, bytes_per_second: float) -> None:
        self.bytes_per_second = bytes_per_second
        self.lock = threading.Lock()
        self.free_at = 0.0

    def send(self, size: int) -> None:
        """Wait until a chunk of ``size`` bytes has gone through the link."""
        with self.lock:
            start = max(time.monotonic(), self.free_at)
            self.free_at = start + size / self.bytes_per_second
            done = self.free_at
        time.sleep(max(0.0, done - time.monotonic()))


class _Handler(SimpleHTTPRequestHandler):
    """Serves a directory, optionally under a path prefix (as a sub-path host would)."""

    prefix = "/"
    site_headers: dict[str, str] = {}  # noqa: RUF012 - set per server class
    delays: dict[str, float] = {}  # noqa: RUF012 - path suffix → seconds to wait before answering
    requested: list[str] | None = None  # every path asked for, in order (when given)

    throttle: Throttle | None = None
    link: _Link | None = None

    def do_GET(self) -> None:
        if self.requested is not None:
            self.requested.append(self.path)
        for suffix, seconds in self.delays.items():
            if self.path.endswith(suffix):
                time.sleep(seconds)
        if self.throttle:
            time.sleep(self.throttle.round_trip_seconds)
        if not self.send_precompressed():
            super().do_GET()

    def send_precompressed(self) -> bool:
        """Send ``file.gz`` for ``file`` when the browser accepts gzip, as static hosts do."""
        if "gzip" not in self.headers.get("Accept-Encoding", ""):
            return False
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        packed = path.with_name(path.name + ".gz")
        if not (path.is_file() and packed.is_file()):
            return False
        body = packed.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Last-Modified", self.date_time_string(int(path.stat().st_mtime)))
        self.end_headers()
        self.copyfile(io.BytesIO(body), self.wfile)
        return True

    def copyfile(self, source, outputfile) -> None:  # type: ignore[no-untyped-def]
        try:
            if not self.link:
                return super().copyfile(source, outputfile)
            chunk = 16 * 1024
            while data := source.read(chunk):
                self.link.send(len(data))
                outputfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser went away (page closed, request cancelled): nothing to report
        return None

    def end_headers(self) -> None:
        for name, value in self.site_headers.items():
            self.send_header(name, value)
        super().end_headers()

    def translate_path(self, path: str) -> str:
        if not path.startswith(self.prefix):
            return str(Path(self.directory) / "__no_such_file__")
        return super().translate_path("/" + path[len(self.prefix):])

    def log_message(self, format: str, *args: object) -> None:
        pass


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        pass  # dropped connections are normal when a browser closes a page mid-download


@dataclass
class Server:
    """A loopback HTTP server for a directory."""

    url: str
    host: str
    httpd: ThreadingHTTPServer

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def site_headers(directory: Path) -> dict[str, str]:
    """The headers that the site's ``_headers`` file sets on every path, as a host would send them."""
    headers: dict[str, str] = {}
    file = directory / "_headers"
    if file.exists():
        block = file.read_text().split("\n/", 2)[0]
        for line in block.splitlines()[1:]:
            name, _, value = line.strip().partition(": ")
            headers[name] = value
    return headers


def free_port() -> int:
    """A loopback port nobody listens on now (for a site that must be built for its address first)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve(
    directory: Path, prefix: str = "/", delays: dict[str, float] | None = None, throttle: Throttle | None = None,
    port: int = 0, headers: dict[str, str] | None = None, requested: list[str] | None = None,
) -> Server:
    """Serve ``directory`` on a free loopback port (or ``port``), under ``prefix``, with the site's own headers
    and ``headers`` on every response (a host's own, e.g. GitHub Pages' ``Cache-Control: max-age=600``); each path
    asked for is appended to ``requested`` when given."""
    attributes = {"prefix": prefix, "site_headers": {**site_headers(directory), **(headers or {})}, "delays": delays or {},
                  "throttle": throttle, "link": _Link(throttle.bytes_per_second) if throttle else None,
                  "requested": requested}
    handler_class = type("Handler", (_Handler,), attributes)
    handler = functools.partial(handler_class, directory=str(directory))
    httpd = _QuietServer(("127.0.0.1", port), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    host = f"127.0.0.1:{httpd.server_address[1]}"
    return Server(f"http://{host}{prefix}", host, httpd)




if __name__ == "__main__":
    import sys

    running = serve(Path(sys.argv[1]), port=int(sys.argv[2]))
    print(f"[serve] {running.url}  (Ctrl+C to stop)", file=sys.stderr)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        running.stop()
