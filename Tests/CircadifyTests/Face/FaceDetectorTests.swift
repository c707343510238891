@testable import Circadify
import CCore
import CCoreTestSupport
import Foundation
import Testing

/// The face detector on the committed, licensed images (Tests/Fixtures/faces,
/// see LICENSES.md there). Expected boxes are OpenCV 4.14's own answers with
/// the same cascade and parameters (lbpcascade_frontalface.xml, scale 1.1,
/// minNeighbors 3), measured once and re-checked by
/// Tools/bench/faces-vs-opencv.sh; a box must overlap them by IoU >= 0.8.
@Suite struct FaceDetectorTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/faces")

    static func image(_ name: String) throws -> LumaImage {
        try LumaImage(jpegFile: fixtures.appendingPathComponent(name).path)
    }

    static func faces(in name: String, cascadePath: String = FaceCascade.defaultPath) throws -> [DetectedFace] {
        let luma = try image(name)
        let detector = try FaceDetector(cascadePath: cascadePath, maxWidth: luma.width, maxHeight: luma.height)
        return try detector.detect(luma: luma.pixels, width: luma.width, height: luma.height)
    }

    static func box(_ x: Int, _ y: Int, _ side: Int) -> DetectedFace {
        DetectedFace(x: x, y: y, width: side, height: side, neighbours: 0)
    }

    @Test func findsTheAstronautsFaceWhereOpenCVDoes() throws {
        let faces = try Self.faces(in: "astronaut.jpg")
        #expect(faces.count == 1)
        let face = try #require(faces.first)
        #expect(face.intersectionOverUnion(Self.box(173, 64, 101)) >= 0.8, "\(face)")
        #expect(face.neighbours > 3)
    }

    @Test func findsTheFaceInA320x240Thumbnail() throws {
        let luma = try Self.image("astronaut-320x240.jpg")
        #expect(luma.width == 320 && luma.height == 240)
        // The default detector size (640x480) takes a camera thumbnail as is.
        let detector = try FaceDetector()
        let faces = try detector.detect(luma: luma.pixels, width: 320, height: 240)
        #expect(faces.count == 1)
        let face = try #require(faces.first)
        #expect(face.intersectionOverUnion(Self.box(107, 39, 66)) >= 0.8, "\(face)")
    }

    @Test func findsNoFaceInTheCoffeeCup() throws {
        #expect(try Self.faces(in: "coffee.jpg").isEmpty)
    }

    @Test func findsBothFacesLargestFirst() throws {
        let faces = try Self.faces(in: "two-faces.jpg")
        #expect(faces.count == 2)
        guard faces.count == 2 else { return }
        #expect(faces[0].area > faces[1].area)
        #expect(faces[0].intersectionOverUnion(Self.box(105, 129, 147)) >= 0.8, "\(faces[0])")
        #expect(faces[1].intersectionOverUnion(Self.box(434, 163, 79)) >= 0.8, "\(faces[1])")
    }

    @Test func haarCascadeFindsTheSameFace() throws {
        // OpenCV's answer with haarcascade_frontalface_default.xml: (177, 67, 95, 95).
        let faces = try Self.faces(in: "astronaut.jpg",
                                   cascadePath: "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml")
        #expect(faces.count == 1)
        let face = try #require(faces.first)
        #expect(face.intersectionOverUnion(Self.box(177, 67, 95)) >= 0.8, "\(face)")
    }

    @Test func faceSizeLimitsAreHonoured() throws {
        let luma = try Self.image("two-faces.jpg")
        let detector = try FaceDetector(maxWidth: luma.width, maxHeight: luma.height)
        // The small face is 79 px, the large one 147 px.
        let large = try detector.detect(luma: luma.pixels, width: luma.width, height: luma.height, minFaceSize: 110)
        #expect(large.count == 1 && (large.first?.width ?? 0) > 110)
        let small = try detector.detect(luma: luma.pixels, width: luma.width, height: luma.height, maxFaceSize: 110)
        #expect(small.count == 1 && (small.first?.width ?? .max) <= 110)
    }

    @Test func oneDetectorServesImagesOfAnySizeAndStride() throws {
        let detector = try FaceDetector(maxWidth: 640, maxHeight: 480)
        let thumb = try Self.image("astronaut-320x240.jpg"), pair = try Self.image("two-faces.jpg")
        let first = try detector.detect(luma: thumb.pixels, width: 320, height: 240)
        #expect(first.count == 1)
        #expect(try detector.detect(luma: pair.pixels, width: pair.width, height: pair.height).count == 2)
        // Scratch left over from the larger image must not leak into the next answer.
        #expect(try detector.detect(luma: thumb.pixels, width: 320, height: 240) == first)
        // The same pixels inside wider rows (stride 400, padding noise) give the same faces.
        var strided = [UInt8](repeating: 0, count: 400 * 240)
        for y in 0..<240 {
            for x in 0..<400 {
                strided[y * 400 + x] = x < 320 ? thumb.pixels[y * 320 + x] : UInt8((x * 31 + y * 7) & 255)
            }
        }
        #expect(try detector.detect(luma: strided, width: 320, height: 240, stride: 400) == first)
    }

    @Test func badInputIsAClearError() throws {
        #expect { try FaceDetector(cascadePath: "/nonexistent/cascade.xml") } throws: { error in
            guard let error = error as? CoreError else { return false }
            return error.code == -ENOENT && error.message.contains("opencv-data")
        }
        let detector = try FaceDetector(maxWidth: 320, maxHeight: 240)
        let tooSmall = CoreError(code: -EINVAL, message: "luma buffer of 100 bytes does not hold 320x240 at stride 320")
        #expect(throws: tooSmall) {
            try detector.detect(luma: [UInt8](repeating: 0, count: 100), width: 320, height: 240)
        }
        let vga = [UInt8](repeating: 0, count: 640 * 480)
        #expect { try detector.detect(luma: vga, width: 640, height: 480) } throws: {
            ($0 as? CoreError)?.code == -E2BIG
        }
        #expect { try detector.detect(luma: [UInt8](repeating: 0, count: 320 * 240), width: 320, height: 240,
                                      scaleFactor: 0.9) } throws: { ($0 as? CoreError)?.code == -EINVAL }
        #expect { try LumaImage(jpegFile: "/nonexistent/face.jpg") } throws: { ($0 as? CoreError)?.code == -ENOENT }
        #expect { try LumaImage(jpeg: [0xFF, 0xD8, 0xFF, 0x00, 0x12]) } throws: {
            ($0 as? CoreError)?.code == CoreError.corrupt
        }
    }

    @Test func jpegLumaIsTheFullResolutionGreyPlane() throws {
        let luma = try Self.image("coffee.jpg")
        #expect(luma.width == 600 && luma.height == 400 && luma.pixels.count == 600 * 400)
        // A photograph, not a flat or empty plane.
        #expect(Set(luma.pixels).count > 100)
    }
}
