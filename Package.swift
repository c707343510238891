// swift-tools-version:6.0
// Circadify for Linux: contactless vital signs from a V4L2 camera.
// CCore is the realtime C core (capture, kernels, ring); Circadify is the Swift SDK on top.
import PackageDescription

// No unsafeFlags anywhere: a package that depends on this one by version refuses them.
// The C warnings (-Wall -Wextra) are CI's business: Tools/run-tests.sh passes them with -Xcc.
let cCoreSettings: [CSetting] = [
    .define("_GNU_SOURCE"),
]

let package = Package(
    name: "Circadify",
    products: [
        .library(name: "Circadify", type: .static, targets: ["Circadify"]),
        .library(name: "CCore", type: .static, targets: ["CCore"]),
        .executable(name: "circadify", targets: ["circadify"]),
        .executable(name: "circadify-groundtruth", targets: ["circadify-groundtruth"]),
        .executable(name: "circadify-accuracy", targets: ["circadify-accuracy"]),
        .executable(name: "circadify-examples", targets: ["circadify-examples"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` / `preview-documentation` for the DocC catalog.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .target(
            name: "CCore",
            path: "CCore",
            sources: ["src"],
            publicHeadersPath: "include",
            cSettings: cCoreSettings,
            linkerSettings: [
                .linkedLibrary("turbojpeg"), .linkedLibrary("fftw3f"), .linkedLibrary("v4lconvert"), .linkedLibrary("m"), .linkedLibrary("pthread"),
                // MJPEG decoding (jpeg.c) through libjpeg's own API, which stops at the last row a frame needs.
                .linkedLibrary("jpeg"),
            ]
        ),
        .target(
            name: "Circadify",
            dependencies: ["CCore"],
            path: "Sources/Circadify"
        ),
        .executableTarget(
            name: "circadify",
            dependencies: ["Circadify", "ProcessSignals", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/circadify"
        ),
        // SIGINT, SIGTERM and SIGHUP as a clean stop, for the command-line tools.
        .target(
            name: "ProcessSignals",
            path: "Tools/signals"
        ),
        // The seeds' flows (permission, scan with guidance, retry, cancel, headless) as a program.
        .executableTarget(
            name: "circadify-examples",
            dependencies: ["Circadify"],
            path: "Tools/examples/seed-flows"
        ),
        // Raw V4L2 access to vivid and its output->capture loopback, for the two below.
        .target(
            name: "VividKit",
            path: "Tests/Integration/vivid-kit",
            publicHeadersPath: "include",
            cSettings: cCoreSettings
        ),
        // Kernel-driver suite: runs inside the QEMU guest against vivid (Tools/vm).
        .executableTarget(
            name: "ccore-vivid-suite",
            dependencies: ["CCore", "VividKit"],
            path: "Tests/Integration/vivid-suite",
            cSettings: cCoreSettings
        ),
        // Plays a Y4M clip into vivid's loopback, so a camera client can capture it in the guest.
        .executableTarget(
            name: "vivid-feeder",
            dependencies: ["CCore", "VividKit"],
            path: "Tests/Integration/vivid-feeder",
            cSettings: cCoreSettings
        ),
        // The public SDK on vivid in the guest: measureVitals, cancel(), a disconnect (run-sdk-check.sh).
        .executableTarget(
            name: "circadify-sdk-check",
            dependencies: ["Circadify", "VividKit"],
            path: "Tests/Integration/sdk-check"
        ),
        // Per-frame cost and allocation benchmark of the C core (Tools/bench).
        .executableTarget(
            name: "ccore-bench",
            dependencies: ["CCore"],
            path: "Tools/bench/ccore-bench",
            cSettings: cCoreSettings
        ),
        // Preview: the overlay renderer's, the JPEG encode's and the capture thread's cost per frame (Tools/bench).
        .executableTarget(
            name: "circadify-preview-bench",
            dependencies: ["Circadify", "CCore"],
            path: "Tools/bench/preview-bench"
        ),
        // Face detector timing and boxes on PGM images, the C side of Tools/bench/faces-vs-opencv.sh.
        .executableTarget(
            name: "ccore-facebench",
            dependencies: ["CCore"],
            path: "Tools/bench/ccore-facebench",
            cSettings: cCoreSettings
        ),
        // Synthetic pulsing-face clips for the demo, tests and benchmark (Tools/testclip).
        .executableTarget(
            name: "ccore-testclip",
            dependencies: ["CCore"],
            path: "Tools/testclip",
            cSettings: cCoreSettings
        ),
        // Ground-truth face videos (Tools/groundtruth): the generator library and its CLI.
        // Unoptimised it renders the tests' clips 4x slower: Tools/run-tests.sh adds -Xcc -O2.
        .target(
            name: "GroundTruth",
            dependencies: ["CCore"],
            path: "Tools/groundtruth/GroundTruth",
            publicHeadersPath: "include",
            cSettings: cCoreSettings
        ),
        .executableTarget(
            name: "circadify-groundtruth",
            dependencies: ["GroundTruth"],
            path: "Tools/groundtruth/cli",
            cSettings: cCoreSettings
        ),
        // The generator's Swift face: truth files and clip rendering for the tests and the benchmark.
        .target(
            name: "GroundTruthKit",
            dependencies: ["GroundTruth"],
            path: "Tools/groundtruth/GroundTruthKit"
        ),
        // Accuracy benchmark: the whole pipeline on ground-truth videos (Tools/accuracy).
        // AccuracyKit scores, counts, fits and plots; the CLI renders, caches and prints.
        .target(
            name: "AccuracyKit",
            dependencies: ["Circadify", "GroundTruthKit"],
            path: "Tools/accuracy/AccuracyKit"
        ),
        .executableTarget(
            name: "circadify-accuracy",
            dependencies: [
                "AccuracyKit", "GroundTruthKit", "ProcessSignals",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/accuracy/cli"
        ),
        .testTarget(
            name: "AccuracyTests",
            dependencies: ["AccuracyKit", "Circadify", "GroundTruthKit"],
            path: "Tests/AccuracyTests"
        ),
        // Frame and file generators shared by the test targets.
        .target(
            name: "CCoreTestSupport",
            dependencies: ["CCore"],
            path: "Tests/Support"
        ),
        .testTarget(
            name: "CCoreTests",
            dependencies: ["CCore", "CCoreTestSupport"],
            path: "Tests/CCoreTests"
        ),
        .testTarget(
            name: "GroundTruthTests",
            dependencies: ["GroundTruth", "CCore"],
            path: "Tests/GroundTruthTests"
        ),
        .testTarget(
            name: "CircadifyTests",
            dependencies: ["Circadify", "CCore", "CCoreTestSupport", "GroundTruthKit"],
            path: "Tests/CircadifyTests"
        ),
    ],
    swiftLanguageModes: [.v6],
    cLanguageStandard: .c11
)

// Web preview (issue 14): `circadify preview`'s local HTTP server (SwiftNIO), a target of its
// own so the SDK library never depends on the HTTP stack (swift-nio: declared with the monitor's
// packages below).
package.targets.append(contentsOf: [
    // What one client can hold of an HTTP server (connections, the time to send a request):
    // the preview's and the monitor's metrics endpoint's.
    .target(
        name: "HTTPConnectionLimits",
        dependencies: [
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ],
        path: "Sources/HTTPConnectionLimits"
    ),
    .target(
        name: "CircadifyPreviewServer",
        dependencies: [
            "Circadify",
            "HTTPConnectionLimits",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ],
        path: "Sources/CircadifyPreviewServer"
    ),
    .testTarget(
        name: "CircadifyPreviewServerTests",
        dependencies: ["CircadifyPreviewServer", "HTTPConnectionLimits", "Circadify", "GroundTruthKit"],
        path: "Tests/CircadifyPreviewServerTests"
    ),
])
for target in package.targets where target.name == "circadify" {
    target.dependencies.append("CircadifyPreviewServer")
}
// circadify monitor (issue 13): the SDK's headless state as a service (Tools/monitor): JSON
// Lines, camera reopened with backoff, swift-service-lifecycle for signals, swift-log, and
// Prometheus metrics (swift-metrics, swift-prometheus) on a minimal SwiftNIO HTTP endpoint.
// swift-nio is the web preview's HTTP stack too (above).
package.dependencies += [
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
]
package.targets += [
    .target(
        name: "CircadifyMonitor",
        dependencies: [
            "Circadify",
            "HTTPConnectionLimits",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ],
        path: "Tools/monitor"
    ),
    .testTarget(
        name: "CircadifyMonitorTests",
        dependencies: [
            "CircadifyMonitor", "HTTPConnectionLimits", "Circadify", "GroundTruthKit",
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Tests/CircadifyMonitorTests"
    ),
]
for target in package.targets where target.name == "circadify" {
    target.dependencies.append("CircadifyMonitor")
}

// The latency profiler (Tools/latency): circadify-latency reports per-stage HdrHistogram
// percentiles of the real pipeline; LatencyKit holds its recording and reports for the tests.
package.dependencies += [
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
]
package.products += [
    .executable(name: "circadify-latency", targets: ["circadify-latency"]),
]
package.targets += [
    .target(
        name: "LatencyKit",
        dependencies: ["Circadify", .product(name: "Histogram", package: "hdrhistogram-swift")],
        path: "Tools/latency/LatencyKit"
    ),
    .executableTarget(
        name: "circadify-latency",
        dependencies: ["LatencyKit", "Circadify", "ProcessSignals",
                       .product(name: "ArgumentParser", package: "swift-argument-parser")],
        path: "Tools/latency/cli"
    ),
    .testTarget(
        name: "LatencyTests",
        dependencies: ["LatencyKit", "Circadify", "CCoreTestSupport"],
        path: "Tests/LatencyTests"
    ),
]
