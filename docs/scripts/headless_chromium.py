"""Headless Chromium (Debian's `chromium`) driven through the DevTools protocol over a pipe
(`--remote-debugging-pipe`: commands on the child's descriptor 3, replies and events on its
descriptor 4, each message JSON ending in a NUL byte), with the standard library alone: open a
local page, wait until its script says it is ready, read values from it, collect what it wrote
to the console as errors, time its opening, and take PNG screenshots.

Used by docs/scripts/screenshots.py and by the tests of the HTML pages (which skip when no
Chromium is installed). Nothing is fetched from the network: the browser is started with
networking features off and only file:// pages are opened.
"""
from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["ChromiumError", "HeadlessChromium", "find_chromium"]

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Long enough for a slow machine; only a guard against a browser that hangs.
REPLY_GUARD_SECONDS = 120.0
READY = ("new Promise(resolve => { const ready = () => document.body && "
         "document.body.getAttribute('data-ready') ? resolve(performance.now()) : "
         "requestAnimationFrame(ready); ready(); })")


class ChromiumError(RuntimeError):
    """The browser could not be started, or answered a command with an error."""


def find_chromium() -> str | None:
    """The path of a Chromium or Chrome executable on PATH, or None."""
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class HeadlessChromium:
    """A headless browser with one page; use it as a context manager."""

    def __init__(self, executable: str | None = None, width: int = 1280,
                 height: int = 900) -> None:
        found = executable or find_chromium()
        if found is None:
            raise ChromiumError("no chromium on PATH (Debian: apt-get install chromium)")
        self.width, self.height = width, height
        self._profile = tempfile.mkdtemp(prefix="polyparse-chromium-")
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()
        # The child gets the pipes' other ends as its descriptors 3 and 4.
        self._process = subprocess.Popen(
            [found, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--disable-sync",
             "--disable-background-networking", "--disable-component-update",
             "--hide-scrollbars", "--remote-debugging-pipe", f"--user-data-dir={self._profile}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(commands_read, 3),
                                                 os.dup2(replies_write, 4)))
        os.close(commands_read)
        os.close(replies_write)
        self._pending = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._send("Target.attachToTarget",
                                   {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def __enter__(self) -> HeadlessChromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self._send("Browser.close")
        except (ChromiumError, OSError):
            pass
        for descriptor in (self._commands, self._replies):
            try:
                os.close(descriptor)
            except OSError:
                pass
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        shutil.rmtree(self._profile, ignore_errors=True)

    def _message(self) -> dict[str, Any]:
        while b"\0" not in self._pending:
            ready, _, _ = select.select([self._replies], [], [], REPLY_GUARD_SECONDS)
            if not ready:
                raise ChromiumError("chromium stopped answering")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise ChromiumError("chromium ended")
            self._pending += chunk
        message, self._pending = self._pending.split(b"\0", 1)
        return json.loads(message)

    def _send(self, method: str, params: dict[str, Any] | None = None,
              session: str | None = None) -> dict[str, Any]:
        self._next_id += 1
        request: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            request["sessionId"] = session
        os.write(self._commands, json.dumps(request).encode() + b"\0")
        while True:
            message = self._message()
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise ChromiumError(f"{method}: {message['error'].get('message')}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A command to the page; its result."""
        return self._send(method, params, self._session)

    def wait_for_event(self, method: str) -> dict[str, Any]:
        while True:
            for event in self.events:
                if event["method"] == method:
                    self.events.remove(event)
                    return event
            message = self._message()
            if "method" in message:
                self.events.append(message)

    def open(self, path: str | os.PathLike) -> float:
        """Open a local page and wait until its script has set data-ready on the body; the
        milliseconds from the start of the navigation to that moment (the page's own clock)."""
        url = Path(path).resolve().as_uri()
        self.send("Page.navigate", {"url": url})
        self.wait_for_event("Page.loadEventFired")
        return float(self.evaluate(READY, wait=True))

    def evaluate(self, expression: str, wait: bool = False) -> Any:
        """The value of a JavaScript expression in the page (awaited when wait)."""
        result = self.send("Runtime.evaluate", {"expression": expression,
                                                "returnByValue": True, "awaitPromise": wait})
        if "exceptionDetails" in result:
            raise ChromiumError(f"{expression[:60]}: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def console_errors(self) -> list[str]:
        """What the page wrote as errors: console.error and console.warn calls, uncaught
        exceptions, and the browser's own error entries (a resource that failed to load)."""
        found = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning",
                                                                               "assert"):
                found.append(" ".join(str(a.get("value", a.get("description", "")))
                                      for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                found.append(details.get("exception", {}).get("description")
                             or details.get("text", "exception"))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(params["entry"].get("text", "error"))
        return found

    def screenshot(self, path: str | os.PathLike, selector: str | None = None,
                   height: int | None = None, padding: int = 0) -> None:
        """A PNG of the page: the box of the first element matching selector (with padding
        around it), or the top of the page, height pixels high (default the window)."""
        if selector is not None:
            box = self.evaluate(
                f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                ".getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, "
                "r.height]; })()")
            x, y, width, box_height = box
            clip = {"x": max(0, x - padding), "y": max(0, y - padding),
                    "width": width + 2 * padding,
                    "height": (height or box_height) + 2 * padding, "scale": 1}
        else:
            clip = {"x": 0, "y": 0, "width": self.width, "height": height or self.height,
                    "scale": 1}
        shot = self.send("Page.captureScreenshot", {"format": "png", "clip": clip,
                                                    "captureBeyondViewport": True})
        Path(path).write_bytes(base64.b64decode(shot["data"]))


def pause_a_frame(browser: HeadlessChromium) -> None:
    """Let the page lay out and paint what its script last drew."""
    browser.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))",
                     wait=True)


