/// One face found by `FaceDetector`: its box in pixels of the image searched,
/// and how many raw detections (nearby positions and scales) were merged into
/// it, a rough measure of confidence.
package struct DetectedFace: Sendable, Equatable, Hashable {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int
    package var neighbours: Int

    package init(x: Int, y: Int, width: Int, height: Int, neighbours: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.neighbours = neighbours
    }

    package var area: Int { width * height }

    /// Intersection over union with another box (0 when disjoint).
    package func intersectionOverUnion(_ other: DetectedFace) -> Double {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(x + width, other.x + other.width), bottom = min(y + height, other.y + other.height)
        guard right > left, bottom > top else { return 0 }
        let inter = Double((right - left) * (bottom - top))
        return inter / (Double(area) + Double(other.area) - inter)
    }
}
