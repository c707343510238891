#!/usr/bin/env python3
"""The plain Python rPPG pipeline `pipeline-vs-peers.sh` compares `circadify scan`
against: what a competent person writes in an afternoon with OpenCV and SciPy.

OpenCV decodes the file (Y4M or raw MJPEG, FFmpeg backend), a Haar cascade finds
the face every 10th frame on a grey image 320 pixels wide (the width our own
detector works at; --detect-width 0 scans the full frame), the skin colour is the
mean of the face box on every frame, POS (Wang et al. 2017, "Algorithmic
principles of remote PPG") turns the RGB means into a pulse, band-passed to
42-210 bpm, and the highest Welch peak in that band is the heart rate.

Prints one JSON object: heartRate (null when no face or too short), frames read,
frames with a face, OpenCV version. A benchmark peer, not product code.
"""
import argparse
import json
import sys

import cv2
import numpy as np
from scipy.signal import butter, filtfilt, welch


def face_means(path, fps, seconds, detect_width):
    """Mean (R, G, B) of the face box, one row per frame with a face."""
    cascade = cv2.CascadeClassifier(cv2.data.haarcascades + "haarcascade_frontalface_default.xml")
    capture = cv2.VideoCapture(path)
    if not capture.isOpened():
        raise SystemExit(f"pos_pipeline.py: OpenCV cannot open {path}")
    limit = round(seconds * fps) if seconds else None
    rgb, box, frames = [], None, 0
    while limit is None or frames < limit:
        ok, frame = capture.read()
        if not ok:
            break
        if frames % 10 == 0:
            grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
            scale = detect_width / frame.shape[1] if detect_width else 1.0
            if scale != 1.0:
                grey = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
            faces = cascade.detectMultiScale(grey, scaleFactor=1.1, minNeighbors=5, minSize=(30, 30))
            if len(faces):
                x, y, w, h = max(faces, key=lambda f: f[2] * f[3]) / scale
                box = (int(y), int(y + h), int(x), int(x + w))
        frames += 1
        if box:
            b, g, r, _ = cv2.mean(frame[box[0]:box[1], box[2]:box[3]])
            rgb.append((r, g, b))
    return np.array(rgb), frames


def pos(rgb, fps):
    """POS: project each 1.6 s window's normalised colour onto the plane orthogonal
    to skin tone, tune the two projections against each other, overlap-add."""
    window = int(np.ceil(1.6 * fps))
    projection = np.array([[0, 1, -1], [-2, 1, 1]])
    pulse = np.zeros(len(rgb))
    for start in range(len(rgb) - window + 1):
        c = rgb[start:start + window]
        s = (c / c.mean(axis=0)) @ projection.T
        h = s[:, 0] + s[:, 0].std() / max(s[:, 1].std(), 1e-12) * s[:, 1]
        pulse[start:start + window] += h - h.mean()
    return pulse


def heart_rate(pulse, fps):
    """Band-pass 42-210 bpm (3rd-order Butterworth, both ways), then the Welch peak."""
    pulse = filtfilt(*butter(3, [0.7, 3.5], btype="bandpass", fs=fps), pulse)
    freqs, power = welch(pulse, fs=fps, nperseg=min(len(pulse), int(10 * fps)), nfft=8192)
    band = (freqs >= 0.7) & (freqs <= 3.5)
    return 60.0 * freqs[band][np.argmax(power[band])]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("video", help="Y4M or raw MJPEG file")
    parser.add_argument("--fps", type=float, default=30.0, help="the file's frame rate (raw MJPEG has none)")
    parser.add_argument("--seconds", type=float, help="read only the first SECONDS of the file")
    parser.add_argument("--detect-width", type=int, default=320,
                        help="width of the grey copy the cascade scans (default 320; 0: the full frame)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.detect_width < 0:
        parser.error("--detect-width must be 0 (the full frame) or a width in pixels")
    rgb, frames = face_means(args.video, args.fps, args.seconds, args.detect_width)
    hr = heart_rate(pos(rgb, args.fps), args.fps) if len(rgb) >= 4 * args.fps else None
    json.dump({"heartRate": hr, "frames": frames, "framesWithFace": len(rgb), "opencv": cv2.__version__},
              sys.stdout)
    print()


if __name__ == "__main__":
    main()
