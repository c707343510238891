import Testing
@testable import Circadify

@Suite struct FaceLayoutTests {
    let face = NormalizedRect(x: 0.3, y: 0.2, width: 0.4, height: 0.5)

    @Test func regionsLieInsideTheFaceInTheirPlaces() {
        let layout = FaceLayout(face: face)
        #expect(layout.regions.count == 3)
        for r in layout.regions {
            #expect(r.x >= face.x && r.x + r.width <= face.x + face.width)
            #expect(r.y >= face.y && r.y + r.height <= face.y + face.height)
            #expect(r.width > 0 && r.height > 0)
        }
        let (forehead, subjectLeft, subjectRight) = (layout.regions[0], layout.regions[1], layout.regions[2])
        // Forehead above the brows (about 0.27 of the box down), cheeks below the eyes.
        #expect(forehead.y + forehead.height <= face.y + 0.27 * face.height)
        #expect(subjectLeft.y >= face.y + 0.4 * face.height && subjectRight.y >= face.y + 0.4 * face.height)
        // The subject's left cheek is on the image's right; both stay off the nose (middle fifth).
        #expect(subjectLeft.x > face.centerX + 0.1 * face.width)
        #expect(subjectRight.x + subjectRight.width < face.centerX - 0.1 * face.width)
        // Above the mouth corners.
        #expect(subjectLeft.y + subjectLeft.height <= face.y + 0.7 * face.height)
    }

    @Test func scanFaceAnchorsAreTheRegionCentres() {
        let layout = FaceLayout(face: face)
        let scan = layout.scanFace(imageAspect: 4.0 / 3.0, mirrored: true)
        #expect(abs(scan.forehead.x - Double(layout.regions[0].centerX)) < 1e-6)
        #expect(abs(scan.leftCheek.x - Double(layout.regions[1].centerX)) < 1e-6)
        #expect(abs(scan.rightCheek.y - Double(layout.regions[2].centerY)) < 1e-6)
        #expect(scan.leftCheek.x > scan.rightCheek.x)
        #expect(abs(scan.ovalCenter.x - 0.5) < 1e-6)
        #expect(scan.ovalSize.height > Double(face.height) && scan.ovalSize.width >= Double(face.width))
        #expect(abs(scan.imageAspect - 4.0 / 3.0) < 1e-6)
        #expect(scan.isMirrored)
        #expect(!layout.scanFace(imageAspect: 1, mirrored: false).isMirrored)
    }

    @Test func aFaceAtTheEdgeKeepsItsRegionsInTheImage() {
        let layout = FaceLayout(face: NormalizedRect(x: -0.1, y: 0.7, width: 0.4, height: 0.5))
        for r in layout.regions {
            #expect(r.x >= 0 && r.y >= 0 && r.x + r.width <= 1 && r.y + r.height <= 1)
        }
    }

    @Test func intersectionOverUnion() {
        let a = NormalizedRect(x: 0, y: 0, width: 0.2, height: 0.2)
        #expect(a.intersectionOverUnion(a) == 1)
        #expect(a.intersectionOverUnion(NormalizedRect(x: 0.5, y: 0.5, width: 0.1, height: 0.1)) == 0)
        let half = a.intersectionOverUnion(NormalizedRect(x: 0.1, y: 0, width: 0.2, height: 0.2))
        #expect(abs(half - 1.0 / 3.0) < 1e-5)
    }
}
