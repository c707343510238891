import ArgumentParser
import Circadify
import Foundation

/// `circadify devices`: the capture-capable cameras and whether we may use them.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List capture-capable cameras with their formats, sizes, frame rates and access status.",
        discussion: """
            Access is one of authorized, denied (this user may not read and write the node: the fix \
            is printed), restricted (a system policy blocks it) or notDetermined (no node). A camera \
            this user may not open shows no formats: the driver only tells them to a process that can.
            """)

    func run() throws {
        let devices = try CameraDevice.list()
        guard !devices.isEmpty else {
            print("No capture devices found (no usable /dev/video* node): plug in a camera or load its driver.")
            return
        }
        for device in devices {
            let card = device.card.isEmpty ? Self.sysfsCardName(device.path) ?? "(unknown card)" : device.card
            let details = [device.driver, device.busInfo].filter { !$0.isEmpty }.joined(separator: ", ")
            print("\(device.path)  \(card)\(details.isEmpty ? "" : "  [\(details)]")")
            print("  access: \(device.access.rawValue) — \(device.accessReason)")
            for line in AccessAdvice.lines(for: device.access, path: device.path) { print("  " + line) }
            guard device.access == .authorized else { continue }
            do {
                for line in Self.summarize(try device.modes()) { print("  " + line) }
            } catch {
                print("  formats: cannot list them: \(error.message)")
            }
        }
    }

    /// The card name from sysfs, readable even when the node itself is not.
    static func sysfsCardName(_ path: String) -> String? {
        let node = (path as NSString).lastPathComponent
        guard let text = try? String(contentsOfFile: "/sys/class/video4linux/\(node)/name", encoding: .utf8)
        else { return nil }
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : name
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
