import ArgumentParser
import Circadify
import CircadifyMonitor
import Foundation
import Glibc
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// `circadify monitor`: continuous headless monitoring as a service (see `MonitorService`).
struct Monitor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Monitor continuously: one JSON object per update on stdout, until SIGINT, SIGTERM or SIGHUP.",
        discussion: """
            Runs the SDK's headless monitoring on a camera (the first capture-capable one without \
            --device) or a replayed file, and writes JSON Lines to stdout: every object has "type" \
            and "time" (UTC, ISO 8601). Types: "service" (state started/stopped), "camera" (state \
            opened/lost/reopened, with the error and the delay before the next attempt), "input" \
            (a --loop file restarted), "estimate" (pulse {bpm, confidence}, breathing {perMinute, \
            confidence}, hrvMs; null when not measured with confidence), "validation" (code, hint), \
            "warning" (kind, category, severity, message), "error" (error, message, retryable; for \
            a failed attempt to open the camera also attempt and retryInSeconds). Diagnostics go to stderr.

            A camera that is lost (unplugged, failed) or not there yet is opened again and again, \
            the delay doubling from 0.5 s to --max-backoff. A file plays at its own frame rate and \
            ends the service at its end, unless --loop.

            SIGINT, SIGTERM or SIGHUP (a closed terminal or ssh session) stops monitoring, \
            releases the camera and restores its controls, then exits 0. With --metrics \
            ADDRESS:PORT a Prometheus endpoint serves GET /metrics (frames, drops, ring overflows, \
            stage latency, outcomes, validation status); vital signs only with --export-vitals.

            Exit status: 0 stopped by a signal or at the end of the file; 64 bad arguments; 69 the \
            metrics endpoint could not listen; 74 stdout could not be written; otherwise the \
            error's code as in `circadify scan --help` (a file that cannot be read: 30).
            """)

    @OptionGroup var from: SourceOptions

    @Flag(help: "Start the file again at its end, forever.")
    var loop = false

    @Option(help: ArgumentHelp("Serve Prometheus metrics at http://ADDRESS:PORT/metrics, e.g. 127.0.0.1:9464.",
                               valueName: "address:port"),
            transform: MetricsAddress.init)
    var metrics: MetricsAddress?

    @Flag(help: "Also export the vital signs (pulse, breathing, HRV and their confidence) as metrics.")
    var exportVitals = false

    @Option(parsing: .unconditional, help: "Longest delay between attempts to reopen a lost camera, seconds (1-3600).",
            transform: Monitor.backoffCap)
    var maxBackoff: Double = 30

    @Option(help: "Diagnostics on stderr from this level up: trace, debug, info, notice, warning, error, critical.",
            transform: Monitor.logLevel)
    var logLevel: Logger.Level = .info

    static func backoffCap(_ text: String) throws -> Double {
        guard let value = ArgumentValues.decimal(text), (1...3600).contains(value) else {
            throw ValidationError("--max-backoff is a number of seconds from 1 to 3600")
        }
        return value
    }

    static func logLevel(_ text: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: text) else {
            throw ValidationError("a log level is one of trace, debug, info, notice, warning, error, critical")
        }
        return level
    }

    func validate() throws {
        if loop, from.input == nil { throw ValidationError("--loop replays a file (--input); a camera runs until stopped") }
        if exportVitals, metrics == nil { throw ValidationError("--export-vitals adds to the metrics: give --metrics too") }
    }

    func run() async throws {
        if Terminal.closedAtStart.contains(STDOUT_FILENO) {
            Terminal.writeError("circadify monitor: standard output is closed, so the results would be lost; not starting\n")
            throw ExitCode(CommandExitCode.outputFailed)
        }
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "circadify.monitor")

        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        var monitorMetrics: MonitorMetrics?
        if let metrics {
            let registry = PrometheusCollectorRegistry()
            // Anything in this process that reports through swift-metrics lands on the same endpoint.
            MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
            monitorMetrics = MonitorMetrics(registry: registry, exportVitals: exportVitals)
            // Listening first: an address that cannot be used stops here, before a camera opens.
            let server: MetricsServer
            do {
                server = try await MetricsServer.listen(host: metrics.host, port: metrics.port, registry: registry,
                                                        logger: logger)
            } catch {
                Terminal.writeError("circadify monitor: \(error.description)\n")
                throw ExitCode(CommandExitCode.unavailable)
            }
            services.append(.init(service: server, successTerminationBehavior: .gracefullyShutdownGroup,
                                  failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "metrics"))
        }
        let source: MonitorService.Input = if let input = from.input {
            .file(input, fps: Int(from.fileFrameRate), loop: loop)
        } else if let device = from.device {
            .device(device)
        } else {
            .firstCamera
        }
        var configuration = MonitorService.Configuration(input: source)
        configuration.backoff = Backoff(maximum: .milliseconds(Int64(maxBackoff * 1000)))
        let monitor = MonitorService(configuration: configuration, metrics: monitorMetrics, logger: logger,
                                     write: { Terminal.writeOutput($0) })
        services.insert(.init(service: monitor, successTerminationBehavior: .gracefullyShutdownGroup,
                              failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "monitor"), at: 0)

        var group = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint, .sighup],
                                              logger: logger)
        // A camera release that hangs must not keep a stopping service alive for ever.
        group.maximumGracefulShutdownDuration = .seconds(10)
        do {
            try await ServiceGroup(configuration: group).run()
        } catch let failure as MonitorService.Failure {
            switch failure {
            case .fatal(let error, let hint):
                let why = hint.map { ". \($0)" } ?? ""
                Terminal.writeError("circadify monitor: \(error.errorDescription ?? error.caseName)\(why)\n")
                throw ExitCode(ScanExitCode.code(for: error))
            case .outputFailed(let errno):
                Terminal.writeError("circadify monitor: standard output failed (\(Terminal.reason(errno))); stopped\n")
                throw ExitCode(CommandExitCode.outputFailed)
            }
        }
    }
}

/// `--metrics ADDRESS:PORT`: "127.0.0.1:9464", "[::1]:9464", "0.0.0.0:9464".
struct MetricsAddress: Sendable, Equatable {
    var host: String
    var port: Int

    init(_ text: String) throws {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65535).contains(port) else {
            throw ValidationError("--metrics takes ADDRESS:PORT, e.g. 127.0.0.1:9464 or [::1]:9464 (port 1-65535)")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError("--metrics needs an address before the port, e.g. 127.0.0.1:9464") }
        self.host = host
        self.port = port
    }
}
