import CCore
import CCoreTestSupport
import Foundation
import Testing

/// Loading OpenCV cascade files (the opencv-data package, Tools/setup.sh) and
/// the detector's scanning rules and bad-input paths, at the C level.
@Suite struct CascadeTests {
    static let lbpPath = "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml"
    static let improvedPath = "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml"
    static let haarPath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
    static let treePath = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml"

    /// Loads a cascade file: the code, the handle (on success) and the message.
    static func load(_ path: String) -> (rc: Int32, cascade: OpaquePointer?, message: String) {
        var cascade: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let rc = message.withUnsafeMutableBufferPointer { ccore_cascade_load(path, &cascade, $0.baseAddress, 512) }
        return (rc, cascade, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Loads `text` written to a temporary file.
    static func load(text: String) throws -> (rc: Int32, cascade: OpaquePointer?, message: String) {
        let file = try TemporaryFile(named: "cascade.xml", contents: Array(text.utf8))
        defer { file.cleanUp() }
        return load(file.path)
    }

    static func lbpText() throws -> String { try String(contentsOfFile: lbpPath, encoding: .utf8) }

    @Test(arguments: [(lbpPath, CCORE_CASCADE_LBP, 24, 20), (improvedPath, CCORE_CASCADE_LBP, 45, 19),
                      (haarPath, CCORE_CASCADE_HAAR, 24, 25)])
    func loadsOpenCVsFrontalFaceFiles(path: String, type: ccore_cascade_features, window: UInt32,
                                      stages: UInt32) throws {
        let (rc, cascade, message) = Self.load(path)
        #expect(rc == 0, "\(message)")
        let loaded = try #require(cascade)
        defer { ccore_cascade_destroy(loaded) }
        #expect(ccore_cascade_feature_type(loaded) == type)
        #expect(ccore_cascade_window_width(loaded) == window && ccore_cascade_window_height(loaded) == window)
        #expect(ccore_cascade_stage_count(loaded) == stages)
    }

    @Test func missingFileSaysToInstallOpencvData() {
        let (rc, cascade, message) = Self.load("/nonexistent/lbpcascade_frontalface.xml")
        #expect(rc == -ENOENT)
        #expect(cascade == nil)
        #expect(message.contains("opencv-data"), "\(message)")
    }

    @Test func truncatedFileIsCorruptAndSaysWhere() throws {
        let text = try Self.lbpText()
        let (rc, cascade, message) = try Self.load(text: String(text.prefix(text.count / 2)))
        #expect(rc == CCORE_E_CORRUPT)
        #expect(cascade == nil)
        #expect(message.contains("truncated") && message.contains("line"), "\(message)")
    }

    @Test(arguments: [
        // A number replaced by a word.
        ("-0.7520892024040222", "minus-zero-point-seven", "not a number"),
        // One stage fewer than declared.
        ("<stageNum>20</stageNum>", "<stageNum>21</stageNum>", "stageNum"),
        // A weak classifier pointing past the feature list.
        ("0 -1 46 -67130709", "0 -1 4600 -67130709", "feature 4600"),
        // A feature grid that leaves the 24x24 window.
        ("0 0 3 5</rect>", "20 0 3 5</rect>", "outside"),
        // Broken nesting.
        ("</stageParams>", "</stageParam>", "closing tag"),
    ])
    func damagedFilesAreCorruptWithAMessage(original: String, damaged: String, mention: String) throws {
        let text = try Self.lbpText()
        #expect(text.contains(original), "fixture edit must apply")
        let (rc, cascade, message) = try Self.load(text: text.replacingOccurrences(of: original, with: damaged))
        #expect(rc == CCORE_E_CORRUPT, "\(message)")
        #expect(cascade == nil)
        #expect(message.contains(mention), "\(message)")
    }

    @Test func emptyAndNonXMLFilesAreCorrupt() throws {
        for text in ["", "lbpcascade", "<opencv_storage></opencv_storage>", "<a><b>1</b></a>"] {
            let (rc, cascade, message) = try Self.load(text: text)
            #expect(rc == CCORE_E_CORRUPT, "\(text): \(message)")
            #expect(cascade == nil && !message.isEmpty)
        }
    }

    @Test func deeperTreesAreUnsupportedNotMisread() throws {
        // alt2 uses two-split weak classifiers: valid, but not what this core evaluates.
        let (rc, cascade, message) = Self.load(Self.treePath)
        #expect(rc == CCORE_E_UNSUPPORTED, "\(message)")
        #expect(cascade == nil)
    }

    /// A one-stage LBP cascade whose single stump accepts every code: each
    /// scanned window is a hit, so the raw hit count shows the scan pattern.
    static let acceptEverything = """
        <?xml version="1.0"?>
        <opencv_storage>
        <cascade type_id="opencv-cascade-classifier"><stageType>BOOST</stageType>
          <featureType>LBP</featureType><height>24</height><width>24</width>
          <stageParams><maxDepth>1</maxDepth></stageParams>
          <featureParams><maxCatCount>256</maxCatCount></featureParams>
          <stageNum>1</stageNum>
          <stages><_><maxWeakCount>1</maxWeakCount><stageThreshold>0.5</stageThreshold>
            <weakClassifiers><_><internalNodes>0 -1 0 -1 -1 -1 -1 -1 -1 -1 -1</internalNodes>
              <leafValues>1. -1.</leafValues></_></weakClassifiers></_></stages>
          <features><_><rect>0 0 8 8</rect></_></features></cascade>
        </opencv_storage>
        """

    @Test func slidingWindowStepsTwoPixelsAtFullScale() throws {
        let (rc, loaded, message) = try Self.load(text: Self.acceptEverything)
        #expect(rc == 0, "\(message)")
        let cascade = try #require(loaded)
        defer { ccore_cascade_destroy(cascade) }
        var detector: OpaquePointer?
        #expect(ccore_face_detector_create(cascade, 64, 48, &detector) == 0)
        let det = try #require(detector)
        defer { ccore_face_detector_destroy(det) }
        let image = [UInt8](repeating: 128, count: 48 * 36)
        var params = ccore_face_params()
        ccore_face_params_default(&params)
        params.min_neighbours = 0 // raw hits
        params.max_face_size = 24 // the unscaled level only
        var out = [ccore_face](repeating: ccore_face(), count: 200)
        var count: UInt32 = 0
        #expect(ccore_face_detector_detect(det, image, 48, 36, 48, &params, &out, 200, &count) == 0)
        // Window origins 0, 2, ..., below 48-24 across and below 36-24 down: 12 x 6.
        #expect(count == 72)
        let hits = out.prefix(Int(count))
        #expect(hits.allSatisfy { $0.width == 24 && $0.height == 24 && $0.x % 2 == 0 && $0.y % 2 == 0 })

        // Clustered, those overlapping hits become one box.
        params.min_neighbours = 3
        #expect(ccore_face_detector_detect(det, image, 48, 36, 48, &params, &out, 200, &count) == 0)
        #expect(count == 1)
        #expect(out[0].neighbours == 72 && out[0].width == 24)
    }

    @Test func detectorRejectsBadInputWithAMessage() throws {
        let (_, loaded, _) = Self.load(Self.lbpPath)
        let cascade = try #require(loaded)
        defer { ccore_cascade_destroy(cascade) }
        var detector: OpaquePointer?
        #expect(ccore_face_detector_create(cascade, 0, 240, &detector) == -EINVAL)
        #expect(ccore_face_detector_create(cascade, 320, 240, &detector) == 0)
        let det = try #require(detector)
        defer { ccore_face_detector_destroy(det) }
        let image = [UInt8](repeating: 0, count: 640 * 480)
        var params = ccore_face_params()
        ccore_face_params_default(&params)
        var out = [ccore_face](repeating: ccore_face(), count: 4)
        var count: UInt32 = 0
        #expect(ccore_face_detector_detect(det, image, 640, 480, 640, &params, &out, 4, &count) == -E2BIG)
        #expect(String(cString: ccore_face_detector_error_message(det)).contains("exceeds"))
        #expect(ccore_face_detector_detect(det, image, 320, 240, 100, &params, &out, 4, &count) == -EINVAL)
        params.scale_factor = 1.0
        #expect(ccore_face_detector_detect(det, image, 320, 240, 320, &params, &out, 4, &count) == -EINVAL)
        #expect(String(cString: ccore_face_detector_error_message(det)).contains("scale factor"))
        ccore_face_params_default(&params)
        params.min_face_size = 100
        params.max_face_size = 50
        #expect(ccore_face_detector_detect(det, image, 320, 240, 320, &params, &out, 4, &count) == -EINVAL)
    }

    @Test func blankAndNoiseImagesHoldNoFace() throws {
        let (_, loaded, _) = Self.load(Self.lbpPath)
        let cascade = try #require(loaded)
        defer { ccore_cascade_destroy(cascade) }
        var detector: OpaquePointer?
        #expect(ccore_face_detector_create(cascade, 320, 240, &detector) == 0)
        let det = try #require(detector)
        defer { ccore_face_detector_destroy(det) }
        var params = ccore_face_params()
        ccore_face_params_default(&params)
        var out = [ccore_face](repeating: ccore_face(), count: 8)
        var count: UInt32 = 99
        let blank = [UInt8](repeating: 117, count: 320 * 240)
        #expect(ccore_face_detector_detect(det, blank, 320, 240, 320, &params, &out, 8, &count) == 0)
        #expect(count == 0)
        // Seeded uniform noise (a linear congruential generator: reproducible).
        var state: UInt32 = 12345
        let noise = (0..<(320 * 240)).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        count = 99
        #expect(ccore_face_detector_detect(det, noise, 320, 240, 320, &params, &out, 8, &count) == 0)
        #expect(count == 0)
    }
}
