import CCore
import Foundation
import GroundTruth
import Testing

/// The truth file against itself and against the options.
@Suite struct TruthTests {
    static func intervals(_ beats: [Double]) -> [Double] { zip(beats.dropFirst(), beats).map { $0 - $1 } }

    static let scenarios: [(gt_scenario, UInt32)] = [
        (GT_STILL, 1), (GT_MOTION, 2), (GT_LIGHTING, 3), (GT_DARK, 4), (GT_LOWFPS, 5), (GT_HARD, 6), (GT_DROPPED, 7),
    ]

    @Test(arguments: scenarios)
    func truthIsConsistentWithItself(scenario: gt_scenario, seed: UInt32) throws {
        let clip = try Clip(scenario, seed: seed, width: 32, height: 24, duration: 30)
        defer { clip.cleanUp() }
        let t = clip.truth
        #expect(t["generator"] as? String == "circadify-groundtruth 1")
        #expect(t["scenario"] as? String == String(cString: gt_scenario_name(scenario)))
        #expect(clip.int("seed") == Int(seed))
        #expect(clip.double("durationSeconds") == 30)
        #expect(t["pulsePresent"] as? Bool == true)

        let beats = clip.beatTimes
        #expect(beats.count >= 25, "30 s at 55-100 bpm")
        #expect(zip(beats.dropFirst(), beats).allSatisfy { $0 > $1 }, "beat times increase")
        #expect(beats.allSatisfy { $0 >= 0 && $0 <= 30 })
        let ibi = Self.intervals(beats)
        let meanIBI = ibi.reduce(0, +) / Double(ibi.count)
        let meanHR = try #require(clip.double("meanHeartRate"))
        #expect(abs(meanHR - 60 / meanIBI) < 0.002)
        #expect(meanHR >= 54.9 && meanHR <= 100.1, "the seed's rate is 55-100 bpm")

        let sd = (ibi.map { ($0 - meanIBI) * ($0 - meanIBI) }.reduce(0, +) / Double(ibi.count - 1)).squareRoot()
        let diffs = Self.intervals(ibi)
        let rmssd = (diffs.map { $0 * $0 }.reduce(0, +) / Double(diffs.count)).squareRoot()
        #expect(abs(try #require(clip.double("sdnn")) - 1000 * sd) < 0.01)
        #expect(abs(try #require(clip.double("rmssd")) - 1000 * rmssd) < 0.01)
        #expect(1000 * sd > 10 && 1000 * sd < 120, "SDNN \(1000 * sd) ms is physiological")

        let rr = try #require(clip.double("respiratoryRate"))
        #expect(rr >= 6 && rr <= 40)

        // Instantaneous heart rate every second, near the mean (RSA, Mayer waves, jitter).
        let hr = try #require(t["heartRate"] as? [[String: NSNumber]])
        #expect(hr.count == 31)
        for (i, sample) in hr.enumerated() {
            #expect(sample["t"]?.doubleValue == Double(i))
            let bpm = try #require(sample["bpm"]?.doubleValue)
            #expect(abs(bpm - meanHR) < 25, "t=\(i): \(bpm) bpm vs mean \(meanHR)")
        }

        // Regions: normalized, inside the frame, the forehead above the cheeks,
        // the subject's left cheek on the image's right, all inside the face box.
        let regions = clip.regions, faces = clip.faces
        #expect(regions.count == clip.int("writtenFrameCount") && faces.count == regions.count)
        for (rs, face) in zip(regions, faces) {
            #expect(rs.count == 3)
            for r in rs + [face] {
                #expect(r.x >= 0 && r.y >= 0 && r.width > 0 && r.height > 0)
                #expect(r.x + r.width <= 1 && r.y + r.height <= 1)
            }
            #expect(rs[0].y + rs[0].height < rs[1].y && rs[0].y + rs[0].height < rs[2].y)
            #expect(rs[1].x > rs[2].x + rs[2].width)
            for r in rs {
                #expect(r.x >= face.x && r.x + r.width <= face.x + face.width)
                #expect(r.y >= face.y && r.y + r.height <= face.y + face.height)
            }
            #expect(face.height > 0.33 && face.height < 0.47, "face ~35-45% of the frame height")
        }
    }

    @Test(arguments: [Float(48), 72, 120])
    func requestedHeartRateIsTheMean(bpm: Float) throws {
        let clip = try Clip(GT_STILL, seed: 9, width: 32, height: 24, duration: 30, heartRate: bpm)
        defer { clip.cleanUp() }
        let mean = try #require(clip.double("meanHeartRate"))
        #expect(abs(mean - Double(bpm)) < 0.3)
        let hr = (clip.truth["heartRate"] as? [[String: NSNumber]] ?? []).compactMap { $0["bpm"]?.doubleValue }
        #expect(!hr.isEmpty && hr.allSatisfy { abs($0 - Double(bpm)) < 25 })
    }

    @Test(arguments: [GT_NOPULSE, GT_NOPULSE_MOTION])
    func noPulseMeansNullsAndEmptyLists(scenario: gt_scenario) throws {
        let clip = try Clip(scenario, width: 32, height: 24, duration: 10)
        defer { clip.cleanUp() }
        let t = clip.truth
        #expect(t["pulsePresent"] as? Bool == false)
        #expect((t["beatTimes"] as? [Any])?.isEmpty == true)
        #expect((t["heartRate"] as? [Any])?.isEmpty == true)
        #expect(t["meanHeartRate"] is NSNull && t["sdnn"] is NSNull && t["rmssd"] is NSNull)
        let rr = try #require(clip.double("respiratoryRate"), "breathing still moves the head")
        #expect(rr >= 6 && rr <= 40)
    }

    @Test func sameSeedSamePersonInEveryScenario() throws {
        let still = try Clip(GT_STILL, seed: 11, width: 32, height: 24, duration: 10)
        let motion = try Clip(GT_MOTION, seed: 11, width: 32, height: 24, duration: 10)
        defer { still.cleanUp(); motion.cleanUp() }
        #expect(still.beatTimes == motion.beatTimes)
        #expect(still.double("respiratoryRate") == motion.double("respiratoryRate"))
    }

    @Test func scenarioNamesRoundTrip() {
        var seen = Set<String>()
        for i in 0..<Int(GT_SCENARIO_COUNT.rawValue) {
            let s = gt_scenario(rawValue: UInt32(i))
            let name = String(cString: gt_scenario_name(s))
            var back = GT_HARD
            #expect(gt_scenario_from_name(name, &back) == 0)
            #expect(back == s)
            seen.insert(name)
        }
        #expect(seen == ["still", "motion", "lighting", "noise", "jpeg", "dark", "lowfps", "dropped", "lowamp",
                         "nopulse", "nopulse-motion", "hard", "autogain", "mains-flicker", "fast", "slow", "board", "too-dark", "too-bright", "uneven", "flicker",
                         "head-moving", "camera-shake", "off-center", "too-far", "too-close", "turned-away",
                         "occluded", "two-faces", "no-face"])
        #expect(gt_scenario_name(GT_SCENARIO_COUNT) == nil)
    }
}
