import Circadify
import Histogram

/// One HdrHistogram per pipeline stage, in nanoseconds, fed with each frame's
/// `StageTiming`.
///
/// Coordinated omission: a stage a frame can queue in (`includesQueueing`:
/// dequeue, ring residence, end to end) is recorded corrected for the frames
/// that never arrived. When a frame comes with k frames lost right before it
/// (dropped by the driver, refused by the full ring), those k frames, due one
/// frame interval apart before it, would have waited at least as long plus
/// their head start: value + interval, value + 2·interval … value + k·interval
/// are recorded for them, as HdrHistogram's corrected recording backfills at the
/// expected interval. Frames that queued behind a stall and arrived late are
/// measured for real, so nothing is inferred from a large value alone (that
/// would count them twice). Service-time stages (decode, kernels, thumbnail,
/// detector, analysis) are recorded as measured.
public struct StageHistograms: Sendable {
    /// Recorded values (backfilled ones included), by stage.
    private var corrected: [PipelineStage: Histogram<UInt64>] = [:]
    /// Measured values only, for the queueing stages (what the correction added shows as the difference).
    private var measured: [PipelineStage: Histogram<UInt64>] = [:]
    /// Frames recorded, and when the capture thread took the first and the last, for the frame rate.
    public private(set) var frames = 0
    private var firstTaken: Int64?
    private var lastTaken: Int64?
    /// Frames stood in for by the correction (lost before a recorded frame).
    public private(set) var framesBackfilled: UInt64 = 0
    /// Frame interval of the stream, from the timings (0 when unknown).
    public private(set) var frameIntervalNanoseconds: Int64 = 0

    /// A run of lost frames longer than this (a driver restarting its count)
    /// is backfilled only this far: 10 minutes at 30 fps.
    static let backfillLimit: UInt64 = 18_000

    public init() {}

    public mutating func record(_ timing: StageTiming) {
        frames += 1
        // Taken: the capture plus its dequeue wait. A replay stamps frames with when they
        // were due, so their capture times alone keep the file's rate however late they come.
        let taken = timing.captureNanoseconds + (timing.nanoseconds(.dequeue) ?? 0)
        firstTaken = firstTaken ?? taken
        lastTaken = taken
        if timing.frameIntervalNanoseconds > 0 { frameIntervalNanoseconds = timing.frameIntervalNanoseconds }
        let interval = UInt64(max(timing.frameIntervalNanoseconds, 0))
        let lost = interval > 0 ? min(timing.framesLostBefore, Self.backfillLimit) : 0
        framesBackfilled += lost
        for stage in PipelineStage.allCases {
            guard let value = timing.nanoseconds(stage).map({ UInt64($0) }) else { continue }
            corrected[stage, default: Self.histogram()].record(value)
            guard stage.includesQueueing else { continue }
            measured[stage, default: Self.histogram()].record(value)
            var backfill: UInt64 = 1
            while backfill <= lost {
                corrected[stage, default: Self.histogram()].record(value + backfill * interval)
                backfill += 1
            }
        }
    }

    /// Frames a second by when the capture thread took them (nil with fewer than two frames).
    public var achievedFramesPerSecond: Double? {
        guard frames > 1, let first = firstTaken, let last = lastTaken, last > first else { return nil }
        return Double(frames - 1) * 1e9 / Double(last - first)
    }

    /// The stage's percentiles (corrected where it applies); count 0 when no frame went through it.
    public func summary(of stage: PipelineStage) -> StageSummary {
        StageSummary(corrected: corrected[stage], measured: measured[stage])
    }

    /// 1 ns resolution, three significant digits, growing to whatever range it sees.
    private static func histogram() -> Histogram<UInt64> { Histogram<UInt64>(numberOfSignificantValueDigits: .three) }
}

/// A distribution in microseconds: p50, p90, p99, p99.9 and max.
public struct Percentiles: Codable, Sendable, Equatable {
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var p999: Double
    public var max: Double

    enum CodingKeys: String, CodingKey {
        case p50 = "p50_us", p90 = "p90_us", p99 = "p99_us", p999 = "p99_9_us", max = "max_us"
    }

    /// Nil for an empty histogram.
    init?(_ h: Histogram<UInt64>?) {
        guard let h, h.totalCount > 0 else { return nil }
        func micro(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1000 }
        p50 = micro(h.valueAtPercentile(50))
        p90 = micro(h.valueAtPercentile(90))
        p99 = micro(h.valueAtPercentile(99))
        p999 = micro(h.valueAtPercentile(99.9))
        max = micro(h.max)
    }

    /// In order from p50 to max (each at least the one before).
    public var ordered: [Double] { [p50, p90, p99, p999, max] }
}

/// One stage of a report: how many frames went through it and their
/// distribution (corrected for lost frames where that applies).
public struct StageSummary: Codable, Sendable, Equatable {
    /// Frames measured at this stage.
    public var count: UInt64
    /// Values recorded: the measured ones plus those coordinated-omission correction added.
    public var recorded: UInt64
    /// Nil when no frame went through the stage (decode on a raw format).
    public var percentiles: Percentiles?
    /// The measured values alone, for the queueing stages.
    public var uncorrected: Percentiles?

    init(corrected: Histogram<UInt64>?, measured: Histogram<UInt64>?) {
        count = measured?.totalCount ?? corrected?.totalCount ?? 0
        recorded = corrected?.totalCount ?? 0
        percentiles = Percentiles(corrected)
        uncorrected = measured == nil ? nil : Percentiles(measured)
    }

    enum CodingKeys: String, CodingKey { case count, recorded, uncorrected }

    // The percentiles sit beside the counts: {"count": …, "p50_us": …, …}.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        count = try container.decode(UInt64.self, forKey: .count)
        recorded = try container.decode(UInt64.self, forKey: .recorded)
        uncorrected = try container.decodeIfPresent(Percentiles.self, forKey: .uncorrected)
        percentiles = count > 0 ? try Percentiles(from: decoder) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(count, forKey: .count)
        try container.encode(recorded, forKey: .recorded)
        try container.encodeIfPresent(uncorrected, forKey: .uncorrected)
        try percentiles?.encode(to: encoder)
    }
}
