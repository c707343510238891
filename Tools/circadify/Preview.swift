import ArgumentParser
import Circadify
import CircadifyPreviewServer
import Foundation
import Glibc
import ProcessSignals

/// `circadify preview`: the live camera with its scan overlay, the live vitals and a scan
/// button, as a local web page for a browser (a kiosk browser on the board's own screen).
struct Preview: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a live preview page: the camera, live vitals and a Start-scan button.",
        discussion: """
            Open the printed address in a browser. The page shows the camera's video (MJPEG), the \
            live pulse wave, heart rate, breathing and quality hints, and a Start-scan button that \
            runs one measurement of --duration seconds and shows its result and confidence. Without \
            --device or --input the first capture-capable camera is used; a file (Y4M or raw MJPEG) \
            is replayed at its own frame rate and starts again when it ends.

            Only this machine can reach the page unless --bind names another address (0.0.0.0: \
            every network; the page has no password). Ctrl-C (SIGINT), SIGTERM or SIGHUP stops the \
            server, ends a running scan and releases the camera, then exits 0.

            Exit status: 0 stopped by a signal; 64 bad arguments; 69 the address or port cannot be \
            used (in use, not this machine's, a privileged port); otherwise the camera's error as in \
            `circadify scan --help` (10 no such camera, 11 permission denied, 12 in use, 30 capture failed).
            """)

    @OptionGroup var from: SourceOptions

    @Option(parsing: .unconditional, help: "The port to listen on, 1-65535 (0: any free port).",
            transform: Preview.portNumber)
    var port = 8080

    @Option(help: ArgumentHelp("The IP address to listen on: 127.0.0.1 is this machine only.", valueName: "address"))
    var bind = "127.0.0.1"

    @Option(parsing: .unconditional, help: "Seconds of measurement per scan, 5 (the analysis window) to 3600.",
            transform: Scan.seconds)
    var duration: Double = 30

    /// The address or port cannot be used (EX_UNAVAILABLE).
    static let unavailable: Int32 = 69
    /// The key is checked for its format and forgotten; nothing leaves the machine.
    private static let apiKey = "ck_test_LocalPreviewPage0000"

    static func portNumber(_ text: String) throws -> Int {
        guard let value = Int(text), (0...65535).contains(value) else {
            throw ValidationError("a port is a whole number from 1 to 65535 (0: any free port)")
        }
        return value
    }

    func validate() throws {
        do {
            try PreviewServer.checkBindAddress(bind)
        } catch {
            throw ValidationError(error.description)
        }
    }

    @MainActor
    func run() async throws {
        let (camera, source) = makeCamera()
        let label = from.input == nil ? source : "\(source) (looped)"
        let video = VideoFanout(), events = EventFanout()
        let controller = PreviewController(
            sdk: try CircadifySDK(apiKey: Self.apiKey), camera: camera, video: video, events: events,
            options: MeasurementOptions(duration: duration), source: label, loops: from.input != nil)
        controller.onReplayFailure = { failure in
            // The reader's messages name the file already.
            let said = failure.errorDescription ?? failure.caseName
            Terminal.writeError("circadify preview: \(said.contains(source) ? said : "\(source): \(said)"); "
                + "playing it again from the start\n")
        }
        let routes = PreviewRoutes(video: video, events: events) { await controller.startScan() }
        // Trapped before the page is reachable: a signal from then on stops everything cleanly,
        // even one that comes while the camera is still opening (it is acted on right after).
        let (signals, received) = AsyncStream<Int32>.makeStream()
        let trap = SignalTrap([SIGINT, SIGTERM, SIGHUP], first: { received.yield($0) }, again: { _ in
            Terminal.writeError("circadify preview: signal received again; exited without waiting\n")
            _exit(ScanExitCode.code(for: .cancelled))
        })
        defer { trap.release() }

        let server: PreviewServer
        do {
            server = try await PreviewServer(host: bind, port: port, routes: routes)
        } catch {
            Terminal.writeError("circadify preview: \(error.description)\n")
            throw ExitCode(Self.unavailable)
        }
        do {
            try await controller.start()
        } catch {
            let failure = (error as? CircadifyError) ?? .unknown(String(describing: error))
            await controller.stop()
            await server.stop()
            let advice = failure == .cameraNotAvailable ? " (`circadify devices` lists the cameras)" : ""
            Terminal.writeError("circadify preview: \(source): \(failure.errorDescription ?? failure.caseName)\(advice)\n")
            throw ExitCode(ScanExitCode.code(for: failure))
        }

        let host = bind.contains(":") ? "[\(bind)]" : bind
        _ = Terminal.writeOutput("Circadify preview of \(label) on http://\(host):\(server.port)/ (Ctrl-C stops)\n")
        if !PreviewServer.isLoopback(bind) {
            let reach = bind == "0.0.0.0" || bind == "::" ? "every network of this machine" : bind
            Terminal.writeError("circadify preview: listening on \(reach): anyone who can reach it can watch the "
                                + "camera and start scans, with no password; open it at http://ADDRESS:\(server.port)/ "
                                + "with one of this machine's addresses (`ip -brief address`)\n")
        }

        var iterator = signals.makeAsyncIterator()
        let signal = await iterator.next() ?? SIGTERM
        Terminal.writeError("circadify preview: \(SignalTrap.name(signal)); stopping\n")
        await controller.stop()
        await server.stop()
        Terminal.writeError("circadify preview: stopped, camera released\n")
    }

    @MainActor
    private func makeCamera() -> (CircadifyCamera, String) {
        if let input = from.input {
            return (CircadifyCamera(replaying: input, fps: Int(from.fileFrameRate), pace: .realtime), input)
        }
        if let device = from.device { return (CircadifyCamera(devicePath: device), device) }
        return (CircadifyCamera(position: .front), "the first camera")
    }
}
