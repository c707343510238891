import Testing
@testable import Circadify

@Suite struct RegionGlideTests {
    let start = NormalizedRect(x: 0.3, y: 0.2, width: 0.3, height: 0.4)

    @Test func theFirstBoxIsTakenAtOnceAndAMoveIsSpreadOverFrames() throws {
        var glide = RegionGlide()
        #expect(glide.advance(towards: start, at: 0) == .some(start))
        let target = NormalizedRect(x: 0.36, y: 0.2, width: 0.3, height: 0.4)  // 20% of the face width
        var xs = [Float]()
        for frame in 1...15 {
            if case .some(.some(let box)) = glide.advance(towards: target, at: Double(frame) / 30) { xs.append(box.x) }
        }
        // Several steps, each smaller than the whole move, ending on the target.
        #expect(xs.count >= 3)
        #expect(zip(xs, xs.dropFirst()).allSatisfy { $0 < $1 })
        #expect(try #require(xs.first) < 0.36 - 0.01)
        #expect(xs.last == 0.36)
        #expect(glide.advance(towards: target, at: 1) == nil)
    }

    @Test func aTinyChangeIsNotPublished() {
        var glide = RegionGlide()
        _ = glide.advance(towards: start, at: 0)
        let nudged = NormalizedRect(x: 0.3005, y: 0.2, width: 0.3, height: 0.4)
        // Lands on the target in one small final step, then stays quiet.
        var published = 0
        for frame in 1...10 where glide.advance(towards: nudged, at: Double(frame) / 30) != nil { published += 1 }
        #expect(published <= 1)
    }

    @Test func losingTheFaceClearsTheBoxOnce() {
        var glide = RegionGlide()
        _ = glide.advance(towards: start, at: 0)
        #expect(glide.advance(towards: nil, at: 0.1) == .some(nil))
        #expect(glide.advance(towards: nil, at: 0.2) == nil)
        #expect(glide.box == nil)
    }
}
