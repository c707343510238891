/// The page, whole: HTML, CSS and JavaScript in one document, nothing from elsewhere, so a
/// board with no network shows it. Made for a kiosk screen as much as for a laptop.
enum PreviewPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Circadify preview</title>
<style>
  :root { color-scheme: dark; --gold: #F2B340; --hot: #FF401F; --dim: #8a8f98; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.4 system-ui, sans-serif; background: #111317; color: #e8e8ea; }
  main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(300px, 2fr); gap: 20px; padding: 20px; height: 100vh; }
  #video { width: 100%; max-height: calc(100vh - 40px); object-fit: contain; background: #000; border-radius: 12px; }
  aside { display: flex; flex-direction: column; gap: 14px; min-width: 0; }
  .card { background: #1b1e24; border-radius: 12px; padding: 14px 16px; }
  .label { color: var(--dim); font-size: 13px; text-transform: uppercase; letter-spacing: .06em; }
  .big { font-size: 44px; font-weight: 650; font-variant-numeric: tabular-nums; }
  .unit { font-size: 18px; color: var(--dim); margin-left: 4px; }
  .row { display: flex; gap: 14px; } .row > .card { flex: 1; }
  #hint { color: var(--gold); min-height: 1.4em; }
  #wave { width: 100%; height: 90px; display: block; }
  button { font: inherit; font-size: 20px; font-weight: 600; padding: 14px; border: 0; border-radius: 12px;
           background: var(--gold); color: #1b1204; cursor: pointer; }
  button:disabled { background: #4a4d55; color: #b5b7bd; cursor: default; }
  #progress { height: 6px; background: #2a2e36; border-radius: 3px; overflow: hidden; }
  #progress > div { height: 100%; width: 0; background: var(--hot); transition: width .2s; }
  #result.reliable { border-left: 6px solid #3ccf6e; } #result.rescan { border-left: 6px solid var(--gold); }
  #result.retry, #result.failed { border-left: 6px solid var(--hot); }
  .hidden { display: none; }
  .small { color: var(--dim); font-size: 13px; }
  @media (max-width: 800px) { main { grid-template-columns: 1fr; height: auto; } }
</style>
</head>
<body>
<main>
  <img id="video" src="/video.mjpg" alt="Live camera with the scan overlay">
  <aside>
    <div class="row">
      <div class="card"><div class="label">Heart rate</div>
        <div class="big"><span id="heart-rate">--</span><span class="unit">bpm</span></div></div>
      <div class="card"><div class="label">Breathing</div>
        <div class="big"><span id="breathing">--</span><span class="unit">/min</span></div></div>
    </div>
    <div class="card"><div class="label">Pulse wave</div><canvas id="wave" width="600" height="90"></canvas></div>
    <div class="card"><div class="label">Status</div><div id="hint">Connecting…</div>
      <div id="scan-hints" class="small"></div></div>
    <button id="start" type="button">Start scan</button>
    <div id="progress"><div></div></div>
    <div id="result" class="card hidden">
      <div class="label">Result</div>
      <div class="big"><span id="result-heart-rate">--</span><span class="unit">bpm</span></div>
      <div id="result-details" class="small"></div>
      <div id="result-band"></div>
    </div>
    <div id="error" class="card failed hidden"><div class="label">Scan failed</div><div id="error-message"></div></div>
    <div id="source" class="small"></div>
  </aside>
</main>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
let scanning = false;

function show(id, visible) { $(id).classList.toggle("hidden", !visible); }

function drawWave(wave) {
  const canvas = $("wave"), g = canvas.getContext("2d");
  g.clearRect(0, 0, canvas.width, canvas.height);
  if (!wave || wave.length < 2) return;
  g.strokeStyle = "#FF801F"; g.lineWidth = 2.5; g.beginPath();
  wave.forEach((v, i) => {
    const x = i * canvas.width / (wave.length - 1), y = canvas.height / 2 - v * canvas.height * 0.42;
    i ? g.lineTo(x, y) : g.moveTo(x, y);
  });
  g.stroke();
}

function render(s) {
  $("heart-rate").textContent = s.heartRate == null ? "--" : Math.round(s.heartRate);
  $("breathing").textContent = s.breathingRate == null ? "--" : Math.round(s.breathingRate);
  drawWave(s.pulseWave);
  $("hint").textContent = s.cameraError ? "Camera: " + s.cameraError : (s.hint || "Starting the camera…");
  $("source").textContent = "Source: " + s.source;
  const scan = s.scan;
  scanning = scan.state === "scanning";
  $("start").disabled = scanning;
  $("start").textContent = scanning ? "Scanning… " + (scan.phase || "") : "Start scan";
  $("scan-hints").textContent = scanning ? scan.hints.join(" · ") : "";
  $("progress").firstElementChild.style.width = (scanning ? (scan.fraction || 0) * 100 : 0) + "%";
  document.body.dataset.scan = scan.state;
  show("result", scan.state === "done");
  show("error", scan.state === "failed");
  if (scan.result) {
    const r = scan.result;
    $("result").className = "card " + r.band;
    $("result-heart-rate").textContent = r.heartRate;
    $("result-details").textContent = [
      "HRV " + (r.hrv == null ? "not measured" : r.hrv + " ms"),
      "breathing " + (r.respiratoryRate == null ? "not measured" : r.respiratoryRate + " /min"),
      "confidence " + r.confidence.toFixed(2)].join(" · ");
    $("result-band").textContent = r.bandText;
  }
  if (scan.error) $("error-message").textContent = scan.error.message;
}

$("start").addEventListener("click", async () => {
  $("start").disabled = true;
  try {
    const reply = await fetch("/scan", { method: "POST" });
    if (!reply.ok) {
      const body = await reply.json().catch(() => ({ message: reply.statusText }));
      show("error", true); $("error-message").textContent = body.message;
      $("start").disabled = scanning;
    }
  } catch (e) {
    show("error", true); $("error-message").textContent = "The preview server is not reachable";
    $("start").disabled = false;
  }
});

const events = new EventSource("/events");
events.addEventListener("state", (e) => render(JSON.parse(e.data)));
events.onerror = () => { $("hint").textContent = "Reconnecting to the preview server…"; };
// A video stream that breaks (a restarted server) is reopened.
$("video").addEventListener("error", () => setTimeout(() => { $("video").src = "/video.mjpg?" + Date.now(); }, 1000));
</script>
</body>
</html>
"""#
}
