"""Headless Chromium driven over the DevTools protocol through a pipe (--remote-debugging-pipe: JSON messages
ending in NUL on file descriptors 3 and 4), with no library beyond the standard one: load a page, collect console
errors, uncaught exceptions and every network request, evaluate JavaScript, take a screenshot.

Used by the browser tests and by `make docs-images` (the report screenshot)."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def find() -> str | None:
    """The Chromium executable on PATH, or None."""
    return next((shutil.which(c) for c in CANDIDATES if shutil.which(c)), None)


def _pipe_fds(read_fd: int, write_fd: int) -> None:
    """In the child: the command pipe on fd 3, the reply pipe on fd 4 (through high numbers first, so neither
    overwrites the other). Other descriptors are not inheritable (PEP 446) and close at exec."""
    os.dup2(read_fd, 200)
    os.dup2(write_fd, 201)
    os.dup2(200, 3)
    os.dup2(201, 4)


class Browser:
    """One headless Chromium with one page. Use as a context manager."""

    def __init__(self, executable: str | None = None, width: int = 1280, height: int = 900):
        executable = executable or find()
        if executable is None:
            raise RuntimeError("no Chromium on PATH (Debian: apt-get install chromium)")
        self._profile = tempfile.mkdtemp(prefix="nsys-analytics-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The browser reads commands from fd 3 and writes replies to fd 4.
        self._proc = subprocess.Popen(
            [executable, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--disable-component-update", "--mute-audio",
             f"--user-data-dir={self._profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False,
            preexec_fn=lambda: _pipe_fds(to_browser_r, from_browser_w),
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    # -- protocol ---------------------------------------------------------------------------------------
    def call(self, method: str, session: bool = False, timeout: float = 60.0, **params) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_for(self, method: str, timeout: float = 60.0) -> dict:
        """The first event `method` (already received or still to come)."""
        deadline = time.monotonic() + timeout
        while True:
            for e in self.events:
                if e.get("method") == method:
                    return e
            self.events.append(self._read(deadline))

    # -- what tests use ---------------------------------------------------------------------------------
    def load(self, path: str | Path) -> None:
        """Open a local file and wait for its load event."""
        self.events.clear()
        self.call("Page.navigate", session=True, url=Path(path).absolute().as_uri())
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def console_errors(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and browser log errors since the last load."""
        out = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                out.append(" ".join(str(a.get("value", a.get("description"))) for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                out.append(params["exceptionDetails"].get("exception", {}).get("description", "exception"))
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                out.append(params["entry"]["text"])
        return out

    def requested_urls(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def screenshot(self, path: str | Path, full_page: bool = True) -> Path:
        params = {"format": "png"}
        if full_page:
            height = self.evaluate("Math.ceil(document.documentElement.scrollHeight)")
            width = self.evaluate("Math.ceil(document.documentElement.scrollWidth)")
            params.update(captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": width, "height": height,
                                                            "scale": 1})
        data = self.call("Page.captureScreenshot", session=True, **params)["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
