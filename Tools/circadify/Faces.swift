import ArgumentParser
import Circadify
import Foundation

/// `circadify faces IMAGE.jpg`: the faces the detector finds in a photo, with
/// the scan geometry a measurement would place on each.
struct Faces: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find faces in a JPEG image and print them as JSON, largest first.",
        discussion: """
            Prints {"faces": [{"box": {"x", "y", "width", "height"}, "scanFace": {...}}, ...]}: the box \
            in the image's pixels, and the scan geometry (forehead, leftCheek, rightCheek, ovalCenter, \
            ovalSize normalized to [0, 1] with a top-left origin, imageAspect, isMirrored) the \
            measurement would use. The subject's left cheek is on the image's right.

            Exit status: 0 (also when there is no face: the list is empty); 66 the file cannot be \
            read (missing, no permission, a directory, FIFO or device); 65 it is not a JPEG the \
            decoder understands, or it is too large (over 8192 pixels a side or 40 megapixels, \
            checked from its header before decoding; a file over 64 MiB); 69 the face detector's \
            data is missing (install opencv-data); 74 the output could not be written.
            """)

    @Argument(help: ArgumentHelp("A JPEG image.", valueName: "image"))
    var image: String

    func run() throws {
        let faces: [StillImageFace]
        do {
            faces = try StillImageFaces.find(jpegPath: image)
        } catch {
            let message = error.message.contains(image) ? error.message : "\(image): \(error.message)"
            Terminal.writeError("circadify faces: \(message)\n")
            throw ExitCode(Self.exitCode(for: error))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let report = FacesReport(faces: faces.map(FacesReport.Face.init))
        let written = Terminal.writeOutput(String(decoding: try encoder.encode(report), as: UTF8.self) + "\n")
        if written != 0 {
            Terminal.writeError("circadify faces: the result could not be written to standard output: "
                + "\(Terminal.reason(written))\n")
            throw ExitCode(CommandExitCode.outputFailed)
        }
    }

    /// sysexits(3) classes: unreadable input, bad (or too large) data, a missing service.
    static func exitCode(for error: CoreError) -> Int32 {
        if error.message.contains("opencv-data") { return 69 }
        switch error.code {
        case CoreError.corrupt, CoreError.unsupported, CoreError.truncated, -E2BIG, -EFBIG: return 65
        default: return 66
        }
    }
}

/// The JSON shape of `circadify faces`.
struct FacesReport: Encodable {
    struct Box: Encodable { var x, y, width, height: Int }
    struct Point: Encodable { var x, y: Double }
    struct Size: Encodable { var width, height: Double }
    struct ScanFace: Encodable {
        var forehead, leftCheek, rightCheek, ovalCenter: Point
        var ovalSize: Size
        var imageAspect: Double
        var isMirrored: Bool
    }
    struct Face: Encodable {
        var box: Box
        var scanFace: ScanFace

        init(_ face: StillImageFace) {
            box = Box(x: face.box.x, y: face.box.y, width: face.box.width, height: face.box.height)
            let s = face.scanFace
            func point(_ p: CGPoint) -> Point { Point(x: Double(p.x), y: Double(p.y)) }
            scanFace = ScanFace(forehead: point(s.forehead), leftCheek: point(s.leftCheek),
                                rightCheek: point(s.rightCheek), ovalCenter: point(s.ovalCenter),
                                ovalSize: Size(width: Double(s.ovalSize.width), height: Double(s.ovalSize.height)),
                                imageAspect: Double(s.imageAspect), isMirrored: s.isMirrored)
        }
    }

    var faces: [Face]
}
