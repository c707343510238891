#!/usr/bin/env python3
"""vitallens's local POS method on one video file, for `pipeline-vs-peers.sh`.

`VitalLens(method="pos")` runs offline: its face detector (an ONNX model shipped in
the wheel, run by onnxruntime, once a second with the boxes interpolated between)
and POS need no API key and no download; ffmpeg (a subprocess) decodes the file.
It reads Y4M directly; raw MJPEG it takes for a single JPEG image, so the script
gives it the same JPEG frames copied into a Matroska file (`ffmpeg -c:v copy`).

Prints one JSON object: heartRate as vitallens reports it (null if it found no
face), frames analysed, vitallens version.
"""
import argparse
import importlib.metadata
import json
import sys

from vitallens import VitalLens


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("video", help="a video file ffmpeg reads (Y4M, MKV, ...)")
    parser.add_argument("--fps", type=float, default=30.0, help="the file's frame rate")
    args = parser.parse_args()
    results = VitalLens(method="pos", export_to_json=False)(args.video, fps=args.fps)
    hr = results[0]["vitals"].get("heart_rate", {}).get("value") if results else None
    json.dump({"heartRate": hr, "frames": results[0]["n"] if results else None,
               "vitallens": importlib.metadata.version("vitallens")}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
