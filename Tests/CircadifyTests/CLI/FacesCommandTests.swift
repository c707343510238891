import CCoreTestSupport
import Foundation
import Testing

/// `circadify faces IMAGE.jpg` as a process, on the committed, licensed images.
@Suite struct FacesCommandTests {
    static func fixture(_ name: String) -> String { FaceDetectorTests.fixtures.appendingPathComponent(name).path }

    static func faces(_ run: CLIProcess.Output) throws -> [[String: Any]] {
        try #require(CLIProcess.jsonObject(run)["faces"] as? [[String: Any]])
    }

    static func box(_ face: [String: Any]) throws -> (x: Int, y: Int, width: Int, height: Int) {
        let box = try #require(face["box"] as? [String: Int])
        return try (#require(box["x"]), #require(box["y"]), #require(box["width"]), #require(box["height"]))
    }

    @Test func theAstronautsFaceWithItsScanGeometry() async throws {
        let run = try await CLIProcess.run(["faces", Self.fixture("astronaut.jpg")])
        #expect(run.status == 0, "\(run.stderr)")
        let faces = try Self.faces(run)
        try #require(faces.count == 1)
        let box = try Self.box(faces[0])
        // The face in the 512x512 portrait (OpenCV's CascadeClassifier gives the same box).
        #expect(box.x > 150 && box.x < 200 && box.y > 40 && box.y < 90 && box.width > 80 && box.width < 130)
        let scan = try #require(faces[0]["scanFace"] as? [String: Any])
        for key in ["forehead", "leftCheek", "rightCheek", "ovalCenter"] {
            let point = try #require(scan[key] as? [String: Double], "\(key)")
            let x = try #require(point["x"]), y = try #require(point["y"])
            // Normalized, and inside the face box.
            #expect(x >= Double(box.x) / 512 && x <= Double(box.x + box.width) / 512, "\(key)")
            #expect(y >= Double(box.y) / 512 && y <= Double(box.y + box.height) / 512, "\(key)")
        }
        let left = try #require((scan["leftCheek"] as? [String: Double])?["x"])
        let right = try #require((scan["rightCheek"] as? [String: Double])?["x"])
        #expect(left > right, "the subject's left cheek is on the image's right")
        #expect(scan["isMirrored"] as? Bool == false)
        #expect(scan["imageAspect"] as? Double == 1)
    }

    @Test func twoFacesLargestFirstAndNoneInACoffeeCup() async throws {
        let two = try Self.faces(try await CLIProcess.run(["faces", Self.fixture("two-faces.jpg")]))
        #expect(two.count == 2)
        if two.count == 2 { #expect(try Self.box(two[0]).width > Self.box(two[1]).width) }
        let none = try await CLIProcess.run(["faces", Self.fixture("coffee.jpg")])
        #expect(none.status == 0)
        #expect(try Self.faces(none).isEmpty)
    }

    @Test func unreadableAndUndecodableImagesAreClearErrors() async throws {
        let missing = try await CLIProcess.run(["faces", "/nonexistent/face.jpg"])
        #expect(missing.status == 66)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("/nonexistent/face.jpg"))
        let file = try TemporaryFile(named: "not-a-jpeg.jpg", contents: Array("hello".utf8))
        defer { file.cleanUp() }
        let corrupt = try await CLIProcess.run(["faces", file.path])
        #expect(corrupt.status == 65)
        #expect(corrupt.stderr.contains("JPEG"))
    }
}
