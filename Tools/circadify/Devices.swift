import ArgumentParser
import Circadify

/// `circadify devices`: the capture-capable cameras and whether we may use them.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List capture-capable cameras with their formats, sizes, frame rates and access status.")

    func run() throws {
        let devices = try CameraDevice.list()
        guard !devices.isEmpty else {
            print("No capture devices found (no usable /dev/video* node): plug in a camera or load its driver.")
            return
        }
        for device in devices {
            print("\(device.path)  \(device.card.isEmpty ? "(unknown card)" : device.card)  [\(device.driver)\(device.busInfo.isEmpty ? "" : ", " + device.busInfo)]")
            print("  access: \(device.access.rawValue) — \(device.accessReason)")
            guard device.access == .authorized else { continue }
            let modes = try device.modes()
            for line in Self.summarize(modes) { print("  " + line) }
        }
    }

    /// One line per format: its sizes, each with its frame rates.
    static func summarize(_ modes: [CameraMode]) -> [String] {
        var order = [String](), sizes = [String: [String]](), rates = [String: [Double]]()
        var names = [String: String](), supported = [String: Bool]()
        for m in modes {
            if names[m.fourcc] == nil { order.append(m.fourcc) }
            names[m.fourcc] = m.formatName
            supported[m.fourcc] = m.supported
            let size = "\(m.width)x\(m.height)"
            if !(sizes[m.fourcc] ?? []).contains(size) { sizes[m.fourcc, default: []].append(size) }
            if let fps = m.framesPerSecond { rates[m.fourcc + size, default: []].append(fps) }
        }
        return order.map { fourcc in
            let list = (sizes[fourcc] ?? []).map { size -> String in
                let fps = (rates[fourcc + size] ?? []).map { $0.rounded() == $0 ? "\(Int($0))" : String(format: "%.2f", $0) }
                return fps.isEmpty ? size : "\(size)@\(fps.joined(separator: "/"))"
            }
            let mark = supported[fourcc] == true ? "" : " (not supported by the core)"
            return "\(fourcc) \(names[fourcc] ?? ""): \(list.joined(separator: " "))\(mark)"
        }
    }
}
