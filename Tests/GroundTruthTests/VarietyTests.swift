import Foundation
import GroundTruth
import Testing

/// The wider generator: the seed varies the person and the pulse's shape, board cameras
/// step their gain and flicker, and the heart rate reaches both ends of its range.
@Suite struct VarietyTests {
    static func varied(_ scenario: gt_scenario, seed: UInt32, duration: Float = 1, width: UInt32 = 160,
                       height: UInt32 = 120) throws -> Clip {
        var o = Clip.options(scenario, seed: seed, width: width, height: height, duration: duration)
        o.variety = 1
        return try Clip(o)
    }

    static func person(_ clip: Clip) throws -> [String: Any] { try #require(clip.truth["person"] as? [String: Any]) }

    @Test func theSeedPicksEverySkinTypeAndSomeGlassesAndBeards() throws {
        var types = Set<Int>(), glasses = 0, beards = 0, widths = [Double]()
        for seed in 1...24 as ClosedRange<UInt32> {
            var o = Clip.options(GT_STILL, seed: seed, width: 32, height: 24, duration: 0.1)
            o.variety = 1
            let clip = try Clip(o)
            defer { clip.cleanUp() }
            let p = try Self.person(clip)
            types.insert(try #require(p["fitzpatrick"] as? Int))
            glasses += (p["glasses"] as? Bool ?? false) ? 1 : 0
            beards += ((p["beard"] as? NSNumber)?.doubleValue ?? 0) > 0 ? 1 : 0
            widths.append((p["faceWidth"] as? NSNumber)?.doubleValue ?? 0)
        }
        #expect(types == Set(1...6), "types \(types.sorted())")
        #expect(glasses >= 3 && glasses <= 18 && beards >= 2 && beards <= 14, "glasses \(glasses), beards \(beards)")
        #expect(widths.allSatisfy { $0 >= 0.88 && $0 <= 1.12 } && Set(widths).count > 10)
    }

    @Test func withoutVarietyThePortraitStaysAsItIs() throws {
        let clip = try Clip(GT_STILL, seed: 5, width: 32, height: 24, duration: 0.1)
        defer { clip.cleanUp() }
        let p = try Self.person(clip)
        #expect(p["fitzpatrick"] as? Int == 2 && p["glasses"] as? Bool == false && p["variety"] as? Bool == false)
        let dark = try Clip(GT_DARK, seed: 5, width: 32, height: 24, duration: 0.1)
        defer { dark.cleanUp() }
        #expect(try Self.person(dark)["fitzpatrick"] as? Int == 6)
    }

    /// Darker types have darker skin, measured where the truth says the cheeks are.
    @Test func skinToneFollowsTheType() throws {
        var greenByType = [Int: Double]()
        for seed in 1...12 as ClosedRange<UInt32> {
            var o = Clip.options(GT_STILL, seed: seed, width: 320, height: 240, duration: 0.1, noise: 0)
            o.variety = 1
            var clip: OpaquePointer?
            var message = [CChar](repeating: 0, count: 256)
            try #require(gt_clip_create(&o, &clip, &message, message.count) == 0)
            defer { gt_clip_destroy(clip) }
            var rgb = [UInt8](repeating: 0, count: 320 * 240 * 3)
            try #require(gt_clip_render_rgb(clip, 0, &rgb) == 0)
            let meta = try Self.varied(GT_STILL, seed: seed, duration: 0.1, width: 32, height: 24)
            defer { meta.cleanUp() }
            let type = try #require(try Self.person(meta)["fitzpatrick"] as? Int)
            let cheek = try #require(meta.regions.first?[1])
            var sum = 0.0, n = 0.0
            for y in Int(cheek.y * 240)..<Int((cheek.y + cheek.height) * 240) {
                for x in Int(cheek.x * 320)..<Int((cheek.x + cheek.width) * 320) { sum += Double(rgb[(y * 320 + x) * 3 + 1]); n += 1 }
            }
            greenByType[type] = sum / n
        }
        let ordered = greenByType.sorted { $0.key < $1.key }.map(\.value)
        #expect(ordered.count >= 4 && zip(ordered, ordered.dropFirst()).allSatisfy { $0 > $1 }, "\(greenByType)")
    }

    @Test func fastAndSlowPulsesReachTheEndsOfTheRange() throws {
        for seed in 1...4 as ClosedRange<UInt32> {
            let fast = try Clip(GT_FAST, seed: seed, width: 32, height: 24, duration: 10)
            let slow = try Clip(GT_SLOW, seed: seed, width: 32, height: 24, duration: 10)
            defer { fast.cleanUp(); slow.cleanUp() }
            let f = try #require(fast.double("meanHeartRate")), s = try #require(slow.double("meanHeartRate"))
            #expect(f >= 114 && f <= 181 && s >= 44 && s <= 56, "fast \(f), slow \(s)")
        }
    }

    /// Frame-mean green of every frame of a clip rendered in memory.
    static func frameMeans(_ scenario: gt_scenario, seed: UInt32, variety: Int32 = 0) throws -> (means: [Double], rows: [[Double]]) {
        var o = Clip.options(scenario, seed: seed, width: 64, height: 48, duration: 30, noise: 0)
        o.variety = variety
        var clip: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        try #require(gt_clip_create(&o, &clip, &message, message.count) == 0)
        defer { gt_clip_destroy(clip) }
        var info = gt_clip_info()
        gt_clip_get_info(clip, &info)
        var rgb = [UInt8](repeating: 0, count: 64 * 48 * 3)
        var means = [Double](), rows = [[Double]]()
        for i in 0..<info.frame_count {
            try #require(gt_clip_render_rgb(clip, i, &rgb) == 0)
            means.append(stride(from: 1, to: rgb.count, by: 3).reduce(0.0) { $0 + Double(rgb[$1]) } / Double(64 * 48))
            if i < 3 { rows.append((0..<48).map { y in (0..<64).reduce(0.0) { $0 + Double(rgb[(y * 64 + $1) * 3 + 1]) } / 64 }) }
        }
        return (means, rows)
    }

    @Test func autoGainStepsSeveralTimesAndWhiteBalanceDrifts() throws {
        let still = try Self.frameMeans(GT_STILL, seed: 3).means
        let gain = try Self.frameMeans(GT_AUTOGAIN, seed: 3).means
        func jumps(_ m: [Double]) -> Int { zip(m, m.dropFirst()).filter { abs($1 / $0 - 1) > 0.05 }.count }
        #expect(jumps(still) == 0)
        #expect(jumps(gain) >= 3 && jumps(gain) <= 6, "\(jumps(gain)) gain steps")
    }

    @Test func mainsFlickerLiesAcrossTheRows() throws {
        let rows = try Self.frameMeans(GT_MAINS_FLICKER, seed: 2).rows
        let plain = try Self.frameMeans(GT_STILL, seed: 2).rows
        // The backdrop's rows at the top: a ripple of a few percent against the plain clip.
        let ripple = (0..<10).map { rows[0][$0] / plain[0][$0] }
        #expect((ripple.max() ?? 0) - (ripple.min() ?? 0) > 0.01, "\(ripple)")
    }
}
