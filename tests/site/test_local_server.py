"""The loopback server's network profile: one link whose bandwidth concurrent downloads share."""

from __future__ import annotations

import threading
import time
import urllib.request
from pathlib import Path

from tools.local_server import Throttle, serve


def download(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        body: bytes = response.read()
        return body


def test_concurrent_downloads_share_the_bandwidth(tmp_path: Path) -> None:
    (tmp_path / "a.bin").write_bytes(b"a" * 100_000)
    (tmp_path / "b.bin").write_bytes(b"b" * 100_000)
    server = serve(tmp_path, throttle=Throttle(bytes_per_second=1_000_000, round_trip_seconds=0.0))
    bodies: dict[str, bytes] = {}
    try:
        threads = [threading.Thread(target=lambda n=name: bodies.__setitem__(n, download(server.url + n)))
                   for name in ("a.bin", "b.bin")]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - start
    finally:
        server.stop()
    assert bodies == {"a.bin": b"a" * 100_000, "b.bin": b"b" * 100_000}
    # 200 kB through one 1 MB/s link take at least 0.2 s; two links of their own would take 0.1 s.
    assert elapsed >= 0.19
