#!/usr/bin/python3
"""Drives the `circadify preview` page in headless Chromium over the DevTools protocol:
loads it, clicks Start scan like a person would, waits for the result and checks what the
page shows: the result's heart rate against the clip's truth, a second Start refused, and
the scan overlay's glow on the face in a screenshot's pixels. Prints one line per check
and a closing `browser: N passed, N failed` line; exits 1 on any failure.

Only the standard library and websocket-client (Debian's python3-websocket).

    preview_browser.py URL CLIP_Y4M SCREENSHOT_JPEG [MIDSCAN_PNG]\n\nThe clip's truth is beside it (CLIP.json).

Beside SCREENSHOT_JPEG (the result) goes NAME-scanning.jpg (mid-scan). MIDSCAN_PNG, when
given, keeps the screenshot the overlay check read.
"""
import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

import websocket  # python3-websocket

VIEWPORT = (1280, 720)


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what):
        print(("ok    " if ok else "FAIL  ") + what, flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok


class DevTools:
    """A DevTools page session: numbered commands, their replies; events are skipped."""

    def __init__(self, url):
        self.socket = websocket.create_connection(url, timeout=60, suppress_origin=True)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout, interval=0.25):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(interval)
        return None

    def click(self, selector):
        """A real mouse click at the element's centre (pressed and released)."""
        box = self.evaluate(f"(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect();"
                            " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def screenshot(self, fmt="png", quality=None):
        params = {"format": fmt}
        if quality:
            params["quality"] = quality
        return base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])


def decode_png(data):
    """Width, height and RGB rows of an 8-bit RGB or RGBA, non-interlaced PNG (Chromium's)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, chunks, header = 8, [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unsupported PNG {header}"
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else up_left)) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def clip_frame(path):
    """The first frame of a 4:2:0 Y4M clip as RGB rows (BT.601 studio swing, as CCore reads it)."""
    with open(path, "rb") as clip:
        header = clip.readline().split()
        width = int(next(f[1:] for f in header if f.startswith(b"W")))
        height = int(next(f[1:] for f in header if f.startswith(b"H")))
        clip.readline()  # FRAME
        luma = clip.read(width * height)
        cb = clip.read(width * height // 4)
        cr = clip.read(width * height // 4)
    rows = []
    for y in range(height):
        row = bytearray(3 * width)
        for x in range(width):
            c = (y // 2) * (width // 2) + x // 2
            l, u, v = 1.164 * (luma[y * width + x] - 16), cb[c] - 128, cr[c] - 128
            rgb = (l + 1.596 * v, l - 0.392 * u - 0.813 * v, l + 2.017 * u)
            row[3 * x:3 * x + 3] = bytes(min(max(int(round(k)), 0), 255) for k in rgb)
        rows.append(row)
    return width, height, rows


def glow_share(png, box, video, raw):
    """The share of pixels in `box` (x0, y0, x1, y1, screen pixels) that the overlay turned
    warmer than the clip's own picture there: red up and blue down against the same pixel of
    the unrendered frame (the clip holds still), as the glow's gold-orange-red and the gold
    oval do. `video` is where the picture is on screen (x, y, width, height)."""
    width, height, channels, rows = decode_png(png)
    raw_width, raw_height, raw_rows = raw
    scale = video[2] / raw_width
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    warm = total = 0
    for y in range(max(y0, 0), min(y1, height)):
        row, source = rows[y], raw_rows[min(int((y - video[1]) / scale), raw_height - 1)]
        for x in range(max(x0, 0), min(x1, width)):
            sx = min(int((x - video[0]) / scale), raw_width - 1)
            r, b = row[x * channels], row[x * channels + 2]
            total += 1
            if (r - source[3 * sx]) - (b - source[3 * sx + 2]) >= 40:
                warm += 1
    return warm / max(total, 1)


def truth_heart_rate(path):
    """The clip's mean heart rate from its beat times."""
    beats = json.load(open(path))["beatTimes"]
    return 60 * (len(beats) - 1) / (beats[-1] - beats[0])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_chromium(profile):
    """Chromium in a session of its own, so that stop_chromium reaches its helper processes,
    with its temporary files (the singleton socket's folder) inside the profile."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if not binary:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    port = free_port()
    scratch = os.path.join(profile, "tmp")
    os.makedirs(scratch, exist_ok=True)
    process = subprocess.Popen(
        [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
         "--disable-dev-shm-usage", f"--remote-debugging-port={port}", "--remote-allow-origins=*",
         f"--user-data-dir={profile}", f"--window-size={VIEWPORT[0]},{VIEWPORT[1]}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env=dict(os.environ, TMPDIR=scratch))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2))
            pages = [t for t in targets if t.get("type") == "page"]
            if pages:
                return process, pages[0]["webSocketDebuggerUrl"]
        except OSError:
            pass
        time.sleep(0.3)
    stop_chromium(process)
    raise SystemExit("chromium did not open its DevTools port within 60 s")


def stop_chromium(process):
    """Ends Chromium and every helper it started (renderers, the zygote): the browser alone
    exiting can leave them writing into the profile as it is removed."""
    for sig, grace in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            continue
        # The browser is gone; give its helpers the same grace to follow it.
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and group_alive(process.pid):
            time.sleep(0.1)
        if not group_alive(process.pid):
            return


def group_alive(group):
    try:
        os.killpg(group, 0)
        return True
    except ProcessLookupError:
        return False


def video_box(page):
    """Where the video's picture is on screen: the <img>'s box less object-fit's letterbox."""
    return page.evaluate("""(() => {
        const v = document.getElementById('video'), r = v.getBoundingClientRect();
        const scale = Math.min(r.width / v.naturalWidth, r.height / v.naturalHeight);
        const w = v.naturalWidth * scale, h = v.naturalHeight * scale;
        return [r.x + (r.width - w) / 2, r.y + (r.height - h) / 2, w, h]; })()""")


def face_region(box):
    """Where the clip's face is in the picture (the rendered clip holds still; the guide oval
    sits on this box): the overlay's glow belongs there."""
    x, y, w, h = box
    return (x + 0.35 * w, y + 0.21 * h, x + 0.63 * w, y + 0.69 * h)


def main():
    url, clip, screenshot_path = sys.argv[1:4]
    truth = truth_heart_rate(clip[:-len(".y4m")] + ".json")
    checks = Checks()
    profile = tempfile.mkdtemp(prefix="circadify-chromium-")
    try:
        chromium, debugger = start_chromium(profile)
    except BaseException:
        # Not installed, or no DevTools port: start_chromium has stopped what it started.
        shutil.rmtree(profile, ignore_errors=True)
        raise
    try:
        page = DevTools(debugger)
        page.call("Emulation.setDeviceMetricsOverride", width=VIEWPORT[0], height=VIEWPORT[1],
                  deviceScaleFactor=1, mobile=False)
        page.call("Page.enable")
        page.call("Page.navigate", url=url)
        checks.check(page.wait_for("document.readyState === 'complete' && document.title", 30) == "Circadify preview",
                     "the page loads (title 'Circadify preview')")
        checks.check(page.wait_for("document.getElementById('video').naturalWidth > 0", 30),
                     "the video shows frames (MJPEG <img> has a picture)")
        hint = page.wait_for("(() => { const t = document.getElementById('hint').textContent;"
                             " return t !== 'Connecting…' && t; })()", 30)
        checks.check(bool(hint), f"live state arrives over server-sent events (hint: {hint!r})")
        live = page.wait_for("(() => { const t = document.getElementById('heart-rate').textContent;"
                             " return t !== '--' && t; })()", 40)
        checks.check(bool(live), f"a live heart rate is shown before the scan ({live} bpm)")

        page.click("#start")
        state = page.wait_for("document.body.dataset.scan === 'scanning' && 'scanning'", 10)
        checks.check(state == "scanning", "Start scan (a mouse click) starts a scan: the page shows it scanning")
        second = page.evaluate("fetch('/scan', {method: 'POST'}).then(async r => [r.status, (await r.json()).message])")
        checks.check(second[0] == 409, f"a second Start while scanning is refused: HTTP {second[0]} {second[1]!r}")

        # The glow runs hottest while measuring: the screenshot is taken then.
        page.wait_for("document.body.dataset.scan !== 'scanning' ||"
                      " document.getElementById('start').textContent.endsWith('measuring')", 30)
        time.sleep(2)
        scanning_png = page.screenshot()
        scanning_jpeg = page.screenshot("jpeg", quality=70)
        if len(sys.argv) > 4:
            with open(sys.argv[4], "wb") as out:
                out.write(scanning_png)
        box = video_box(page)
        raw = clip_frame(clip)
        corner = (box[0], box[1], box[0] + 0.2 * box[2], box[1] + 0.2 * box[3])
        on_face = glow_share(scanning_png, face_region(box), box, raw)
        background = glow_share(scanning_png, corner, box, raw)
        checks.check(on_face >= 0.03 and on_face >= 5 * background,
                     f"mid-scan screenshot: the overlay's glow is drawn on the face ({on_face:.1%} of the face "
                     f"region turned warmer than the clip's own picture, {background:.1%} of a background corner)")

        outcome = page.wait_for("['done', 'failed'].includes(document.body.dataset.scan) && document.body.dataset.scan",
                                240, interval=0.5)
        if outcome == "failed":
            print("      error shown: " + page.evaluate("document.getElementById('error-message').textContent"))
        checks.check(outcome == "done", f"the scan ends with a result on the page (outcome: {outcome})")
        shown = page.evaluate("document.getElementById('result-heart-rate').textContent")
        band = page.evaluate("document.getElementById('result-band').textContent")
        details = page.evaluate("document.getElementById('result-details').textContent")
        try:
            shown_bpm = int(shown)
        except (TypeError, ValueError):
            shown_bpm = None
        checks.check(shown_bpm is not None and abs(shown_bpm - truth) <= 3,
                     f"heart rate shown {shown} bpm vs truth {truth:.1f} bpm (within ±3)")
        checks.check(bool(band) and "confidence" in details,
                     f"the result shows its confidence and band ({details}; {band!r})")

        time.sleep(1)
        result_png = page.screenshot()
        after = glow_share(result_png, face_region(box), box, raw)
        checks.check(after >= 0.01, f"result screenshot: the overlay stays on the face while idle ({after:.1%} warmer)")
        os.makedirs(os.path.dirname(screenshot_path) or ".", exist_ok=True)
        with open(screenshot_path, "wb") as out:
            out.write(page.screenshot("jpeg", quality=70))
        scanning_path = screenshot_path.replace(".jpg", "-scanning.jpg")
        with open(scanning_path, "wb") as out:
            out.write(scanning_jpeg)
        print(f"      screenshots: {screenshot_path} (result), {scanning_path} (mid-scan)")
    finally:
        stop_chromium(chromium)
        shutil.rmtree(profile, ignore_errors=True)
    checks.check(not os.path.exists(profile) and not group_alive(chromium.pid),
                 "Chromium and its helpers have exited, and its profile and temporary files are removed")
    print(f"browser: {checks.passed} passed, {checks.failed} failed", flush=True)
    sys.exit(1 if checks.failed else 0)


if __name__ == "__main__":
    main()
