// The seed documents' flows (Circadify iOS SDK "Methods", "Camera & Permissions",
// "Error Handling"; SmartSpectra "Headless Mode"), without SwiftUI, as a Linux
// program would write them. Each runs against a camera: a V4L2 node, or a face
// video replayed through the same session.
//
//   circadify-examples --input clip.y4m [--expect-hr BPM]   # a replayed file
//   circadify-examples --device /dev/video0                 # a real camera
//
// Exits 0 when every flow behaved as the seeds say, 1 otherwise.
import Circadify
import Foundation

let arguments = CommandLine.arguments
func value(after flag: String) -> String? {
    arguments.firstIndex(of: flag).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

let makeCamera: @MainActor () -> CircadifyCamera
if let input = value(after: "--input") {
    makeCamera = { CircadifyCamera(replaying: input) }
} else if let device = value(after: "--device") {
    makeCamera = { CircadifyCamera(devicePath: device) }
} else {
    FileHandle.standardError.write(Data("usage: circadify-examples (--input FILE | --device PATH) [--expect-hr BPM]\n".utf8))
    exit(64)
}
let expectedHeartRate = value(after: "--expect-hr").flatMap(Int.init)

// The key's format is checked on the device and the key is never sent anywhere.
let sdk: CircadifySDK
do {
    sdk = try CircadifySDK(apiKey: "ck_test_ExampleKey0123456789")
} catch {
    print("SDK: \(error)")
    exit(1)
}

var failures = [String]()
@MainActor func check(_ condition: Bool, _ what: String) {
    print(condition ? "  ok: \(what)" : "  FAILED: \(what)")
    if !condition { failures.append(what) }
}

print("1. Permission flow (Camera & Permissions)")
check(await permissionFlow(camera: makeCamera()), "the camera went live after the permission check")

print("2. Scan with guidance and demographics (Methods)")
let result = await scanWithGuidance(sdk: sdk, camera: makeCamera())
check(result != nil, "measureVitals returned a result")
if let result, let expectedHeartRate {
    check(abs(result.heartRate - expectedHeartRate) <= 3, "heart rate \(result.heartRate) within 3 bpm of \(expectedHeartRate)")
}

print("3. Retry with backoff (Error Handling)")
check(await retryFlow(sdk: sdk, camera: makeCamera()), "a retryable error is retried, others are not")

print("4. cancel() from another task (Methods)")
check(await cancelFlow(sdk: sdk, camera: makeCamera()), "the measurement threw .cancelled and the camera stayed live")

print("5. Headless loop (SmartSpectra Headless Mode)")
check(await headlessLoop(sdk: sdk, camera: makeCamera()), "metrics arrived while monitoring, status back to idle after")

print(failures.isEmpty ? "all flows behaved as the seeds say" : "\(failures.count) flow(s) failed")
exit(failures.isEmpty ? 0 : 1)
