import Glibc

/// This process's CPU time and peak resident memory, from getrusage(2).
public struct ProcessUsage: Sendable {
    /// User plus system CPU time, seconds.
    public var cpuSeconds: Double
    /// Peak resident set size so far, bytes.
    public var peakResidentBytes: Int

    public static func now() -> ProcessUsage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        // Linux reports ru_maxrss in kilobytes.
        return ProcessUsage(cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
                            peakResidentBytes: Int(usage.ru_maxrss) * 1024)
    }

    /// CPU used since `start`, as a percentage of one core over `wallSeconds`.
    public func cpuPercent(since start: ProcessUsage, wallSeconds: Double) -> Double {
        wallSeconds > 0 ? (cpuSeconds - start.cpuSeconds) / wallSeconds * 100 : 0
    }
}
